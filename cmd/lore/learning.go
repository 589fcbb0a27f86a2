package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
	"lore/prompt"
)

func learningCommand(e *env) *cli.Command {
	listFormats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:    "learning",
		Aliases: []string{"learnings"},
		Usage:   "insights from iterations: .agent/learnings/<id>.md",
		Description: `Prime and search show a learning while it is active and nothing superseded
it; --status asks them for the others. Each change is one commit that
rewrites only the lines it changes (status, status_reason, superseded_by),
so what a person wrote in the file stays.`,
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a learning (a near-duplicate of an existing one is not added)",
				UsageText: "lore learning add --category CATEGORY --tags a,b [--task ID] [--status active|staged] [--kind K] [--format table|json|quiet] <text|->",
				Description: `Writes .agent/learnings/l-<6 hex>.md and commits it; - reads the text from
stdin. Unknown categories are kept as written. A learning of the same
category sharing more than 80% of its words with an existing one is not
added: the existing id is printed. Every field is checked for secrets
(exit status 2).`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "category", Usage: strings.Join(entry.LearningCategories, ", ") + " (others are kept as written)"},
					&cli.StringFlag{Name: "tags", Usage: "comma-separated keywords: files, tools, error types (at least one)"},
					&cli.StringFlag{Name: "task", Usage: "the task it came from"},
					&cli.StringFlag{Name: "status", Value: "active", Usage: strings.Join(entry.LearningStatuses, ", ")},
					&cli.StringFlag{Name: "kind", Usage: strings.Join(entry.LearningKinds, ", ") + " (optional)"},
					formatFlag("table", "table", "json", "quiet"),
				},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), "table", "json", "quiet"); err != nil {
						return err
					}
					body, err := bodyFrom(e, c.Args().Slice(), "the learning")
					if err != nil {
						return err
					}
					opts := learningAddOptions{format: c.String("format"), learning: entry.NewLearning{Category: c.String("category"),
						Tags: entry.SplitTags(c.String("tags")), Task: c.String("task"), Status: c.String("status"), Kind: c.String("kind"), Body: body}}
					return runWith(e, globalsFrom(c), opts, runLearningAdd)
				},
			},
			{
				Name:      "list",
				Usage:     "list learnings, oldest first",
				UsageText: "lore learning list [--category C] [--status S] [--tags a,b] [--format table|json|markdown]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "category", Usage: "only this category"},
					&cli.StringFlag{Name: "status", Usage: "only this status"},
					&cli.StringFlag{Name: "tags", Usage: "only learnings with any of these tags (comma-separated)"},
					formatFlag("table", listFormats...),
				},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), listFormats...); err != nil {
						return err
					}
					opts := learningListOptions{category: c.String("category"), status: c.String("status"), tags: c.String("tags"), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runLearningList)
				},
			},
			{
				Name:      "show",
				Usage:     "show one learning",
				UsageText: "lore learning show <id> [--format table|json|markdown]",
				Flags:     []cli.Flag{formatFlag("table", listFormats...)},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("learning show needs exactly one id")
					}
					if err := checkFormat(c.String("format"), listFormats...); err != nil {
						return err
					}
					opts := learningShowOptions{id: c.Args().First(), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runLearningShow)
				},
			},
			{
				Name:      "delete",
				Usage:     "delete a learning",
				UsageText: "lore learning delete <id>",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("learning delete needs exactly one id")
					}
					return runWith(e, globalsFrom(c), learningDeleteOptions{id: c.Args().First()}, runLearningDelete)
				},
			},
			{
				Name:      "status",
				Usage:     "give a learning another status: " + strings.Join(entry.LearningStatuses, ", ") + " (prime and search show active ones)",
				UsageText: "lore learning status <id> <" + strings.Join(entry.LearningStatuses, "|") + "> [--reason TEXT] [--format table|json|quiet]",
				Description: `One commit, "lore: learning l-… active -> rejected", with the reason in its
body; only the status and status_reason lines of the file change.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "reason", Usage: "why, kept in the file (status_reason) and the commit message; none clears it"},
					formatFlag("table", "table", "json", "quiet"),
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return usagef("learning status needs a learning id and a status (%s)", strings.Join(entry.LearningStatuses, ", "))
					}
					if err := checkFormat(c.String("format"), "table", "json", "quiet"); err != nil {
						return err
					}
					opts := learningStatusOptions{id: c.Args().Get(0), status: c.Args().Get(1), reason: c.String("reason"), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runLearningStatus)
				},
			},
			{
				Name:      "promote",
				Usage:     "validate staged learnings (seed 004) and make each active, or rejected with the reason",
				UsageText: "lore learning promote <id…|--all> [--dry-run] [--format table|json]",
				Description: "Seed 004's criteria: a kind (strategy, antipattern, estimate, convention),\n" +
					"a task type and a body; confidence and success rate from 0 to 1;\n" +
					"confidence at least 0.3; an anti-pattern's success rate at most 0.2, a\n" +
					"strategy's at least 0.5. Each becomes active, or rejected with the reason\n" +
					"as its status_reason, in one commit that lists each.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "all", Usage: "every staged learning"},
					&cli.BoolFlag{Name: "dry-run", Usage: "say what each would become, change nothing"},
					formatFlag("table", "table", "json"),
				},
				Action: func(c *cli.Context) error {
					if (c.NArg() == 0) == !c.Bool("all") {
						return usagef("learning promote needs learning ids or --all, not both")
					}
					if err := checkFormat(c.String("format"), "table", "json"); err != nil {
						return err
					}
					opts := learningPromoteOptions{ids: c.Args().Slice(), dryRun: c.Bool("dry-run"), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runLearningPromote)
				},
			},
			{
				Name:      "summarize",
				Usage:     "merge clusters of similar learnings into one each (seed 002), as one commit",
				UsageText: "lore learning summarize [--dry-run] [--format table|json]",
				Description: "Learnings of a category sharing half their tags (over the smaller set)\n" +
					"become one: \"Common pattern: <shared tags>. Examples: <each one>\", with\n" +
					"every tag; all but the newest are pruned and superseded by it. lore ingest\n" +
					"does it past learnings.summarize_threshold (200), once in ten iterations.\n\n" +
					"The newest member is kept as it is. A merge longer than 2,000 characters,\n" +
					"or with no shared tag, is skipped, and a summary is not summarized again.\n" +
					"One commit (\"lore: summarize N clusters of learnings\") lists every merge.",
				Flags: []cli.Flag{
					&cli.BoolFlag{Name: "dry-run", Usage: "say which learnings would be merged, change nothing"},
					formatFlag("table", "table", "json"),
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 0 {
						return usagef("learning summarize takes no arguments")
					}
					if err := checkFormat(c.String("format"), "table", "json"); err != nil {
						return err
					}
					return runWith(e, globalsFrom(c), learningSummarizeOptions{dryRun: c.Bool("dry-run"), format: c.String("format")}, runLearningSummarize)
				},
			},
			{
				Name:      "supersede",
				Usage:     "record that a newer learning replaces an older one (the older is shown no more)",
				UsageText: "lore learning supersede <old-id> <new-id> [--format table|json|quiet]",
				Description: `One commit, "lore: learning l-… superseded by l-…" with a
Lore-Superseded-By trailer, that sets the old learning's superseded_by. A
learning cannot supersede itself, nor be superseded by one that is not
shown itself. Deleting a learning clears the superseded_by of those it
had replaced, in the same commit.`,
				Flags: []cli.Flag{formatFlag("table", "table", "json", "quiet")},
				Action: func(c *cli.Context) error {
					if c.NArg() != 2 {
						return usagef("learning supersede needs the old learning's id and the new one's")
					}
					if err := checkFormat(c.String("format"), "table", "json", "quiet"); err != nil {
						return err
					}
					opts := learningSupersedeOptions{old: c.Args().Get(0), newer: c.Args().Get(1), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runLearningSupersede)
				},
			},
		},
	}
}

type learningStatusOptions struct {
	id, status, reason, format string
}

func runLearningStatus(e *env, g globals, opts learningStatusOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	l, res, err := lifecycle.SetStatus(s, opts.id, opts.status, opts.reason)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printWrite(p, res, "Status of learning", l.ID)
	text := fmt.Sprintf("%sLearning %s is %s", p.emoji("💡"), p.paint(ansiYellow, l.ID), l.Status)
	if res == nil {
		text = fmt.Sprintf("Unchanged: %s is already %s", p.paint(ansiYellow, l.ID), l.Status)
	}
	return printLearningChange(p, opts.format, l, res, text)
}

type learningPromoteOptions struct {
	ids    []string
	dryRun bool
	format string
}

func runLearningPromote(e *env, g globals, opts learningPromoteOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	plan, err := lifecycle.PlanPromotion(s, opts.ids)
	if err != nil {
		return err
	}
	var res *mdstore.WriteResult
	if !opts.dryRun {
		if res, err = plan.Apply(s); err != nil {
			return err
		}
	}
	promoted := plan.Promotions
	p := g.printer(e)
	printWrite(p, res, "Promotion of learnings", "")
	if opts.format == "json" {
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			Promoted []lifecycle.Promotion `json:"promoted"`
			DryRun   bool                  `json:"dry_run,omitempty"`
			Commit   string                `json:"commit,omitempty"`
		}{append([]lifecycle.Promotion{}, promoted...), opts.dryRun, commit})
	}
	if len(promoted) == 0 {
		fmt.Fprintln(p.out, "Nothing to promote: no learning is staged")
		return nil
	}
	rows := make([][]string, len(promoted))
	for i, x := range promoted {
		rows[i] = []string{x.ID, x.Status, x.Reason}
	}
	p.table([]string{"ID", "STATUS", "REASON"}, rows)
	if opts.dryRun {
		fmt.Fprintf(p.out, "Dry run: %d staged %s; nothing changed\n", len(promoted), words.Plural(len(promoted), "learning", "learnings"))
	}
	return nil
}

type learningSummarizeOptions struct {
	dryRun bool
	format string
}

func runLearningSummarize(e *env, g globals, opts learningSummarizeOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	plan, err := lifecycle.PlanSummary(s)
	if err != nil {
		return err
	}
	var res *mdstore.WriteResult
	if !opts.dryRun {
		if res, err = plan.Apply(s); err != nil {
			return err
		}
	}
	merges := plan.Merges
	p := g.printer(e)
	printWrite(p, res, "Summary of learnings", "")
	if opts.format == "json" {
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			Merges []lifecycle.Merge `json:"merges"`
			DryRun bool              `json:"dry_run,omitempty"`
			Commit string            `json:"commit,omitempty"`
		}{append([]lifecycle.Merge{}, merges...), opts.dryRun, commit})
	}
	printMerges(p, merges, opts.dryRun)
	return nil
}

// printMerges lists a summarization's merges, or what it would merge.
func printMerges(p *printer, merges []lifecycle.Merge, dryRun bool) {
	if len(merges) == 0 {
		fmt.Fprintln(p.out, "Nothing to summarize: no learnings of a category share half their tags")
		return
	}
	for _, m := range merges {
		id := m.Learning.ID
		if id == "" {
			id = "(new)"
		}
		kept := m.Members[len(m.Members)-1]
		fmt.Fprintf(p.out, "%s %s: %s merged, %s kept as it is\n", p.paint(ansiYellow, id), m.Category,
			strings.Join(m.Members[:len(m.Members)-1], ", "), kept)
	}
	if dryRun {
		fmt.Fprintf(p.out, "Dry run: %d %s would be merged; nothing changed\n", len(merges), words.Plural(len(merges), "cluster", "clusters"))
	}
}

type learningSupersedeOptions struct {
	old, newer, format string
}

func runLearningSupersede(e *env, g globals, opts learningSupersedeOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	l, res, err := lifecycle.Supersede(s, opts.old, opts.newer)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printWrite(p, res, "Supersede of learning", l.ID)
	text := fmt.Sprintf("%sLearning %s is superseded by %s", p.emoji("💡"), p.paint(ansiYellow, l.ID), p.paint(ansiYellow, l.SupersededBy))
	if res == nil {
		text = fmt.Sprintf("Unchanged: %s is already superseded by %s", p.paint(ansiYellow, l.ID), l.SupersededBy)
	}
	return printLearningChange(p, opts.format, l, res, text)
}

// printLearningChange prints a learning a command changed: as JSON with
// the commit (none when nothing changed), its id, or the text.
func printLearningChange(p *printer, format string, l entry.Learning, res *mdstore.WriteResult, text string) error {
	switch format {
	case "json":
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			entry.Learning
			Changed bool   `json:"changed"`
			Commit  string `json:"commit,omitempty"`
		}{l, res != nil, commit})
	case "quiet":
		fmt.Fprintln(p.out, l.ID)
	default:
		fmt.Fprintln(p.out, text)
	}
	return nil
}

type learningAddOptions struct {
	learning entry.NewLearning
	format   string
}

func runLearningAdd(e *env, g globals, opts learningAddOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	l, duplicate, res, err := s.AddLearning(opts.learning)
	if err != nil {
		return err
	}
	printWrite(p, res, "Learning", l.ID)
	switch opts.format {
	case "json":
		return writeJSON(p.out, struct {
			entry.Learning
			Duplicate bool   `json:"duplicate"`
			Commit    string `json:"commit,omitempty"`
		}{l, duplicate, res.Commit})
	case "quiet":
		fmt.Fprintln(p.out, l.ID)
	default:
		if duplicate {
			fmt.Fprintf(p.out, "Not added: %s already says this (same category, nearly the same words)\n", p.paint(ansiYellow, l.ID))
		} else {
			fmt.Fprintf(p.out, "%sLearning stored: %s\n", p.emoji("💡"), p.paint(ansiYellow, l.ID))
		}
	}
	return nil
}

type learningListOptions struct {
	category, status, tags, format string
}

func runLearningList(e *env, g globals, opts learningListOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	all, warnings, err := s.Learnings()
	p.Warnings(warnings)
	if err != nil {
		return err
	}
	tags := parseTagFilter(opts.tags)
	ls := []entry.Learning{}
	for _, l := range all {
		if (opts.category == "" || l.Category == opts.category) && (opts.status == "" || l.Status == opts.status) &&
			(len(tags) == 0 || prompt.HasAnyTag(l.Tags, tags)) {
			ls = append(ls, l)
		}
	}
	switch opts.format {
	case "json":
		return writeJSON(p.out, ls)
	case "markdown":
		fmt.Fprint(p.out, prompt.LearningsSection(ls))
		return nil
	}
	if len(ls) == 0 {
		fmt.Fprintln(p.out, "No learnings.")
		return nil
	}
	var rows [][]string
	for _, l := range ls {
		rows = append(rows, []string{p.paint(ansiYellow, l.ID), p.paint(ansiCyan, l.Category), l.Status, p.paint(ansiDim, strings.Join(l.Tags, ",")), words.FirstLine(l.Body, 60)})
	}
	p.table([]string{"ID", "CATEGORY", "STATUS", "TAGS", "LEARNING"}, rows)
	return nil
}

type learningShowOptions struct {
	id, format string
}

type learningDeleteOptions struct {
	id string
}

func runLearningDelete(e *env, g globals, opts learningDeleteOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	_, res, err := s.DeleteLearning(opts.id)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printWrite(p, res, "Deletion of learning", opts.id)
	fmt.Fprintf(p.out, "%sLearning deleted: %s\n", p.emoji("🗑️ "), p.paint(ansiYellow, opts.id))
	return nil
}
