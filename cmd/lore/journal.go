package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"lore/mdstore"
	"lore/prompt"
)

// bodyFrom is the text a command was given: its arguments joined, or
// stdin when the only argument is "-".
func bodyFrom(e *env, args []string, what string) (string, error) {
	if len(args) == 0 {
		return "", usagef("%s is missing (give it as arguments, or - to read stdin)", what)
	}
	if len(args) == 1 && args[0] == "-" {
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return string(data), nil
	}
	return strings.Join(args, " "), nil
}

// table writes aligned columns with a bold header.
func (p *printer) table(header []string, rows [][]string) {
	tw := tabwriter.NewWriter(p.out, 0, 0, 2, ' ', 0)
	for i, h := range header {
		header[i] = p.paint(ansiBold, h)
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
}

// --- knowledge ---

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
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "title", Usage: "short descriptive title (names the file)"},
					&cli.StringFlag{Name: "tags", Usage: "comma-separated lowercase keywords (at least one)"},
					&cli.StringFlag{Name: "feature", Usage: "the feature this knowledge belongs to"},
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
					opts := knowledgeAddOptions{title: c.String("title"), tags: c.String("tags"), feature: c.String("feature"), body: body, format: c.String("format")}
					return runWith(e, globalsFrom(c), opts, runKnowledgeAdd)
				},
			},
			{
				Name:      "list",
				Usage:     "list knowledge entries by title",
				UsageText: "lore knowledge list [--tags a,b] [--format table|json|markdown]",
				Flags:     []cli.Flag{tagsFilterFlag, formatFlag("table", listFormats...)},
				Action: func(c *cli.Context) error {
					if err := checkFormat(c.String("format"), listFormats...); err != nil {
						return err
					}
					return runKnowledgeList(e, globalsFrom(c), c.String("tags"), c.String("format"))
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
					return runKnowledgeShow(e, globalsFrom(c), c.Args().First(), c.String("format"))
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
					return runKnowledgeDelete(e, globalsFrom(c), c.Args().First())
				},
			},
		},
	}
}

type knowledgeAddOptions struct {
	title, tags, feature, body, format string
}

func runKnowledgeAdd(e *env, g globals, opts knowledgeAddOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	k, action, res, err := s.AddKnowledge(mdstore.NewKnowledge{Title: opts.title, Tags: mdstore.SplitTags(opts.tags), Feature: opts.feature, Body: opts.body})
	if err != nil {
		return err
	}
	printNotices(p, res)
	switch opts.format {
	case "json":
		return writeJSON(p.out, struct {
			mdstore.Knowledge
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

func runKnowledgeList(e *env, g globals, tags, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	all, warnings, err := s.Knowledge()
	p.warnings(warnings)
	if err != nil {
		return err
	}
	want := parseTagFilter(tags)
	var ks []mdstore.Knowledge
	for _, k := range all {
		if len(want) == 0 || mdstore.HasAnyTag(k.Tags, want) {
			ks = append(ks, k)
		}
	}
	switch format {
	case "json":
		if ks == nil {
			ks = []mdstore.Knowledge{}
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
		rows = append(rows, []string{p.paint(ansiYellow, k.Slug), p.paint(ansiDim, strings.Join(k.Tags, ",")), summary(k.Title, 60)})
	}
	p.table([]string{"SLUG", "TAGS", "TITLE"}, rows)
	return nil
}

func runKnowledgeShow(e *env, g globals, slug, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	k, err := s.KnowledgeEntry(slug)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSON(p.out, k)
	case "markdown":
		fmt.Fprint(p.out, prompt.KnowledgeBlock(k))
		return nil
	}
	p.fields([][2]string{{"Slug", p.paint(ansiYellow, k.Slug)}, {"Title", k.Title}, {"Tags", strings.Join(k.Tags, ", ")},
		{"Feature", k.Feature}, {"Created", k.CreatedAt}, {"Updated", k.UpdatedAt}, {"File", k.Path}})
	fmt.Fprintf(p.out, "\n%s\n", k.Body)
	return nil
}

func runKnowledgeDelete(e *env, g globals, slug string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	_, res, err := s.DeleteKnowledge(slug)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printNotices(p, res)
	fmt.Fprintf(p.out, "%sKnowledge deleted: %s\n", p.emoji("🗑️ "), p.paint(ansiYellow, slug))
	return nil
}

// fields prints "Name: value" lines, skipping empty values.
func (p *printer) fields(pairs [][2]string) {
	width := 0
	for _, kv := range pairs {
		width = max(width, len(kv[0]))
	}
	for _, kv := range pairs {
		if kv[1] != "" {
			fmt.Fprintf(p.out, "%s %s\n", p.paint(ansiBold, kv[0]+":"+strings.Repeat(" ", width-len(kv[0]))), kv[1])
		}
	}
}

// --- learnings ---

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
					return runLearningAdd(e, globalsFrom(c), mdstore.NewLearning{Category: c.String("category"), Tags: mdstore.SplitTags(c.String("tags")),
						Task: c.String("task"), Status: c.String("status"), Kind: c.String("kind"), Body: body}, c.String("format"))
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
					return runLearningShow(e, globalsFrom(c), c.Args().First(), c.String("format"))
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
					return runLearningDelete(e, globalsFrom(c), c.Args().First())
				},
			},
		},
	}
}

