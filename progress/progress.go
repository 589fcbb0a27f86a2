// Package progress reads the progress log of Ralph loops that do not
// speak lore's sigils: the widespread progress.txt convention, where
// each iteration appends an entry under a heading naming the date and
// the story ("## 2026-01-22 - US-001: Add the login form") with what was
// implemented, the files changed and "Learnings for future iterations",
// and a "Codebase Patterns" section at the top gathers what every
// iteration should know. The structure is found with goldmark (package
// internal/markdown); what lore keeps is cut from the text as written.
package progress

import (
	"regexp"
	"strings"
	"sync"

	"lore/internal/markdown"
)

// Log is what a progress log holds.
type Log struct {
	// Patterns is the Codebase Patterns section's body as written, ""
	// when it holds no list item (a fresh log's placeholder).
	Patterns string
	Entries  []Entry
}

// Entry is one iteration's entry.
type Entry struct {
	// Heading is the heading's line as written ("## 2026-01-22 -
	// US-001"); Title its text.
	Heading, Title string
	// Story is the story or task id the heading names ("US-001"), ""
	// when it names none.
	Story string
	// Text is the entry as written, its heading first.
	Text string
	// Files are the files the entry says changed.
	Files     []string
	Learnings []Learning
}

// Learning is one item of an entry's learnings, with the category its
// group says ("Gotchas encountered" is a pitfall).
type Learning struct {
	Category, Text string
}

