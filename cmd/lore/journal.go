package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/entry"
	"lore/prompt"
)

func journalCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:  "journal",
		Usage: "the iteration journal: .agent/journal/<run>/<NNNN>-<tag>.md",
		Description: `One file per iteration, named by its number and six random hex digits, so
that two branches continuing one run never write the same file. An entry's
id is its run and its file's name: run-0a1b2c3d/0004-4fa9c2 (or
run-0a1b2c3d/0004 for a file named <NNNN>.md, as lore named them before and
the seeds do). lore ingest and lore run write these entries from an agent's
output; lore journal add writes one by hand.`,
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "record one iteration (the same run and iteration again replaces it)",
				UsageText: "lore journal add --outcome done|failed|retried|blocked|interrupted [--run R] [--iteration N] [--task ID] [flags] [notes|-]",
				Description: `The notes (or - to read them from stdin) are kept to 2,000 characters. The
failure flags make the iteration's failure report. A --next-model that is
none of config.yaml's models is refused (exit status 2), and so is a field
holding a secret.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "run", Usage: "run id (default: the current run, started if there is none)"},
					&cli.IntFlag{Name: "iteration", Usage: "iteration number (default: the next one in the run)"},
					&cli.StringFlag{Name: "task", Aliases: []string{"task-id"}, Usage: "task id"},
					&cli.StringFlag{Name: "feature", Usage: "feature id"},
					&cli.StringFlag{Name: "outcome", Usage: strings.Join(entry.Outcomes, ", ")},
					&cli.StringFlag{Name: "model", Usage: "model used"},
					&cli.StringFlag{Name: "next-model", Usage: "model asked for next"},
					&cli.Float64Flag{Name: "duration", Usage: "wall-clock seconds"},
					&cli.Float64Flag{Name: "cost", Usage: "cost in USD"},
					&cli.StringFlag{Name: "files", Usage: "comma-separated files of the repository modified, relative to its top"},
					&cli.StringFlag{Name: "difficulty", Usage: "trivial, easy, moderate, hard or blocked"},
					&cli.StringFlag{Name: "what-tried", Usage: "failure: the approach taken"},
					&cli.StringFlag{Name: "why-failed", Usage: "failure: the root cause"},
					&cli.StringFlag{Name: "error-category", Usage: "failure: test_failure, build_error, …"},
					&cli.StringFlag{Name: "relevant-files", Usage: "failure: comma-separated files"},
					&cli.StringFlag{Name: "stack-trace", Usage: "failure: the first lines of the error"},
					&cli.StringFlag{Name: "retry-suggestion", Usage: "failure: what to try next"},
					formatFlag("table", "table", "json", "quiet"),
				},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), "table", "json", "quiet"); err != nil {
						return err
					}
					if !c.IsSet("outcome") {
						return usagef("journal add needs --outcome (%s)", strings.Join(entry.Outcomes, ", "))
					}
					notes := ""
					if c.Args().Present() {
						var err error
						if notes, err = bodyFrom(e, c.Args().Slice(), "the notes"); err != nil {
							return err
						}
					}
					j := entry.JournalEntry{RunID: c.String("run"), Iteration: c.Int("iteration"), TaskID: c.String("task"), FeatureID: c.String("feature"),
						Outcome: c.String("outcome"), Model: c.String("model"), NextModel: c.String("next-model"), DurationSecs: c.Float64("duration"),
						CostUSD: c.Float64("cost"), FilesModified: splitList(c.String("files")), Difficulty: c.String("difficulty"), Notes: notes}
					if c.IsSet("what-tried") || c.IsSet("why-failed") || c.IsSet("error-category") || c.IsSet("relevant-files") || c.IsSet("stack-trace") || c.IsSet("retry-suggestion") {
						j.Failure = &entry.Failure{WhatTried: c.String("what-tried"), WhyFailed: c.String("why-failed"), ErrorCategory: c.String("error-category"),
							RelevantFiles: splitList(c.String("relevant-files")), StackTrace: c.String("stack-trace"), RetrySuggestion: c.String("retry-suggestion")}
					}
					if c.Int("iteration") < 0 || c.Float64("duration") < 0 || c.Float64("cost") < 0 {
						return usagef("--iteration, --duration and --cost cannot be negative")
					}
					return runWith(e, globalsFrom(c), journalAddOptions{entry: j, format: c.String("format")}, runJournalAdd)
				},
			},
			{
				Name:      "list",
				Usage:     "list iterations by run and iteration",
				UsageText: "lore journal list [--run R] [--task ID] [--last N] [--format table|json|markdown]",
				Description: `Iterations in order: by iteration number, then creation time, then file name