func runLearningAdd(e *env, g globals, in mdstore.NewLearning, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	l, duplicate, res, err := s.AddLearning(in)
	if err != nil {
		return err
	}
	printNotices(p, res)
	switch format {
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

func runLearningShow(e *env, g globals, id, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	l, err := s.Learning(id)
	if err != nil {
		return err
	}
	switch format {
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

func runLearningDelete(e *env, g globals, id string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	_, res, err := s.DeleteLearning(id)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printNotices(p, res)
	fmt.Fprintf(p.out, "%sLearning deleted: %s\n", p.emoji("🗑️ "), p.paint(ansiYellow, id))
	return nil
}

// --- skills ---

func skillsCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:    "skills",
		Aliases: []string{"skill"},
		Usage:   "skills found in .agent/skills and .claude/skills",
		Subcommands: []*cli.Command{{
			Name:      "list",
			Usage:     "list skills with their descriptions",
			UsageText: "lore skills list [--format table|json|markdown]",
			Flags:     []cli.Flag{formatFlag("table", formats...)},
			Action: func(c *cli.Context) error {
				if err := checkFormat(c.String("format"), formats...); err != nil {
					return err
				}
				return runSkillsList(e, globalsFrom(c), c.String("format"))
			},
		}},
	}
}

func runSkillsList(e *env, g globals, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	skills, warnings, err := s.Skills()
	p.warnings(warnings)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		if skills == nil {
			skills = []mdstore.Skill{}
		}
		return writeJSON(p.out, skills)
	case "markdown":
		fmt.Fprint(p.out, prompt.SkillsSection(skills))
		return nil
	}
	if len(skills) == 0 {
		fmt.Fprintln(p.out, "No skills. A skill is <dir>/<name>/SKILL.md under .agent/skills or .claude/skills.")
		return nil
	}
	var rows [][]string
	for _, sk := range skills {
		rows = append(rows, []string{p.paint(ansiYellow, sk.Name), summary(sk.Description, 70), p.paint(ansiDim, sk.Path)})
	}
	p.table([]string{"NAME", "DESCRIPTION", "FILE"}, rows)
	return nil
}

// --- journal ---

func journalCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:  "journal",
		Usage: "the iteration journal: .agent/journal/<run>/<NNNN>.md",
		Subcommands: []*cli.Command{
			{
				Name:      "add",
				Usage:     "record one iteration (the same run and iteration again replaces it)",
				UsageText: "lore journal add --outcome done|failed|retried|blocked|interrupted [--run R] [--iteration N] [--task ID] [flags] [notes|-]",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "run", Usage: "run id (default: the current run, started if there is none)"},
					&cli.IntFlag{Name: "iteration", Usage: "iteration number (default: the next one in the run)"},
					&cli.StringFlag{Name: "task", Usage: "task id"},
					&cli.StringFlag{Name: "feature", Usage: "feature id"},
					&cli.StringFlag{Name: "outcome", Usage: strings.Join(mdstore.Outcomes, ", ")},
					&cli.StringFlag{Name: "model", Usage: "model used"},
					&cli.StringFlag{Name: "next-model", Usage: "model asked for next"},
					&cli.Float64Flag{Name: "duration", Usage: "wall-clock seconds"},
					&cli.Float64Flag{Name: "cost", Usage: "cost in USD"},
					&cli.StringFlag{Name: "files", Usage: "comma-separated files modified"},
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
						return usagef("journal add needs --outcome (%s)", strings.Join(mdstore.Outcomes, ", "))
					}
					notes := ""
					if c.Args().Present() {
						var err error
						if notes, err = bodyFrom(e, c.Args().Slice(), "the notes"); err != nil {
							return err
						}
					}
					entry := mdstore.JournalEntry{RunID: c.String("run"), Iteration: c.Int("iteration"), TaskID: c.String("task"), FeatureID: c.String("feature"),
						Outcome: c.String("outcome"), Model: c.String("model"), NextModel: c.String("next-model"), DurationSecs: c.Float64("duration"),
						CostUSD: c.Float64("cost"), FilesModified: splitList(c.String("files")), Difficulty: c.String("difficulty"), Notes: notes}
					if c.IsSet("what-tried") || c.IsSet("why-failed") || c.IsSet("error-category") || c.IsSet("relevant-files") || c.IsSet("stack-trace") || c.IsSet("retry-suggestion") {
						entry.Failure = &mdstore.Failure{WhatTried: c.String("what-tried"), WhyFailed: c.String("why-failed"), ErrorCategory: c.String("error-category"),
							RelevantFiles: splitList(c.String("relevant-files")), StackTrace: c.String("stack-trace"), RetrySuggestion: c.String("retry-suggestion")}
					}
					if c.Int("iteration") < 0 || c.Float64("duration") < 0 || c.Float64("cost") < 0 {
						return usagef("--iteration, --duration and --cost cannot be negative")
					}
					return runJournalAdd(e, globalsFrom(c), entry, c.String("format"))
				},
			},
			{
				Name:      "list",
				Usage:     "list iterations by run and iteration",
				UsageText: "lore journal list [--run R] [--task ID] [--last N] [--format table|json|markdown]",
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
					return runJournalList(e, globalsFrom(c), c.String("run"), c.String("task"), c.Int("last"), c.String("format"))
				},
			},
			{
				Name:      "show",
				Usage:     "show one iteration",
				UsageText: "lore journal show <run>/<iteration> [--format table|json|markdown]",
				Flags:     []cli.Flag{formatFlag("table", formats...)},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usagef("journal show needs exactly one <run>/<iteration>")
					}
					if err := checkFormat(c.String("format"), formats...); err != nil {
						return err
					}
					return runJournalShow(e, globalsFrom(c), c.Args().First(), c.String("format"))
				},
			},
			{
				Name:      "start",
				Usage:     "start a run: later entries without --run go to it",
				UsageText: "lore journal start [NAME]",
				Action: func(c *cli.Context) error {
					if c.NArg() > 1 {
						return usagef("journal start takes at most one name")
					}
					return runJournalStart(e, globalsFrom(c), c.Args().First())
				},
			},
			{
				Name:      "current",
				Usage:     "print the current run",
				UsageText: "lore journal current",
				Action: func(c *cli.Context) error {
					return runJournalCurrent(e, globalsFrom(c))
				},
			},
		},
	}
}