// storyID is a story or task id in a heading: capitals and digits, a
// hyphen, and more ("US-001", "TST-002", "SETUP-001", "TASK-PLAN").
var storyID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\b[A-Z][A-Z0-9]*[-_][A-Z0-9][A-Za-z0-9.-]*\b`) })

// Parse reads a progress log; any text is one (an entry is a heading
// that names a story, or one over a list of what the convention labels).
func Parse(src []byte) Log {
	d := markdown.Parse(src)
	var log Log
	for _, sec := range d.ATXSections() {
		if sec.Level < 2 {
			continue
		}
		if isPatterns(sec.Title) {
			if len(d.ListItems(sec.Body)) > 0 {
				log.Patterns = strings.TrimSpace(string(sec.Body.Of(src)))
			}
			continue
		}
		e := Entry{Heading: strings.TrimRight(string(sec.Heading.Of(src)), "\r\n"), Title: sec.Title,
			Story: storyID().FindString(sec.Title)}
		labelled := readLabels(d, src, sec.Body, &e)
		if e.Story == "" && !labelled {
			continue
		}
		e.Text = strings.TrimSpace(string(src[sec.Heading.Start:sec.Body.End]))
		e.Text = strings.TrimSpace(strings.TrimSuffix(e.Text, "---"))
		log.Entries = append(log.Entries, e)
	}
	return log
}

func isPatterns(title string) bool {
	t := strings.ToLower(strings.Trim(title, "*_ :"))
	return t == "codebase patterns" || t == "patterns"
}

// label is what a line labels: the convention's headings of an entry's
// parts, in bold or not, with a colon or not, and any text after it.
type label int

const (
	noLabel label = iota
	filesLabel
	learningsLabel
	otherLabel // "What was implemented", "Summary": kept in the text
)

// labelOf reads a label at the start of text: the kind, and what follows
// it on the line ("src/a.go" of "Files changed: src/a.go").
func labelOf(text string) (label, string) {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	name, rest, colon := strings.Cut(line, ":")
	name = strings.ToLower(strings.Trim(name, "*_ "))
	rest = strings.TrimSpace(strings.Trim(rest, "*_ "))
	if !colon {
		rest = ""
	}
	switch {
	case strings.HasPrefix(name, "files changed"), strings.HasPrefix(name, "files modified"), name == "files":
		return filesLabel, rest
	case strings.HasPrefix(name, "learnings"), strings.HasPrefix(name, "key learnings"), strings.HasPrefix(name, "lessons"):
		return learningsLabel, rest
	case strings.HasPrefix(name, "what was implemented"), name == "summary", name == "implemented", name == "what changed":
		return otherLabel, rest
	}
	return noLabel, ""
}

// readLabels reads an entry's labelled lists into e: a list item that is
// a label, with its nested list ("- **Learnings for future
// iterations:**" over "  - …") or its text after the colon, and a label
// line over a list ("**Files changed:**" then "- …"). It reports whether
// the body has a label of the convention.
func readLabels(d *markdown.Doc, src []byte, body markdown.Range, e *Entry) bool {
	found := false
	take := func(l label, items []markdown.Item, inline string) {
		switch l {
		case filesLabel:
			if inline != "" {
				e.Files = append(e.Files, fileNames(inline)...)
			}
			for _, it := range items {
				e.Files = append(e.Files, fileNames(ownText(d, src, it))...)
			}
		case learningsLabel:
			if inline != "" {
				e.Learnings = append(e.Learnings, Learning{Category: "other", Text: inline})
			}
			e.Learnings = append(e.Learnings, learnings(d, src, items, "other")...)
		}
	}
	last := body.Start
	for _, list := range d.Lists(body) {
		// A label line just above the list.
		before := strings.TrimSpace(string(src[last:list.Start]))
		if i := strings.LastIndexByte(before, '\n'); i >= 0 {
			before = strings.TrimSpace(before[i+1:])
		}
		if l, inline := labelOf(before); l != noLabel && strings.HasSuffix(strings.Trim(before, "*_ "), ":") {
			found = true
			take(l, list.Items, inline)
		} else {
			for _, it := range list.Items {
				l, inline := labelOf(ownText(d, src, it))
				if l == noLabel {
					continue
				}
				found = true
				take(l, nested(d, it), inline)
			}
		}
		last = list.End
	}
	return found
}

// learnings are the leaves of a learnings list: an item over a nested
// list is a group ("Gotchas encountered"), whose name gives its leaves'
// category.
func learnings(d *markdown.Doc, src []byte, items []markdown.Item, category string) []Learning {
	var out []Learning
	for _, it := range items {
		text := ownText(d, src, it)
		if sub := nested(d, it); len(sub) > 0 {
			out = append(out, learnings(d, src, sub, categoryOf(text, category))...)
			continue
		}
		if text = strings.TrimSpace(text); text != "" {
			out = append(out, Learning{Category: category, Text: text})
		}
	}
	return out
}

// categoryOf is the learning category a group's name says, else def.
func categoryOf(group, def string) string {
	g := strings.ToLower(group)
	switch {
	case strings.Contains(g, "gotcha"), strings.Contains(g, "pitfall"), strings.Contains(g, "mistake"):
		return "pitfall"
	case strings.Contains(g, "pattern"):
		return "success_pattern"
	case strings.Contains(g, "test"):
		return "testing_strategy"
	case strings.Contains(g, "debug"):
		return "debugging_technique"
	}
	return def
}

// nested are the items of the lists nested in it.
func nested(d *markdown.Doc, it markdown.Item) []markdown.Item {
	return d.ListItems(it.Content)
}

// ownText is an item's text without the lists nested in it, its lines
// joined as written.
func ownText(d *markdown.Doc, src []byte, it markdown.Item) string {
	end := it.Content.End
	if lists := d.Lists(it.Content); len(lists) > 0 {
		end = lists[0].Start
	}
	return strings.TrimSpace(string(src[it.Content.Start:end]))
}

// fileNames are the file paths of a "Files changed" item: the first word
// or code span of each comma-separated part ("`src/a.ts` (created)",
// "src/a.ts, src/b.ts").
func fileNames(text string) []string {
	var out []string
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if strings.HasPrefix(part, "`") {
			if end := strings.Index(part[1:], "`"); end >= 0 {
				part = part[1 : end+1]
			}
		} else if f := strings.Fields(part); len(f) > 0 {
			part = strings.Trim(f[0], "*_`")
		}
		if part != "" && !strings.Contains(part, " ") && (strings.ContainsAny(part, "./") || strings.Contains(part, "_")) {
			out = append(out, part)
		}
	}
	return out
}
