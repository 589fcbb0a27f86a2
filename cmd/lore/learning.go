package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/provenance"
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
(exit status 2). Files it names that exist, and --cite's, are recorded
as its citations (see lore add). --supersedes ID sets learning ID's
superseded_by to the new one in the same commit (a "Supersedes: ID"
trailer), as lore learning supersede would in a second one.`,
				Flags: []cli.Flag{
					supersedesFlag(),
					&cli.StringFlag{Name: "category", Usage: strings.Join(entry.LearningCategories, ", ") + " (others are kept as written)"},
					&cli.StringFlag{Name: "tags", Usage: "comma-separated keywords: files, tools, error types (at least one)"},
					&cli.StringFlag{Name: "task", Usage: "the task it came from"},
					&cli.StringFlag{Name: "status", Value: "active", Usage: strings.Join(entry.LearningStatuses, ", ")},
					&cli.StringFlag{Name: "kind", Usage: strings.Join(entry.LearningKinds, ", ") + " (optional)"},
					citeFlag(),
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
					opts := learningAddOptions{format: c.String("format"), cite: c.StringSlice("cite"), supersedes: c.String("supersedes"), learning: entry.NewLearning{Category: c.String("category"),
						Tags: entry.SplitTags(c.String("tags")), Task: c.String("task"), Status: c.String("status"), Kind: c.String("kind"), Body: body}}
					return runWith(e, globalsFrom(c), opts, runLearningAdd)
				},
			},
			{
				Name:      "list",
				Usage:     "list learnings, oldest first",
				UsageText: "lore learning list [--category C] [--status S] [--all] [--tags a,b] [--format table|json|markdown]",
				Description: `Every learning but the superseded ones (whatever their status), which
--all or --status superseded lists.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "category", Usage: "only this category"},
					&cli.StringFlag{Name: "status", Usage: "only this status (superseded: the learnings another replaced)"},
					&cli.BoolFlag{Name: "all", Usage: "the superseded learnings too"},
					&cli.StringFlag{Name: "tags", Usage: "only learnings with any of these tags (comma-separated)"},
					formatFlag("table", listFormats...),
				},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), listFormats...); err != nil {
						return err
					}
					opts := learningListOptions{category: c.String("category"), status: c.String("status"), tags: c.String("tags"), format: c.String("format"), all: c.Bool("all")}
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
					"The newest member is kept as it is. A cluster whose examples would pass\n" +
					"2,000 characters gets its recurring words, its most representative\n" +
					"examples (those whose words the others use most) and the rest by id. A\n" +
					"cluster left as it is is named, with why; a summary is not summarized\n" +
					"again. One commit (\"lore: summarize N clusters of learnings\") lists\n" +
					"every merge.",
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

type learningAddOptions struct {
	learning   entry.NewLearning
	format     string
	supersedes string   // the learning the new one replaces
	cite       []string // files it cites, file[:lines]
}

func runLearningAdd(e *env, g globals, opts learningAddOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	cs, err := provenance.NewStamper(s).StampFound(opts.cite, opts.learning.Body)
	if err != nil {
		return err
	}
	l, duplicate, res, err := s.AddLearning(opts.learning, append(superseding(entry.KindLearning, opts.supersedes), provenance.Also(cs))...)
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
	all                            bool // superseded learnings too
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
		superseded := l.State() == entry.StateSuperseded
		status := opts.status == "" && (opts.all || !superseded) || opts.status == l.Status || opts.status == entry.StateSuperseded && superseded
		if (opts.category == "" || l.Category == opts.category) && status &&
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