func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

func runJournalAdd(e *env, g globals, entry mdstore.JournalEntry, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	started := false
	if entry.RunID == "" {
		if run, _ := s.CurrentRun(); run == "" {
			started = true
		}
	}
	je, replaced, res, err := s.AddJournal(entry)
	if err != nil {
		return err
	}
	if started {
		p.notice("started run " + je.RunID + " (lore journal start names one)")
	}
	printNotices(p, res)
	switch format {
	case "json":
		return writeJSON(p.out, struct {
			mdstore.JournalEntry
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

func runJournalList(e *env, g globals, run, task string, last int, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	all, warnings, err := s.Journal()
	p.warnings(warnings)
	if err != nil {
		return err
	}
	es := []mdstore.JournalEntry{}
	for _, je := range all {
		if (run == "" || je.RunID == run) && (task == "" || je.TaskID == task) {
			es = append(es, je)
		}
	}
	if last > 0 && len(es) > last {
		es = es[len(es)-last:]
	}
	switch format {
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
			strconv.FormatFloat(je.DurationSecs, 'f', 1, 64) + "s", summary(je.Notes, 50)})
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

func runJournalShow(e *env, g globals, key, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	je, err := s.JournalEntry(key)
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSON(p.out, je)
	case "markdown":
		fmt.Fprint(p.out, prompt.JournalBlock(je))
		return nil
	}
	cost := ""
	if je.CostUSD != 0 {
		cost = fmt.Sprintf("$%.4f", je.CostUSD)
	}
	p.fields([][2]string{{"Entry", p.paint(ansiYellow, je.Key())}, {"Outcome", outcomeColour(p, je.Outcome)}, {"Task", je.TaskID}, {"Feature", je.FeatureID},
		{"Model", je.Model}, {"Next model", je.NextModel}, {"Duration", strconv.FormatFloat(je.DurationSecs, 'f', 1, 64) + "s"}, {"Cost", cost},
		{"Files", strings.Join(je.FilesModified, ", ")}, {"Difficulty", je.Difficulty}, {"Created", je.CreatedAt}})
	if f := je.Failure; f != nil {
		fmt.Fprintln(p.out)
		p.fields([][2]string{{"What was tried", f.WhatTried}, {"Why it failed", f.WhyFailed}, {"Category", f.ErrorCategory},
			{"Relevant files", strings.Join(f.RelevantFiles, ", ")}, {"Retry suggestion", f.RetrySuggestion}})
		if f.StackTrace != "" {
			fmt.Fprintf(p.out, "%s\n%s\n", p.paint(ansiBold, "Error output:"), f.StackTrace)
		}
	}
	if je.Notes != "" {
		fmt.Fprintf(p.out, "\n%s\n", je.Notes)
	}
	return nil
}

func runJournalStart(e *env, g globals, name string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	run, err := s.StartRun(name)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, run)
	return nil
}

func runJournalCurrent(e *env, g globals) error {
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
