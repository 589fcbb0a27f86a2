package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/index"
	"lore/internal/words"
	"lore/stats"
)

func statsCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "stats",
		Usage:     "describe the store: entries by kind, type, category and status, size, runs, entries never used",
		UsageText: "lore stats [--status S,…] [--format text|json]",
		Description: "Learnings count by status (superseded: another replaced them); the active\n" +
			"ones (or those of --status) by category, seed 004's kind and task type,\n" +
			"with their mean confidence and success rate.\n" +
			"Tokens are what the entries would cost in a prime. Never used: the entries\n" +
			"prime could show that no prime or show put before an agent in this clone.\n" +
			"Each run: its iterations, how many ended done, and the knowledge and\n" +
			"learnings created while it ran.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "status", Usage: "count the learnings of these statuses by category and kind (comma-separated): " + strings.Join(index.Statuses, ", ") + ", or all (default: active)"},
			formatFlag("text", "text", "json"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("stats takes no arguments")
			}
			if err := checkFormat(c.String("format"), "text", "json"); err != nil {
				return err
			}
			statuses, err := parseStatuses(c.String("status"))
			if err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), statsOptions{format: c.String("format"), statuses: statuses}, runStats)
		},
	}
}

type statsOptions struct {
	format   string
	statuses []string
}

// statsRuns is how many of the last runs the text shows.
const statsRuns = 10

func runStats(e *env, g globals, opts statsOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	r, warnings, err := stats.Of(s, opts.statuses)
	if err != nil {
		return err
	}
	p := g.printer(e)
	p.Warnings(warnings)
	if opts.format == "json" {
		return writeJSON(p.out, r)
	}
	fmt.Fprintf(p.out, "Memories:   %d%s\n", r.Memories.Total, counts(r.Memories.By))
	fmt.Fprintf(p.out, "Knowledge:  %d\n", r.Knowledge)
	fmt.Fprintf(p.out, "Learnings:  %d%s\n", r.Learnings, counts(r.LearningStatus))
	if len(r.LearningCategory) > 0 {
		fmt.Fprintf(p.out, "  category: %s\n", countList(r.LearningCategory))
	}
	if len(r.LearningKind) > 0 {
		fmt.Fprintf(p.out, "  kind:     %s\n", countList(r.LearningKind))
	}
	if len(r.TaskTypes) > 0 {
		fmt.Fprintf(p.out, "  task type: %s\n", countList(r.TaskTypes))
	}
	if r.AvgConfidence != nil {
		fmt.Fprintf(p.out, "  mean confidence %.2f", *r.AvgConfidence)
		if r.AvgSuccessRate != nil {
			fmt.Fprintf(p.out, ", mean success rate %.2f", *r.AvgSuccessRate)
		}
		fmt.Fprintln(p.out)
	}
	fmt.Fprintf(p.out, "Journal:    %d %s in %d %s", r.Journal, words.Plural(r.Journal, "iteration", "iterations"), len(r.Runs), words.Plural(len(r.Runs), "run", "runs"))
	if r.SuccessRate != nil {
		fmt.Fprintf(p.out, ", %.0f%% done", *r.SuccessRate*100)
	}
	fmt.Fprintln(p.out)
	fmt.Fprintf(p.out, "Skills:     %d\n", r.Skills)
	fmt.Fprintf(p.out, "Size:       %s on disk, ~%d tokens in a prime\n", bytesText(r.Bytes), r.Tokens)
	fmt.Fprintf(p.out, "Never used: %s\n", countList(r.NeverUsed))
	if len(r.Runs) > 0 {
		fmt.Fprintln(p.out)
		runs := r.Runs[max(0, len(r.Runs)-statsRuns):]
		rows := make([][]string, len(runs))
		for i, run := range runs {
			rows[i] = []string{run.ID, fmt.Sprint(run.Iterations), fmt.Sprint(run.Done), fmt.Sprint(run.Added), run.First.Format("2006-01-02 15:04")}
		}
		p.table([]string{"RUN", "ITERATIONS", "DONE", "ADDED", "STARTED"}, rows)
	}
	return nil
}

// counts is " (a 3, b 1)", largest first, or "" for none.
func counts(c stats.Counts) string {
	if len(c) == 0 {
		return ""
	}
	return " (" + countList(c) + ")"
}

// countList is "a 3, b 1", largest first, or "none".
func countList(c stats.Counts) string {
	if len(c) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if c[keys[i]] != c[keys[j]] {
			return c[keys[i]] > c[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, c[k])
	}
	return strings.Join(parts, ", ")
}

// bytesText is a size for a person: 512 B, 3.4 KB, 12.0 MB.
func bytesText(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
