package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/agentout"
	"lore/hooks"
	"lore/internal/fsx"
	"lore/internal/words"
	"lore/loop"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
)

type ingestOptions struct {
	source      string // a file, "-" for stdin, or "" with transcript or hook
	transcript  string
	hook        string
	format      string
	agentFormat agentout.Format // the format of the agent's output
	in          mdstore.IngestInput
	setRun      bool
	setIter     bool
	setKey      bool
	setModel    bool
	setDuration bool
	setCost     bool
	setFiles    bool
	runEnd      bool   // prune once the iteration is recorded
	objective   string // the run's objective, for learnings.auto_promote's extraction
	progress    string // the loop's progress log
}

func ingestCommand(e *env) *cli.Command {
	formats := []string{"table", "json"}
	return &cli.Command{
		Name:  "ingest",
		Usage: "record one iteration from the agent's output: journal, knowledge, learnings, failure report, in one commit",
		UsageText: "lore ingest <FILE|-> [--run R] [--iteration N] [--key K] [--exit-code N] [--task ID] [--feature F] [--model M] [--duration S] [--cost USD] [--files a,b] [--agent-format F] [--format table|json]\n" +
			"lore ingest --transcript PATH [flags]   the assistant's text since the last message the person typed\n" +
			"lore ingest --hook claude               a Claude Code Stop hook: the payload on stdin names the transcript",
		Description: `Records one iteration in exactly one commit, "lore: ingest <run>/<NNNN>-<tag>
(<outcome> <task>)" with Run-Id, Iteration and Task-Id trailers:

- a journal entry: the outcome from <task-done> or <task-failed> (no task
  sigil: blocked; no sigil at all: unreported), the <journal> notes, <difficulty-estimate>, <next-model>
  (only one of config.yaml's models), and for a failed or blocked iteration
  its <failure-report> and <retry-suggestion>, or else the minimal report
  seed 002 describes;
- every <knowledge tags="…" title="…">, deduplicated as lore knowledge add does;
- every <learning category="…" tags="…">, unless it nearly repeats one.

The output is read as what it is: plain text, or the JSON of Claude Code
(claude -p --output-format json, or stream-json), Codex (codex exec --json)
or Gemini CLI (--output-format json), told from its first bytes
(--agent-format names it). From JSON the sigils are read in the text the
agent said, and the model, duration, cost and files modified its CLI
reports fill what the flags do not give (files inside the repository
only).

Sigils inside inline code or a fenced block, or copied from lore's own
instructions, are ignored; a sigil that makes nothing is a "lore: skipped
<sigil> at line N: reason" line on stderr ("skipped" in JSON). A secret is
recorded as [REDACTED:<rule>]. Every ingest records a new iteration,
even of an output the run's last one had, unless it names one the run
has: --iteration, or --key (an idempotency key: lore run and the Stop
hook pass one). Recorded again that way it changes nothing: a retry with
the same key is safe.

An agent error is an iteration in which the agent did not run to the
end: an empty output, an infrastructure failure its CLI reported (a rate
limit, an overload, authentication, the network, a timeout, its own
crash), or --exit-code other than 0 without a task sigil. It is recorded
as failed with error_category agent_error and the agent's message, and
counts toward neither the task's consecutive failures nor its model.

An agent that speaks no task sigil is read in the conventions of the
loops people run: the entries its progress log gained since lore last
recorded one (--progress, else progress.txt, scripts/ralph/progress.txt
or .ralph/progress.md) are done, the story its heading names, with their
learnings and files changed, and the log's Codebase Patterns a knowledge
entry; <promise>COMPLETE</promise> on a line of its own is done. Output
with no sigil at all is unreported: its text is the notes, and it is
neither a success nor a failure.

--transcript reads the assistant's text since the last message the person
typed (run claude-<session>, iteration the turn's number); --hook claude
does the same with a Stop hook's payload, records only a turn that carries
a sigil, and never exits with status 2. --run-end prunes after recording
(and extracts and promotes the run's learnings with learnings.auto_promote),
each as a commit of its own.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "run id (default: the current run; with a transcript, claude-<session>)"},
			&cli.IntFlag{Name: "iteration", Usage: "iteration (default: the next in the run; with a transcript, the turn number)"},
			&cli.StringFlag{Name: "key", Usage: "idempotency key: an ingest that repeats the key of an iteration of the run records that iteration again, not a new one (with a transcript: the turn's)"},
			&cli.StringFlag{Name: "progress", Usage: "the loop's progress log (progress.txt convention), read when the output has no task sigil", DefaultText: "progress.txt, scripts/ralph/progress.txt or .ralph/progress.md if there is one"},
			&cli.IntFlag{Name: "exit-code", Usage: "the agent's exit status: other than 0 without a task sigil, the iteration is an agent error"},
			&cli.StringFlag{Name: "task", Aliases: []string{"task-id"}, Usage: "task id (default: the one in <task-done> or <task-failed>)"},
			&cli.StringFlag{Name: "feature", Usage: "feature id"},
			&cli.StringFlag{Name: "model", Usage: "model used (default with a transcript: the one it names)"},
			&cli.Float64Flag{Name: "duration", Usage: "wall-clock seconds", DefaultText: "0; with a transcript, the turn's"},
			&cli.Float64Flag{Name: "cost", Usage: "cost in USD"},
			&cli.StringFlag{Name: "files", Usage: "comma-separated files of the repository modified, relative to its top (default with a transcript: the files the turn edited)"},
			&cli.StringFlag{Name: "transcript", Usage: "a Claude Code session transcript (JSON Lines)"},
			&cli.StringFlag{Name: "hook", Usage: "read a hook payload on stdin: claude"},
			agentFormatFlag(),
			&cli.BoolFlag{Name: "run-end", Usage: "this is the run's last iteration: then lore prune, as its own commit (and lore extract and promote with learnings.auto_promote)"},
			&cli.StringFlag{Name: "objective", Usage: "with --run-end: the run's objective, which names its task type for lore extract (default: its tasks and first notes)"},
			formatFlag("table", formats...),
		},
		Action: func(c *cli.Context) error {
			opts := ingestOptions{
				source: c.Args().First(), transcript: c.String("transcript"), hook: c.String("hook"), format: c.String("format"),
				in: mdstore.IngestInput{RunID: c.String("run"), Iteration: c.Int("iteration"), TaskID: c.String("task"), FeatureID: c.String("feature"),
					Model: c.String("model"), DurationSecs: c.Float64("duration"), CostUSD: c.Float64("cost"), Files: splitList(c.String("files")),
					Key: c.String("key"), ProcessEnd: exitEnd(c.Int("exit-code"))},
				setRun: c.IsSet("run"), setIter: c.IsSet("iteration"), setKey: c.IsSet("key"), setModel: c.IsSet("model"),
				setDuration: c.IsSet("duration"), setCost: c.IsSet("cost"), setFiles: c.IsSet("files"), runEnd: c.Bool("run-end"),
				objective: c.String("objective"), progress: c.String("progress"),
			}
			var err error
			if opts.agentFormat, err = agentFormatFrom(c); err == nil {
				err = checkIngestOptions(c, opts)
			}
			if err != nil {
				if opts.hook != "" {
					return hookExit(e, err) // a hook's usage errors too
				}
				return err
			}
			run := runIngest
			if opts.hook == "claude" {
				run = runIngestHook
			}
			return runWith(e, globalsFrom(c), opts, run)
		},
	}
}

// exitEnd is how an agent that exited with code ended, as lore run says
// it (mdstore.IngestInput.ProcessEnd): "" for 0.
func exitEnd(code int) string {
	if code == 0 {
		return ""
	}
	return fmt.Sprintf("exited with status %d", code)
}

func checkIngestOptions(c *cli.Context, opts ingestOptions) error {
	sources := 0
	for _, s := range []string{opts.source, opts.transcript, opts.hook} {
		if s != "" {
			sources++
		}
	}
	switch {
	case c.NArg() > 1:
		return usagef("ingest reads one file")
	case sources != 1:
		return usagef("ingest needs one source: a FILE, - for stdin, --transcript PATH or --hook claude")
	case opts.hook != "" && opts.hook != "claude":
		return usagef("unknown --hook %q (lore knows: claude)", opts.hook)
	case opts.in.Iteration < 0 || opts.in.DurationSecs < 0 || opts.in.CostUSD < 0:
		return usagef("--iteration, --duration and --cost cannot be negative")
	case opts.objective != "" && !opts.runEnd:
		return usagef("--objective names the run's objective at its end: give --run-end with it")
	case c.IsSet("agent-format") && opts.source == "":
		return usagef("--agent-format is the format of an agent's output (a FILE, or -): a transcript is read as one")
	}
	return checkFormat(opts.format, "table", "json")
}

// runIngestHook is ingest as a Claude Code Stop hook: the payload on
// stdin gives the project directory and the transcript. It reports a
// failure itself, with exit status 1 (hookExit).
func runIngestHook(e *env, g globals, opts ingestOptions) error {
	payload, err := hooks.ReadClaudeStop(e.stdin)
	if err != nil {
		return hookExit(e, err)
	}
	if g.root == "" && payload.Cwd != "" {
		g.root = payload.Cwd
	}
	opts.transcript = payload.TranscriptPath // never "": ReadClaudeStop refuses a payload without one
	// Most turns of an interactive session are conversation: only one
	// that reports how a task ended is an iteration.
	opts.in.OutcomeOnly = true
	return hookExit(e, runIngest(e, g, opts))
}

func runIngest(e *env, g globals, opts ingestOptions) error {
	_, err := ingest(e, g, opts)
	return err
}

// ingest records one iteration, and says what it recorded; lore run
// records its iterations through it. The result is nil when nothing was
// recorded (a transcript's turn without text).
func ingest(e *env, g globals, opts ingestOptions) (*mdstore.IngestResult, error) {
	in := opts.in
	format := opts.agentFormat
	var turn hooks.Turn
	switch {
	case opts.transcript != "":
		// A regular file: a FIFO or a link in the payload's path would
		// hang the hook, or read what it points to.
		f, err := fsx.OpenRegular(e.abs(opts.transcript))
		if skip, ok := fsx.Skipped(err); ok {
			return nil, &entry.InputError{Field: "transcript", Msg: fmt.Sprintf("transcript %s: %s: lore reads a transcript only from a regular file", opts.transcript, skip.Reason())}
		}
		if err != nil {
			return nil, fmt.Errorf("read transcript: %w", err)
		}
		turn, err = hooks.LastTurn(f)
		f.Close()
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(turn.Text) == "" {
			fmt.Fprintln(e.stderr, "lore: the transcript's last turn has no assistant text; nothing recorded")
			return nil, nil
		}
		in.Output, format = turn.Text, agentout.Text
		if !opts.setRun {
			in.RunID = hooks.RunID(turn.SessionID)
		}
		if !opts.setIter {
			in.Iteration = turn.Number
		}
		if !opts.setKey {
			in.Key = turn.Key()
		}
		if !opts.setModel {
			in.Model = turn.Model
		}
		if !opts.setDuration {
			in.DurationSecs = turn.DurationSecs
		}
	case opts.source == "-":
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		in.Output = string(data)
	default:
		data, err := os.ReadFile(e.abs(opts.source))
		if err != nil {
			return nil, fmt.Errorf("read output: %w", err)
		}
		in.Output = string(data)
	}
	s, err := g.openStore(e)
	if err != nil {
		return nil, err
	}
	if opts.transcript != "" && !opts.setFiles {
		in.Files = turn.FilesRelativeTo(s.Root())
	}
	p := g.printer(e)
	res, err := loop.Ingest(s, loop.IngestRequest{IngestInput: in, RunEnd: opts.runEnd, Objective: opts.objective, Format: format,
		Given: loop.Given{Model: opts.setModel, Duration: opts.setDuration, Cost: opts.setCost, Files: opts.setFiles}, Progress: opts.progress}, p)
	if res == nil {
		return nil, err
	}
	if err != nil {
		return res.IngestResult, err
	}
	if opts.format == "json" {
		var end loop.RunEnd
		if res.End != nil {
			end = *res.End
		}
		agentFormat := "" // said for an output that was not text
		if res.Format != agentout.Text {
			agentFormat = string(res.Format)
		}
		return res.IngestResult, writeJSON(p.out, struct {
			*mdstore.IngestResult
			AgentFormat string                  `json:"agent_format,omitempty"`
			Commit      string                  `json:"commit,omitempty"`
			Merges      []lifecycle.Merge       `json:"summarized,omitempty"`
			Promoted    []lifecycle.Promotion   `json:"promoted,omitempty"`
			Pruned      []lifecycle.PrunedEntry `json:"pruned,omitempty"`
		}{res.IngestResult, agentFormat, commitOf(res.Write), res.Merges, end.Promoted, end.Pruned})
	}
	printIngested(p, res, opts.runEnd)
	return res.IngestResult, nil
}

// printIngested says what an iteration's ingest recorded, a row per
// entry, then the summary of learnings it made and, at the run's end,
// what that did.
func printIngested(p *printer, res *loop.Ingested, runEnd bool) {
	wr := res.Write
	if len(res.Merges) > 0 {
		defer func() {
			fmt.Fprintf(p.out, "Learnings summarized: %d %s merged\n", len(res.Merges), words.Plural(len(res.Merges), "cluster", "clusters"))
		}()
	}
	if runEnd && res.End != nil {
		defer reportRunEnd(p.out, res.End)
	}
	var rows [][]string
	if j := res.Journal; j != nil {
		title := fmt.Sprintf("%s %s", j.Key(), j.Outcome)
		if j.TaskID != "" {
			title += " (" + j.TaskID + ")"
		}
		if j.AgentError() { // no attempt at the task: say what the agent's end was
			title += ": " + words.FirstLine(j.Failure.WhyFailed, 100)
		} else if res.NoOutcome != "" {
			title += ": " + res.NoOutcome
		}
		verb := "Recorded"
		if wr.Commit == "" && res.JournalReplaced {
			verb = "Already recorded"
		}
		fmt.Fprintf(p.out, "%s%s %s\n", p.emoji("📓"), verb, p.paint(ansiYellow, title))
		rows = append(rows, []string{"journal", j.Path})
		if f := j.Failure; f != nil && strings.HasPrefix(f.WhyFailed, mdstore.MinimalFailureReason) && f.WhatTried == "" {
			// lore run adds how the agent ended: ": the agent exited with status 7".
			rows = append(rows, []string{"failure", "no <failure-report>: minimal report recorded" + strings.TrimPrefix(f.WhyFailed, mdstore.MinimalFailureReason)})
		} else if j.Failure != nil {
			rows = append(rows, []string{"failure", j.Failure.ErrorCategory + ": " + words.FirstLine(j.Failure.WhyFailed, 60)})
		}
	} else if len(res.Knowledge)+len(res.Learnings) == 0 {
		fmt.Fprintf(p.out, "%sNothing recorded: no sigil in the output says how a task ended or what was learned\n", p.emoji("📓"))
	} else {
		fmt.Fprintf(p.out, "%sRecorded knowledge and learnings (no task sigil: no iteration)\n", p.emoji("📓"))
	}
	for _, k := range res.Knowledge {
		rows = append(rows, []string{"knowledge", k.Action + " " + k.ID})
	}
	for _, l := range res.Learnings {
		if l.Action == "duplicate" {
			rows = append(rows, []string{"learning", "not added: " + l.ID + " (" + l.Title + ") already says this"})
		} else {
			rows = append(rows, []string{"learning", "created " + l.ID + " (" + l.Title + ")"})
		}
	}
	if wr.Commit != "" {
		rows = append(rows, []string{"commit", wr.Commit[:7]})
	}
	for _, r := range rows {
		fmt.Fprintf(p.out, "  %-10s %s\n", r[0], r[1])
	}
}

// reportRunEnd says what the end of the run did.
func reportRunEnd(w io.Writer, end *loop.RunEnd) {
	fmt.Fprintf(w, "End of the run: %d %s pruned\n", len(end.Pruned), words.Plural(len(end.Pruned), "entry", "entries"))
	if len(end.Promoted) > 0 {
		active := 0
		for _, x := range end.Promoted {
			if x.Status == "active" {
				active++
			}
		}
		fmt.Fprintf(w, "Learnings promoted: %d active, %d rejected\n", active, len(end.Promoted)-active)
	}
}
