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

func knowledgeCommand(e *env) *cli.Command {
	listFormats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:  "knowledge",
		Usage: "reusable project knowledge: .agent/knowledge/<slug>.md",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "add a knowledge entry (the same or a similar title updates the existing entry)",
				UsageText: "lore knowledge add --title TITLE --tags a,b [--feature NAME] [--format table|json|quiet] <body|->",
				Description: `Writes .agent/knowledge/<slug>.md (seed 000) and commits it. The slug is the
title lowercased, every run of other characters one -, at most 80
characters. The body is cut at about 500 words, marked [truncated]; - reads
it from stdin. The same title (in any case) replaces the body and merges the
tags; a title containing the other, or contained in it, with more than half
of the tags in common (over the smaller set) updates that entry; otherwise
a new file. Every field is checked for secrets (exit status 2).

Another entry that the new one nearly repeats (more than 80% of the words
of title and body in common) is named on stderr ("similar: <slug> — use
--supersedes <slug> to replace it"). --supersedes SLUG removes that entry's
file in the same commit, with a "Supersedes: SLUG" trailer; lore show and
lore history still find it in git's history.`,
				Flags: []cli.Flag{
					supersedesFlag(),
					&cli.StringFlag{Name: "title", Usage: "short descriptive title (names the file)"},
					&cli.StringFlag{Name: "tags", Usage: "comma-separated lowercase keywords (at least one)"},
					&cli.StringFlag{Name: "feature", Usage: "the feature this knowledge belongs to"},
					citeFlag(),
					formatFlag("table", "table", "json", "quiet"),
				},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), "table", "json", "quiet"); err != nil {
						return err
					}
					body, err := bodyFrom(e, c.Args().Slice(), "the knowledge body")
					if err != nil {
						return err
					}
					opts := knowledgeAddOptions{title: c.String("title"), tags: c.String("tags"), feature: c.String("feature"), body: body, format: c.String("format"),
						supersedes: c.String("supersedes"), cite: c.StringSlice("cite")}
					return runWith(e, globalsFrom(c), opts, runKnowledgeAdd)
				},
			},
			{
				Name:        "list",
				Usage:       "list knowledge entries by title",
				UsageText:   "lore knowledge list [--tags a,b] [--format table|json|markdown]",
				Description: `--format markdown prints seed 000's "## Project Knowledge" section.`,
				Flags: []cli.Flag{&cli.StringFlag{Name: "tags", Usage: "only entries with any of these tags (comma-separated)"},
					formatFlag("table", listFormats...)},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), listFormats...); err != nil {
						return err
					}
					opts := knowledgeListOptions{tags: c.String("tags"), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runKnowledgeList)
				},
			},
			{
				Name:      "show",
				Usage:     "show one knowledge entry",
				UsageText: "lore knowledge show <slug> [--format table|json|markdown]",
				Flags:     []cli.Flag{formatFlag("table", listFormats...)},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("knowledge show needs exactly one slug")
					}
					if err := checkFormat(c.String("format"), listFormats...); err != nil {
						return err
					}
					opts := knowledgeShowOptions{slug: c.Args().First(), format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runKnowledgeShow)
				},
			},
			{
				Name:      "delete",
				Usage:     "delete a knowledge entry",
				UsageText: "lore knowledge delete <slug>",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("knowledge delete needs exactly one slug")
					}
					return runWith(e, globalsFrom(c), knowledgeDeleteOptions{slug: c.Args().First()}, runKnowledgeDelete)
				},
			},
		},
	}
}

type knowledgeAddOptions struct {
	title, tags, feature, body, format string
	supersedes                         string   // the slug of the entry the new one replaces
	cite                               []string // files it cites, file[:lines]
}

func runKnowledgeAdd(e *env, g globals, opts knowledgeAddOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	cs, err := provenance.NewStamper(s).StampFound(opts.cite, opts.title+"\n"+opts.body)
	if err != nil {
		return err
	}
	similar := similarTo(s, entry.KindKnowledge, "", opts.title+"\n"+opts.body, opts.supersedes)
	k, action, res, err := s.AddKnowledge(entry.NewKnowledge{Title: opts.title, Tags: entry.SplitTags(opts.tags), Feature: opts.feature, Body: opts.body},
		append(superseding(entry.KindKnowledge, opts.supersedes), provenance.Also(cs))...)
	if err != nil {
		return err
	}
	printWrite(p, res, "Knowledge", k.Slug)
	noteSimilar(p, similar, k.Slug)
	switch opts.format {
	case "json":
		return writeJSON(p.out, struct {
			entry.Knowledge
			Action string `json:"action"`
			Commit string `json:"commit,omitempty"`
		}{k, string(action), res.Commit})
	case "quiet":
		fmt.Fprintln(p.out, k.Slug)
	default:
		fmt.Fprintf(p.out, "%sKnowledge %s: %s\n", p.emoji("📚"), action, p.paint(ansiYellow, k.Slug))
	}
	return nil
}

type knowledgeListOptions struct {
	tags, format string
}

func runKnowledgeList(e *env, g globals, opts knowledgeListOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	all, warnings, err := s.Knowledge()
	p.Warnings(warnings)
	if err != nil {
		return err
	}
	want := parseTagFilter(opts.tags)
	var ks []entry.Knowledge
	for _, k := range all {
		if len(want) == 0 || prompt.HasAnyTag(k.Tags, want) {
			ks = append(ks, k)
		}
	}
	switch opts.format {
	case "json":
		if ks == nil {
			ks = []entry.Knowledge{}
		}
		return writeJSON(p.out, ks)
	case "markdown":
		fmt.Fprint(p.out, prompt.KnowledgeSection(ks))
		return nil
	}
	if len(ks) == 0 {
		fmt.Fprintln(p.out, "No knowledge yet. Add some with: lore knowledge add --title \"…\" --tags a,b \"…\"")
		return nil
	}
	var rows [][]string
	for _, k := range ks {
		rows = append(rows, []string{p.paint(ansiYellow, k.Slug), p.paint(ansiDim, strings.Join(k.Tags, ",")), words.FirstLine(k.Title, 60)})
	}
	p.table([]string{"SLUG", "TAGS", "TITLE"}, rows)
	return nil
}

type knowledgeShowOptions struct {
	slug, format string
}

type knowledgeDeleteOptions struct {
	slug string
}

func runKnowledgeDelete(e *env, g globals, opts knowledgeDeleteOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	_, res, err := s.DeleteKnowledge(opts.slug)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printWrite(p, res, "Deletion of knowledge", opts.slug)
	fmt.Fprintf(p.out, "%sKnowledge deleted: %s\n", p.emoji("🗑️ "), p.paint(ansiYellow, opts.slug))
	return nil
}
