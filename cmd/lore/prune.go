package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/loop"
	"lore/mdstore/lifecycle"
)

func pruneCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "prune",
		Usage:     "take out of prime and search what no iteration needs any more, as one commit",
		UsageText: "lore prune [--dry-run] [--older-than DURATION] [--hard] [--format table|json]",
		Description: "Seed 002's table, thresholds in config.yaml's prune block (days):\n" +
			"a learning older than unused_learning_days (90) that no prime or show used\n" +
			"in recent_use_days (30), or ever, and a superseded one older than\n" +
			"superseded_after_days (30), get the status pruned; a failed iteration of\n" +
			"a task that is done, older than failures_after_days (7), loses its\n" +
			"failure report (--hard: its file). lore restore brings any of it back.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "dry-run", Usage: "say what would be pruned, change nothing"},
			&cli.StringFlag{Name: "older-than", Usage: "one age for every rule instead of config.yaml's (36h, 7d)"},
			&cli.BoolFlag{Name: "hard", Usage: "remove the failed iterations of done tasks rather than their reports"},
			formatFlag("table", "table", "json"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("prune takes no arguments")
			}
			if err := checkFormat(c.String("format"), "table", "json"); err != nil {
				return err
			}
			opts := pruneOptions{dryRun: c.Bool("dry-run"), olderThan: c.String("older-than"), hard: c.Bool("hard"), format: c.String("format")}
			return runWith(e, globalsFrom(c), opts, runPrune)
		},
	}
}

type pruneOptions struct {
	dryRun, hard bool
	olderThan    string
	format       string
}

func runPrune(e *env, g globals, opts pruneOptions) error {
	var older time.Duration
	if opts.olderThan != "" {
		since, err := parseSince(opts.olderThan, e.now())
		if err != nil || !since.Before(e.now()) {
			return usagef("--older-than %q: a duration such as 36h or 7d", opts.olderThan)
		}
		older = e.now().Sub(since)
	}
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	plan, err := loop.PlanPrune(s, loop.PruneRequest{OlderThan: older, Hard: opts.hard}, p)
	if err != nil {
		return err
	}
	res, err := carryOut(p, s, plan, opts.dryRun, "Prune", "")
	if err != nil {
		return err
	}
	pruned := plan.Entries
	if opts.format == "json" {
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			Pruned []lifecycle.PrunedEntry `json:"pruned"`
			DryRun bool                    `json:"dry_run,omitempty"`
			Commit string                  `json:"commit,omitempty"`
		}{append([]lifecycle.PrunedEntry{}, pruned...), opts.dryRun, commit})
	}
	printPruned(p, pruned, opts.dryRun)
	return nil
}

// printPruned lists what a prune did, or would do.
func printPruned(p *printer, pruned []lifecycle.PrunedEntry, dryRun bool) {
	if len(pruned) == 0 {
		fmt.Fprintln(p.out, "Nothing to prune")
		return
	}
	rows := make([][]string, len(pruned))
	for i, x := range pruned {
		rows[i] = []string{string(x.Kind), x.ID, x.Action, x.Why}
	}
	p.table([]string{"KIND", "ID", "ACTION", "WHY"}, rows)
	if dryRun {
		fmt.Fprintf(p.out, "Dry run: %d %s would be pruned; nothing changed\n", len(pruned), words.Plural(len(pruned), "entry", "entries"))
	}
}
