package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"lore/index"
	"lore/internal/words"
	"lore/mdstore/entry"
	"lore/provenance"
)

// searchOptions are lore search's flags.
type searchOptions struct {
	query      string
	kinds      string
	types      string
	tags       string
	categories string
	statuses   string
	task, run  string
	since      string
	all        bool
	format     string
}

// searchLimit is how many results search shows without --all.
const searchLimit = 10

func searchCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:  "search",
		Usage: "find entries of every kind, best matches first (typos tolerated)",
		UsageText: "lore search [query] [--kind k] [-t types] [--tags a,b] [--category c] [--status s] [--task id] [--run id]\n" +
			"   [--since date|7d] [--all] [--format table|json|markdown]",
		Description: `Memories, knowledge, learnings, journal entries and skills, ranked by
relevance. Each word may match the content, a title or a tag, exactly, in
another form (deploying: deployed) or, when no entry holds it, with a typo;
identifiers are found whole and by their parts; rare words count more than
common ones, and an entry must match a rare word of the query when it has
any. An entry's id finds it. With no query, every entry passing the
filters, newest first.

Filters narrow without changing the order. Learnings that are staged,
rejected, pruned or superseded are found only with --status (a hit's JSON
then says its status). At most 10 results unless --all, saying how many
matched; when nothing matches, a "did you mean" with a corrected query.
Each hit shows its kind, id, tags and a snippet around the match;
--format json adds the whole content, title, type, path and score.

The index under the git directory is brought up to date before every search
(see lore index); without lore-index, or when the index is busy, lore reads
every file instead and says so. LORE_INDEX=off always reads the files.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Aliases: []string{"k"}, Usage: "only these kinds (comma-separated): memory, knowledge, learning, journal, skill"},
			typeFilterFlag,
			&cli.StringFlag{Name: "tags", Usage: "only entries with any of these tags (comma-separated)"},
			&cli.StringFlag{Name: "category", Usage: "only learnings of these categories (comma-separated)"},
			&cli.StringFlag{Name: "status", Usage: "learnings of these statuses (comma-separated): " + strings.Join(index.Statuses, ", ") + ", or all (default: active)"},
			&cli.StringFlag{Name: "task", Usage: "only entries of this task"},
			&cli.StringFlag{Name: "run", Usage: "only journal entries of this run"},
			&cli.StringFlag{Name: "since", Usage: "only entries created since a date (2026-01-31), a time (RFC 3339) or a duration ago (36h, 7d)"},
			&cli.BoolFlag{Name: "all", Usage: fmt.Sprintf("show every match (default: the best %d)", searchLimit)},
			formatFlag("table", formats...),
		},
		Action: func(c *cli.Context) error {
			opts := searchOptions{
				query: strings.Join(c.Args().Slice(), " "), kinds: c.String("kind"), types: c.String("type"),
				tags: c.String("tags"), categories: c.String("category"), statuses: c.String("status"), task: c.String("task"), run: c.String("run"),
				since: c.String("since"), all: c.Bool("all"), format: c.String("format"),
			}
			if err := checkFormat(opts.format, formats...); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), opts, runSearch)
		},
	}
}

// query turns the flags into an index.Query.
func (opts searchOptions) toQuery(now time.Time) (index.Query, error) {
	q := index.Query{Text: opts.query, Tags: parseTagFilter(opts.tags), Task: opts.task, Run: opts.run}
	if opts.kinds != "" {
		kinds, bad, ok := index.KindNames(splitList(opts.kinds))
		if !ok {
			return q, usagef("unknown kind %q (use memory, knowledge, learning, journal or skill)", bad)
		}
		q.Kinds = kinds
	}
	types, err := parseTypes(opts.types)
	if err != nil {
		return q, err
	}
	for _, t := range types {
		q.Types = append(q.Types, string(t))
	}
	if len(types) > 0 && len(q.Kinds) == 0 {
		q.Kinds = []entry.Kind{entry.KindMemory} // types belong to memories
	}
	q.Categories = splitList(opts.categories)
	if len(q.Categories) > 0 && len(q.Kinds) == 0 {
		q.Kinds = []entry.Kind{entry.KindLearning}
	}
	if q.Statuses, err = parseStatuses(opts.statuses); err != nil {
		return q, err
	}
	if opts.since != "" {
		if q.Since, err = parseSince(opts.since, now); err != nil {
			return q, err
		}
	}
	if !opts.all {
		q.Limit = searchLimit
	}
	return q, nil
}

// parseStatuses reads --status: learning statuses, or all of them.
func parseStatuses(s string) ([]string, error) {
	var out []string
	for _, st := range splitList(s) {
		st = strings.ToLower(st)
		switch {
		case st == "all":
			return index.Statuses, nil
		case !slices.Contains(index.Statuses, st):
			return nil, usagef("unknown status %q (use %s, or all)", st, strings.Join(index.Statuses, ", "))
		}
		out = append(out, st)
	}
	return out, nil
}

// parseSince reads --since: a date, an RFC 3339 time, or a duration ago
// (Go's units, and d for days).
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(days, "%d", &n); err == nil && n >= 0 && fmt.Sprint(n) == days {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, usagef("invalid --since %q (use a date like 2026-01-31, an RFC 3339 time, or a duration like 36h or 7d)", s)
}

func runSearch(e *env, g globals, opts searchOptions) error {
	q, err := opts.toQuery(e.now())
	if err != nil {
		return err
	}
	searcher := index.NewSearcher(e.getenv, e.stderr)
	defer searcher.Close()
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	answer, err := searcher.Search(s, q)
	for _, n := range answer.Notices {
		p.Notice(n)
	}
	p.Warnings(answer.Warnings)
	if err != nil {
		return err
	}
	report, err := provenance.Read(s)
	if err != nil {
		p.Notice("cannot tell which entries are stale: " + err.Error())
	}
	return printHits(p, answer.Result, q, opts.format, staleMark(report))
}

// staleMark is what a search says of a hit a cited file changed under
// (provenance.Report.MarkOf), "" for a fresh one.
func staleMark(report *provenance.Report) func(index.Hit) string {
	return func(h index.Hit) string { return report.MarkOf(h.Kind, h.EntryID, h.Path) }
}

// hitJSON is a search hit as lore prints it in JSON: a memory keeps the
// fields of seed 001's JSON (id, type, content, tags, created).
type hitJSON struct {
	Kind    entry.Kind `json:"kind"`
	ID      string     `json:"id"`
	Type    string     `json:"type,omitempty"`
	Title   string     `json:"title,omitempty"`
	Content string     `json:"content"`
	Tags    []string   `json:"tags"`
	Created string     `json:"created,omitempty"`
	Run     string     `json:"run,omitempty"`
	Task    string     `json:"task,omitempty"`
	Outcome string     `json:"outcome,omitempty"`
	Status  string     `json:"status,omitempty"` // a learning's that is not shown by default
	Path    string     `json:"path"`
	Snippet string     `json:"snippet"`
	Score   float64    `json:"score"`
	Stale   string     `json:"stale,omitempty"` // what a cited file's change since says (lore stale)
}

func toHitJSON(h index.Hit) hitJSON {
	tags := h.Tags
	if tags == nil {
		tags = []string{}
	}
	return hitJSON{Kind: h.Kind, ID: h.EntryID, Type: h.Type, Title: h.Title, Content: h.Content, Tags: tags,
		Created: createdText(h.Created), Run: h.Run, Task: h.Task, Outcome: h.Outcome, Status: h.Status, Path: h.Path,
		Snippet: h.Snippet, Score: h.Score}
}

// createdText shows a date alone when the entry has no time of day.
func createdText(t time.Time) string {
	switch {
	case t.IsZero():
		return ""
	case t.Equal(t.Truncate(24 * time.Hour)):
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// printHits prints a search's answer in the chosen format, with one line
// on how many matched and, when nothing did, the "did you mean".
func printHits(p *printer, res index.Result, q index.Query, format string, mark func(index.Hit) string) error {
	switch format {
	case "json":
		out := make([]hitJSON, 0, len(res.Hits))
		for _, h := range res.Hits {
			j := toHitJSON(h)
			j.Stale = mark(h)
			out = append(out, j)
		}
		if err := writeJSON(p.out, out); err != nil {
			return err
		}
	case "markdown":
		printHitsMarkdown(p.out, res.Hits)
	default:
		if len(res.Hits) > 0 {
			p.hitTable(res.Hits, index.QueryTerms(q.Text))
		}
	}
	if format != "json" {
		for _, h := range res.Hits {
			if m := mark(h); m != "" {
				fmt.Fprintf(p.out, "⚠ stale: %s %s\n", h.EntryID, m)
			}
		}
	}
	msg := ""
	switch {
	case res.Total == 0:
		msg = "No entries match."
		if res.Suggestion != "" {
			msg += fmt.Sprintf(" Did you mean: lore search %s", res.Suggestion)
		} else if q.HasFilters() && q.Text != "" {
			msg += " (try without the filters)"
		}
	case len(res.Hits) < res.Total:
		order := "best first"
		if q.Text == "" || len(index.Tokens(q.Text)) == 0 {
			order = "newest first"
		}
		msg = fmt.Sprintf("%d of %d matching entries shown (%s); use --all to see every one", len(res.Hits), res.Total, order)
	case format == "table":
		msg = fmt.Sprintf("%d %s", res.Total, words.Plural(res.Total, "entry matches", "entries match"))
	}
	if msg == "" {
		return nil
	}
	if format == "table" {
		fmt.Fprintln(p.out, msg)
	} else {
		p.Notice(msg)
	}
	return nil
}

// tableSnippetWidth is how much of a hit's snippet a table line shows.
const tableSnippetWidth = 80

// hitTable prints one line per hit: kind, id, tags, and the snippet,
// narrowed around the match to fit the line.
func (p *printer) hitTable(hits []index.Hit, terms []string) {
	tw := tabwriter.NewWriter(p.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.paint(ansiBold, "KIND"), p.paint(ansiBold, "ID"), p.paint(ansiBold, "TAGS"), p.paint(ansiBold, "MATCH"))
	for _, h := range hits {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.paint(ansiCyan, string(h.Kind)), p.paint(ansiYellow, h.EntryID),
			p.paint(ansiDim, strings.Join(h.Tags, ",")), index.Snippet(h.Snippet, terms, tableSnippetWidth))
	}
	tw.Flush()
}

// printHitsMarkdown writes the hits as a Markdown list, kind by kind in
// rank order of each kind's best hit.
func printHitsMarkdown(w io.Writer, hits []index.Hit) {
	var kinds []entry.Kind
	byKind := map[entry.Kind][]index.Hit{}
	for _, h := range hits {
		if _, ok := byKind[h.Kind]; !ok {
			kinds = append(kinds, h.Kind)
		}
		byKind[h.Kind] = append(byKind[h.Kind], h)
	}
	for i, k := range kinds {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "## %s\n\n", kindHeading(k))
		for _, h := range byKind[k] {
			label := "`" + h.EntryID + "`"
			if h.Title != "" && h.Title != h.EntryID {
				label += " " + h.Title
			}
			if h.Type != "" {
				label += " (" + h.Type + ")"
			}
			fmt.Fprintf(w, "- %s: %s", label, h.Snippet)
			if len(h.Tags) > 0 {
				fmt.Fprintf(w, " — tags: %s", strings.Join(h.Tags, ", "))
			}
			fmt.Fprintln(w)
		}
	}
}

func kindHeading(k entry.Kind) string {
	switch k {
	case entry.KindMemory:
		return "Memories"
	case entry.KindKnowledge:
		return "Knowledge"
	case entry.KindLearning:
		return "Learnings"
	case entry.KindJournal:
		return "Journal"
	}
	return "Skills"
}
