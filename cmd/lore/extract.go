package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/lifecycle"
)

func extractCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "extract",
		Usage:     "derive seed 004's learnings from a run's journal, staged for lore learning promote",
		UsageText: "lore extract --run R [--objective TEXT] [--dry-run] [--format table|json]",
		Description: "The task type comes from the objective (seed 004's table; by default the\n" +
			"run's task ids and first notes). Strategies: what more than half the\n" +
			"successful iterations learned; anti-patterns: failure categories seen twice\n" +
			"or more; an estimate: iterations, time, complexity, success rate;\n" +
			"conventions: patterns in the files changed. Each is a staged learning\n" +
			"(kind, task_type, confidence, success_rate, source_runs), one commit for\n" +
			"all; one the store has already is not staged again.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "run", Usage: "the run (required)"},
			&cli.StringFlag{Name: "objective", Usage: "what the run set out to do, for its task type"},
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would be staged, change nothing"},
			formatFlag("table", "table", "json"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 || c.String("run") == "" {
				return usagef("extract needs --run and takes no arguments")
			}
			if err := checkFormat(c.String("format"), "table", "json"); err != nil {
				return err
			}
			opts := extractOptions{run: c.String("run"), objective: c.String("objective"), dryRun: c.Bool("dry-run"), format: c.String("format")}
			return runWith(e, globalsFrom(c), opts, runExtract)
		},
	}
}

type extractOptions struct {
	run, objective string
	dryRun         bool
	format         string
}

func runExtract(e *env, g globals, opts extractOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	plan, err := lifecycle.PlanExtraction(s, opts.run, opts.objective)
	if err != nil {
		return err
	}
	p := g.printer(e)
	res, err := carryOut(p, s, plan, opts.dryRun, "Extraction from", opts.run)
	if err != nil {
		return err
	}
	out := plan.Learnings
	if opts.format == "json" {
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			Extracted []lifecycle.Extracted `json:"extracted"`
			DryRun    bool                  `json:"dry_run,omitempty"`
			Commit    string                `json:"commit,omitempty"`
		}{append([]lifecycle.Extracted{}, out...), opts.dryRun, commit})
	}
	if len(out) == 0 {
		fmt.Fprintf(p.out, "Nothing to extract from %s\n", opts.run)
		return nil
	}
	rows := make([][]string, len(out))
	for i, x := range out {
		id := x.Learning.ID
		switch {
		case x.Kept:
			id = "(already there)"
		case id == "":
			id = "(new)"
		}
		rows[i] = []string{id, x.Learning.Kind, fmt.Sprintf("%.2f", *x.Learning.Confidence), words.FirstLine(x.Learning.Body, 70)}
	}
	p.table([]string{"ID", "KIND", "CONFIDENCE", "LEARNING"}, rows)
	if opts.dryRun {
		fmt.Fprintln(p.out, "Dry run: nothing changed")
	}
	return nil
}
