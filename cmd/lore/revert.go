package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/lifecycle"
)

func revertCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "revert",
		Usage:     "undo what one iteration of a loop wrote to the store, as one commit",
		UsageText: "lore revert <run>/<NNNN> [--dry-run] [--format table|json]",
		Description: "Puts back, entry by entry, what the iteration's commits changed: its ingest\n" +
			"commits and, after a run's first iteration, lore's own commits made while it\n" +
			"ran (an agent's lore add, lore edit). A memory, knowledge entry, learning,\n" +
			"skill or citation the iteration added goes; one it changed or deleted comes\n" +
			"back as it was. Its journal entry is kept, with reverted_at set. A commit made\n" +
			"by hand is never undone, and the revert is refused when a later commit changed\n" +
			"one of the same entries.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would be undone, change nothing"},
			formatFlag("table", "table", "json"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("revert needs exactly one iteration, such as run-1a2b3c4d/0003")
			}
			if err := checkFormat(c.String("format"), "table", "json"); err != nil {
				return err
			}
			opts := revertOptions{key: c.Args().First(), dryRun: c.Bool("dry-run"), format: c.String("format")}
			return runWith(e, globalsFrom(c), opts, runRevert)
		},
	}
}

type revertOptions struct {
	key    string
	dryRun bool
	format string
}

func runRevert(e *env, g globals, opts revertOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	plan, err := lifecycle.PlanRevert(s, opts.key)
	if err != nil {
		return err
	}
	p := g.printer(e)
	res, err := carryOut(p, s, plan, opts.dryRun, "Revert of", plan.Key)
	if err != nil {
		return err
	}
	if opts.format == "json" {
		return writeJSON(p.out, struct {
			*lifecycle.RevertPlan
			DryRun bool   `json:"dry_run,omitempty"`
			Commit string `json:"commit,omitempty"`
		}{plan, opts.dryRun, commitOf(res)})
	}
	printReverted(p, plan, opts.dryRun)
	return nil
}

// printReverted lists what a revert undid, or would undo.
func printReverted(p *printer, plan *lifecycle.RevertPlan, dryRun bool) {
	if len(plan.Entries) > 0 {
		rows := make([][]string, len(plan.Entries))
		for i, x := range plan.Entries {
			rows[i] = []string{string(x.Kind), x.ID, x.Action}
		}
		p.table([]string{"KIND", "ID", "ACTION"}, rows)
	} else {
		fmt.Fprintln(p.out, "No entry to put back: the iteration left the store as it found it")
	}
	commits := fmt.Sprintf("%d %s", len(plan.Commits), words.Plural(len(plan.Commits), "commit", "commits"))
	if dryRun {
		fmt.Fprintf(p.out, "Dry run: reverting %s would undo %s; nothing changed\n", plan.Key, commits)
		return
	}
	fmt.Fprintf(p.out, "Reverted %s (%s undone); its journal entry is marked reverted\n", plan.Key, commits)
}
