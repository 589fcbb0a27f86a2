package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/mdstore"
	"lore/prompt"
)

func learningCommand(e *env) *cli.Command {
	listFormats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:    "learning",
		Aliases: []string{"learnings"},
		Usage:   "insights from iterations: .agent/learnings/<id>.md",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a learning (a near-duplicate of an existing one is not added)",
				UsageText: "lore learning add --category CATEGORY --tags a,b [--task ID] [--status active|staged] [--format table|json|quiet] <text|->",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "category", Usage: strings.Join(mdstore.LearningCategories, ", ") + " (others are kept as written)"},
					&cli.StringFlag{Name: "tags", Usage: "comma-separated keywords: files, tools, error types (at least one)"},
					&cli.StringFlag{Name: "task", Usage: "the task it came from"},
					&cli.StringFlag{Name: "status", Value: "active", Usage: strings.Join(mdstore.LearningStatuses, ", ")},
					&cli.StringFlag{Name: "kind", Usage: strings.Join(mdstore.LearningKinds, ", ") + " (optional)"},
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
					opts := learningAddOptions{format: c.String("format"), learning: mdstore.NewLearning{Category: c.String("category"),
						Tags: mdstore.SplitTags(c.String("tags")), Task: c.String("task"), Status: c.String("status"), Kind: c.String("kind"), Body: body}}
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
					tagsFilterFlag, formatFlag("table", listFormats...),
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
		},
	}
}

type learningAddOptions struct {
	learning mdstore.NewLearning
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
			mdstore.Learning
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
	p.warnings(warnings)
	if err != nil {
		return err
	}
	tags := parseTagFilter(opts.tags)
	ls := []mdstore.Learning{}
	for _, l := range all {
		if (opts.category == "" || l.Category == opts.category) && (opts.status == "" || l.Status == opts.status) &&
			(len(tags) == 0 || mdstore.HasAnyTag(l.Tags, tags)) {
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
		rows = append(rows, []string{p.paint(ansiYellow, l.ID), p.paint(ansiCyan, l.Category), l.Status, p.paint(ansiDim, strings.Join(l.Tags, ",")), summary(l.Body, 60)})
	}
	p.table([]string{"ID", "CATEGORY", "STATUS", "TAGS", "LEARNING"}, rows)
	return nil
}

type learningShowOptions struct {
	id, format string
}

func runLearningShow(e *env, g globals, opts learningShowOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	l, err := s.Learning(opts.id)
	if err != nil {
		return err
	}
	switch opts.format {
	case "json":
		return writeJSON(p.out, l)
	case "markdown":
		fmt.Fprint(p.out, prompt.LearningLine(l))
		return nil
	}
	p.fields([][2]string{{"ID", p.paint(ansiYellow, l.ID)}, {"Category", l.Category}, {"Status", l.Status}, {"Tags", strings.Join(l.Tags, ", ")},
		{"Task", l.Task}, {"Kind", l.Kind}, {"Created", l.CreatedAt}, {"Superseded by", l.SupersededBy}, {"File", l.Path}})
	fmt.Fprintf(p.out, "\n%s\n", l.Body)
	return nil
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