(after a merge two files may carry one number). --format markdown prints
seed 000's "## Run Journal" section.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "run", Usage: "only this run"},
					&cli.StringFlag{Name: "task", Usage: "only this task"},
					&cli.IntFlag{Name: "last", Usage: "only the last N entries"},
					formatFlag("table", formats...),
				},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), formats...); err != nil {
						return err
					}
					if c.IsSet("last") && c.Int("last") < 1 {
						return usagef("--last must be at least 1")
					}
					opts := journalListOptions{run: c.String("run"), task: c.String("task"), last: c.Int("last"), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runJournalList)
				},
			},
			{
				Name:      "show",
				Usage:     "show one iteration",
				UsageText: "lore journal show <run>/<name>|<run>/<iteration> [--format table|json|markdown]",
				Description: "An entry's id is its run and its file's name, such as run-1a2b3c4d/0003-4fa9c2 (as lore journal list\n" +
					"shows it); <run>/<iteration>, such as run-1a2b3c4d/3, names the iteration with that number, unless\n" +
					"two branches that continued the run each recorded one: then it lists both ids.",
				Flags: []cli.Flag{formatFlag("table", formats...)},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("journal show needs exactly one <run>/<iteration>")
					}
					if err := checkFormat(c.String("format"), formats...); err != nil {
						return err
					}
					opts := journalShowOptions{key: c.Args().First(), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runJournalShow)
				},
			},
			{
				Name:      "start",
				Usage:     "start a run: later entries without --run go to it",
				UsageText: "lore journal start [NAME]",
				Description: `Starts a run (a new run-<8 hex> without a name) and makes it the current one
of this clone, kept under the git directory and never committed. lore ingest
and lore run start one when there is none.`,
				Action: func(c *cli.Context) error {
					if c.NArg() > 1 {
						return usagef("journal start takes at most one name")
					}
					return runWith(e, globalsFrom(c), journalStartOptions{name: c.Args().First()}, runJournalStart)
				},
			},
			{
				Name:      "current",
				Usage:     "print the current run",
				UsageText: "lore journal current",
				Action: func(c *cli.Context) error {
					return runWith(e, globalsFrom(c), journalCurrentOptions{}, runJournalCurrent)
				},
			},
		},
	}
}

type journalAddOptions struct {
	entry  entry.JournalEntry
	format string
}

func runJournalAdd(e *env, g globals, opts journalAddOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	started := false
	if opts.entry.RunID == "" {
		if run, _ := s.CurrentRun(); run == "" {
			started = true
		}
	}
	je, replaced, res, err := s.AddJournal(opts.entry)
	if err != nil {
		return err
	}
	if started {
		p.Notice("started run " + je.RunID + " (lore journal start names one)")
	}
	printWrite(p, res, "Journal entry", je.Key())
	switch opts.format {
	case "json":
		return writeJSON(p.out, struct {
			entry.JournalEntry
			Replaced bool   `json:"replaced"`
			Commit   string `json:"commit,omitempty"`
		}{je, replaced, res.Commit})
	case "quiet":
		fmt.Fprintln(p.out, je.Key())
	default:
		verb := "recorded"
		if replaced {
			verb = "replaced"
		}
		fmt.Fprintf(p.out, "%sIteration %s: %s (%s)\n", p.emoji("📓"), verb, p.paint(ansiYellow, je.Key()), je.Outcome)
	}
	return nil
}

type journalListOptions struct {
	run, task string
	last      int // 0: every entry
	format    string
}

func runJournalList(e *env, g globals, opts journalListOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	all, warnings, err := s.Journal()
	p.Warnings(warnings)
	if err != nil {
		return err
	}
	es := []entry.JournalEntry{}
	for _, je := range all {
		if (opts.run == "" || je.RunID == opts.run) && (opts.task == "" || je.TaskID == opts.task) {
			es = append(es, je)
		}
	}
	if opts.last > 0 && len(es) > opts.last {
		es = es[len(es)-opts.last:]
	}
	switch opts.format {
	case "json":
		return writeJSON(p.out, es)
	case "markdown":
		fmt.Fprint(p.out, prompt.JournalSection(es))
		return nil
	}
	if len(es) == 0 {
		fmt.Fprintln(p.out, "No journal entries.")
		return nil
	}
	var rows [][]string
	for _, je := range es {
		rows = append(rows, []string{p.paint(ansiYellow, je.Key()), outcomeColour(p, je.Outcome), je.TaskID, je.Model,
			strconv.FormatFloat(je.DurationSecs, 'f', 1, 64) + "s", words.FirstLine(je.Notes, 50)})
	}
	p.table([]string{"ENTRY", "OUTCOME", "TASK", "MODEL", "DURATION", "NOTES"}, rows)
	return nil
}

func outcomeColour(p *printer, outcome string) string {
	switch outcome {
	case "done":
		return p.paint(ansiCyan, outcome)
	case "failed", "blocked", "retried":
		return p.paint(ansiRed, outcome)
	}
	return outcome
}

type journalShowOptions struct {
	key    string // <run>/<iteration>
	format string
}

type journalStartOptions struct {
	name string // "": lore names the run
}

func runJournalStart(e *env, g globals, opts journalStartOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	run, err := s.StartRun(opts.name)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, run)
	return nil
}

// journalCurrentOptions is empty: lore journal current has no flags.
type journalCurrentOptions struct{}

func runJournalCurrent(e *env, g globals, _ journalCurrentOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	run, err := s.CurrentRun()
	if err != nil {
		return err
	}
	if run == "" {
		fmt.Fprintln(e.stderr, "No current run (lore journal start begins one).")
		return &reportedError{code: exitFailure}
	}
	fmt.Fprintln(e.stdout, run)
	return nil
}
