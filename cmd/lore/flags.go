package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/agentout"
	"lore/mdstore/entry"
	"lore/strategy"
)

func formatFlag(def string, allowed ...string) *cli.StringFlag {
	return &cli.StringFlag{Name: "format", Value: def, Usage: "output format: " + strings.Join(allowed, ", ")}
}

// agentFormatFlag is --agent-format: the format of the agent's output
// that lore ingest reads and lore run ingests. It is not --format, which
// every command has for its own output.
func agentFormatFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "agent-format", Value: string(agentout.Auto),
		Usage: "the format of the agent's output (auto: told from its first bytes): " + agentFormatNames()}
}

func agentFormatNames() string {
	names := make([]string, len(agentout.Formats))
	for i, f := range agentout.Formats {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}

// agentFormatFrom is --agent-format's format, or a usage error.
func agentFormatFrom(c *cli.Context) (agentout.Format, error) {
	f, err := agentout.ParseFormat(c.String("agent-format"))
	if err != nil {
		return "", usagef("invalid --agent-format %q (use %s)", c.String("agent-format"), agentFormatNames())
	}
	return f, nil
}

func checkFormat(format string, allowed ...string) error {
	for _, a := range allowed {
		if format == a {
			return nil
		}
	}
	return usagef("invalid --format %q (use %s)", format, strings.Join(allowed, ", "))
}

var typeFilterFlag = &cli.StringFlag{Name: "type", Aliases: []string{"t"}, Usage: "only these types (comma-separated): pattern, decision, fix, context"}

var tagsFilterFlag = &cli.StringFlag{Name: "tags", Usage: "only memories with any of these tags (comma-separated)"}

// parseTypes turns "fix,pattern" into types; "" is no filter.
func parseTypes(s string) ([]entry.MemoryType, error) {
	var out []entry.MemoryType
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		t, err := entry.ParseMemoryType(part)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseTagFilter(s string) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, strings.ToLower(t))
		}
	}
	return out
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// bodyFrom is the text a command was given: its arguments joined, or
// stdin when the only argument is "-".
func bodyFrom(e *env, args []string, what string) (string, error) {
	if len(args) == 0 {
		return "", usagef("%s is missing (give it as arguments, or - to read stdin)", what)
	}
	if len(args) == 1 && args[0] == "-" {
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return string(data), nil
	}
	return strings.Join(args, " "), nil
}

// taskFlags describe the coming iteration, for prime, status and model.
var taskFlags = []cli.Flag{
	&cli.StringFlag{Name: "task-id", Aliases: []string{"task"}, Usage: "the task the iteration works on"},
	&cli.StringFlag{Name: "run", Usage: "the run id (default: the current run)"},
	&cli.IntFlag{Name: "iteration", Usage: "the iteration's number (default: the run's next)"},
	&cli.IntFlag{Name: "limit", Usage: "the run's iteration limit (0: unlimited)"},
	&cli.StringFlag{Name: "model", Usage: "the model the orchestrator will use (default: lore chooses)"},
	&cli.StringFlag{Name: "strategy", Value: string(strategy.CostOptimized), Usage: "model strategy: cost-optimized, escalate or fixed"},
}

// loopInput reads the task flags.
func loopInput(c *cli.Context) (strategy.Input, error) {
	k, err := strategy.ParseKind(c.String("strategy"))
	if err != nil {
		return strategy.Input{}, usagef("--strategy: %v", err)
	}
	in := strategy.Input{TaskID: c.String("task-id"), Run: c.String("run"), Iteration: c.Int("iteration"),
		Limit: c.Int("limit"), Model: c.String("model"), Strategy: k}
	if in.Iteration < 0 || in.Limit < 0 {
		return in, usagef("--iteration and --limit must be 0 or more")
	}
	return in, nil
}
