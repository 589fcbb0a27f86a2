package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"lore/agentout"
	"lore/loop"
	"lore/mdstore/entry"
)

// runCommandName is lore run's name: normalizeArgs leaves what follows
// its "--" alone, for it is the agent's command.
const runCommandName = "run"

// lore run's exit statuses beyond 0 (done), 1 (failed) and 2 (usage).
const (
	exitBlocked     = 3   // the agent did not say how the task went (blocked, or unreported: no sigil at all)
	exitStuck       = 4   // the task failed strategy.StuckThreshold times in a row, or more
	exitAgentError  = 5   // the agent did not run to the end: it crashed, was rate-limited, said nothing
	exitInterrupted = 130 // 128 + SIGINT, as a shell says it
)

type runOptions struct {
	prime     primeOptions // the task, as lore prime takes it
	command   []string     // the agent's command, placeholders unreplaced
	repeat    int
	runEnd    bool   // the run ends with lore run's last iteration (endRun)
	objective string // the run's objective, for its extraction
	format    agentout.Format
	progress  string // the agent's progress log
}

func runAgentCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      runCommandName,
		Usage:     "run one iteration of an agent: prime, the agent's command, ingest its output in one commit",
		UsageText: "lore run [task flags] [prime flags] [--repeat N] [--run-end [--objective TEXT]] -- <agent command…>",
		Description: "The task (an Assigned Task block) and the context lore prime prints go to the agent's stdin,\n" +
			"unless an argument says where: {prompt} is replaced by them, {prompt_file} by the path of a\n" +
			"temporary file holding them (mode 0600, removed afterwards), {model} by the model lore model\n" +
			"chooses for the task (or --model). The agent runs without a shell, in lore's directory. The\n" +
			"agent's stdout and stderr are shown as they come; both are ingested (stdout, then stderr) with\n" +
			"the files the iteration changed (.agent/ left out), its duration and how the agent exited: a\n" +
			"non-zero exit without <task-done> or <task-failed>, an empty output or the agent CLI's crash,\n" +
			"rate limit or overload is an agent error (no attempt at the task). Its output is read as\n" +
			"what it is (--agent-format, told from its first bytes by default): Claude Code's json or\n" +
			"stream-json, Codex's or Gemini CLI's JSON as the text the agent said, with the model and cost\n" +
			"its CLI reports. Ctrl-C stops the agent, and the iteration is recorded as interrupted. When\n" +
			"the iteration cannot be recorded, the agent's output is kept under the git directory and lore\n" +
			"names the lore ingest command that records it. An agent that speaks no task sigil is read as\n" +
			"lore ingest reads it: its progress log (--progress) and <promise>COMPLETE</promise>.\n\n" +
			"Exit status: 0 done, 1 failed, 3 blocked (no task sigil) or unreported (no sigil at all), 4 stuck\n" +
			"(3 consecutive failures), 5 agent error, 130 interrupted, 2 usage. --repeat N runs up to N\n" +
			"iterations of the task, and stops at the first done, at its 4th consecutive failure, where seed\n" +
			"002 hands a task to a person, or at the 3rd agent error in a row. Without a task, a story done\n" +
			"from the agent's progress log goes on to the next iteration; <promise>COMPLETE</promise> stops.\n\n" +
			"  lore run --title 'Add the login form' -- claude -p {prompt}\n" +
			"  lore run --task-id T-1 --repeat 5 -- my-agent --model {model}",
		Flags: primeFlags(
			&cli.IntFlag{Name: "repeat", Value: 1, Usage: "run up to N iterations, until the task is done or at its 4th consecutive failure"},
			&cli.BoolFlag{Name: "run-end", Usage: "the run ends with the last iteration: then lore prune (and lore extract and promote with learnings.auto_promote), as lore ingest --run-end does"},
			&cli.StringFlag{Name: "objective", Usage: "with --run-end: the run's objective, which names its task type for lore extract (default: the task's title and description)"},
			agentFormatFlag(),
			&cli.StringFlag{Name: "progress", Usage: "the loop's progress log (progress.txt convention), read when the agent says no task sigil", DefaultText: "progress.txt, scripts/ralph/progress.txt or .ralph/progress.md if there is one"},
		),
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			switch {
			case len(args) == 0:
				return usagef("run needs the agent's command after --: lore run [flags] -- claude -p {prompt}")
			case args[0] != "--":
				return usagef("the agent's command goes after --: lore run [flags] -- %s …", args[0])
			case len(args) == 1:
				return usagef("no agent command after --: lore run [flags] -- claude -p {prompt}")
			}
			opts := runOptions{command: args[1:], repeat: c.Int("repeat"), runEnd: c.Bool("run-end"), objective: c.String("objective"), progress: c.String("progress")}
			var err error
			if opts.format, err = agentFormatFrom(c); err != nil {
				return err
			}
			if opts.repeat < 1 {
				return usagef("--repeat must be 1 or more")
			}
			if opts.objective != "" && !opts.runEnd {
				return usagef("--objective names the run's objective at its end: give --run-end with it")
			}
			if opts.prime, err = primeOptionsFrom(c); err != nil {
				return err
			}
			opts.prime.format = "markdown"
			if run := opts.prime.loop.Run; run != "" && !entry.ValidRunID(run) {
				return usagef("--run %q may only hold lowercase letters, digits, '.', '_' and '-'", run)
			}
			return runWith(e, globalsFrom(c), opts, runAgent)
		},
	}
}

// runAgent runs the agent for up to opts.repeat iterations of one task
// and says, last, how it ended; the exit status says it too.
func runAgent(e *env, g globals, opts runOptions) error {
	req, err := opts.prime.request()
	if err != nil {
		return err
	}
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	// Caught for as long as lore run works, so that lore outlives its
	// agent and records the iteration (loop.Run passes them on to the
	// agent); SIGPIPE too, so that a reader of lore's output going away
	// does not end lore with the output unrecorded.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	defer func() {
		signal.Stop(signals)
		close(signals)
	}()
	// What lore says goes to stderr: lore run's stdout is the agent's.
	ie := *e
	ie.stdout = e.stderr
	run := loop.RunRequest{Prime: req, Command: opts.command, Repeat: opts.repeat,
		Dir: e.workDir, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr, Signals: signals, Getenv: e.getenv, Format: opts.format, Progress: opts.progress,
		Recorded: func(res *loop.Ingested) { printIngested(g.printer(&ie), res, false) }}
	res, err := loop.Run(s, run, p)
	if err != nil {
		return err
	}
	code := runExitCodes[res.Outcome]
	p.Notice(fmt.Sprintf("%s (exit %d)", res.Summary, code))
	if opts.runEnd && res.Outcome != loop.Interrupted {
		end, err := loop.EndRun(s, res.Run, run.Objective(opts.objective), g.printer(&ie))
		if err != nil {
			p.Notice("the iterations are recorded; " + err.Error())
			return &reportedError{code: exitFailure}
		}
		reportRunEnd(e.stderr, end)
	}
	if code == exitOK {
		return nil
	}
	return &reportedError{code: code}
}

// runExitCodes are lore run's exit statuses, by how the run ended.
var runExitCodes = map[loop.Outcome]int{
	loop.Done:        exitOK,
	loop.Failed:      exitFailure,
	loop.Blocked:     exitBlocked,
	loop.Stuck:       exitStuck,
	loop.Interrupted: exitInterrupted,
	loop.AgentError:  exitAgentError,
	loop.Unreported:  exitBlocked,
}
