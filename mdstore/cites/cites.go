// Package cites is the store's citations file, .agent/citations.md:
// which files each entry cites, with the blob each file had when it was
// cited and the commit the store was at. Staleness is computed from it
// by git (package provenance). It is a file of its own, not a field of
// the entries, because seed 001's memories.md must stay readable by
// ralph-orchestrator, which has no place for it; one file for every kind
// keeps one mechanism.
//
// It is a Markdown table, one row a citation: the entry (a memory's id,
// or the path of an entry's file under .agent/), the file cited, relative
// to the top of the repository, with its lines when given
// ("src/a.go:10-40"), its blob and the commit — readable where a pull
// request shows it, and a .md file under .agent/, which the merge
// attributes every lore clone has already send to lore's merge driver.
// Rows are facts, so three versions merge as sets: a row both sides keep
// stays, one either side added comes in, one either side removed goes.
package cites

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"lore/mdstore/entry"
)

// Path is the citations file.
const Path = entry.CitesPath

// header is the file's title, what it is, and the table's head.
const header = "# Citations\n\nThe files each entry cites, with the content (blob) each had and the commit the store was at; written by lore (docs/file-formats.md).\n\n| entry | file | blob | commit |\n| --- | --- | --- | --- |\n"

// Cite is one file an entry cites.
type Cite struct {
	File   string `json:"file"`            // relative to the repository's top, '/'-separated
	Lines  string `json:"lines,omitempty"` // "12" or "10-40"; "" for the whole file
	Blob   string `json:"blob"`            // the file's blob when it was cited (40 hex)
	Commit string `json:"commit"`          // HEAD when it was cited (40 hex), "" before the first commit
}

// Ref is the citation as a person writes it: file[:lines].
func (c Cite) Ref() string {
	if c.Lines == "" {
		return c.File
	}
	return c.File + ":" + c.Lines
}

// ParseRef reads file[:lines], lines being ":12" or ":10-40" at its end.
func ParseRef(ref string) (file, lines string) {
	i := strings.LastIndexByte(ref, ':')
	if i < 0 {
		return ref, ""
	}
	l := ref[i+1:]
	from, to, isRange := strings.Cut(l, "-")
	if !digits(from) || isRange && !digits(to) {
		return ref, ""
	}
	return ref[:i], l
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Line is one line of the file: an entry's citation.
type Line struct {
	Key string // a memory's id, or the entry file's path under .agent/
	Cite
}

func (l Line) String() string {
	return "| " + cell(l.Key) + " | " + cell(l.Ref()) + " | " + l.Blob + " | " + l.Commit + " |"
}

// cell writes a value in a table cell: a | escaped.
func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// cells splits a table row into its cells, an escaped \| kept as |.
func cells(row string) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	row = strings.TrimSuffix(row, "|")
	if !strings.Contains(row, "\\|") { // no escape: the cells are substrings of the row
		out := strings.Split(row, "|")
		for i := range out {
			out[i] = strings.TrimSpace(out[i])
		}
		return out
	}
	var out []string
	var b strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			b.WriteByte('|')
			i++
		case row[i] == '|':
			out = append(out, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(row[i])
		}
	}
	return append(out, strings.TrimSpace(b.String()))
}

// KeyOf is the key of the entry whose file (a store path) or memory id
// is given: ".agent/knowledge/x.md" → "knowledge/x.md", "mem-…" as is.
func KeyOf(pathOrID string) string {
	return strings.TrimPrefix(pathOrID, entry.Dir+"/")
}

// Problem is a line the file cannot be read at.
type Problem struct {
	Line int
	Msg  string
}

// isHex40 reports whether s is 40 lowercase hex digits (an object id).
func isHex40(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Parse reads the file: its rows, and the lines it cannot read. Lines
// that are not table rows (the title, the text), the head and its
// separator row are not citations.
func Parse(data []byte) ([]Line, []Problem) {
	text := string(data)
	out := make([]Line, 0, strings.Count(text, "\n"))
	var problems []Problem
	for i, raw := range strings.Split(text, "\n") {
		text := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		if !strings.HasPrefix(text, "|") || strings.HasPrefix(text, "| entry |") || strings.HasPrefix(text, "| ---") {
			continue
		}
		f := cells(text)
		switch {
		case len(f) != 4:
			problems = append(problems, Problem{i + 1, fmt.Sprintf("a citation is a row of 4 cells (entry, file[:lines], blob, commit), not %d", len(f))})
			continue
		case f[0] == "" || f[1] == "":
			problems = append(problems, Problem{i + 1, "a citation names an entry and a file"})
			continue
		case !isHex40(f[2]):
			problems = append(problems, Problem{i + 1, fmt.Sprintf("the blob %q is not 40 hex digits", f[2])})
			continue
		case f[3] != "" && !isHex40(f[3]):
			problems = append(problems, Problem{i + 1, fmt.Sprintf("the commit %q is not 40 hex digits", f[3])})
			continue
		}
		file, lines := ParseRef(f[1])
		out = append(out, Line{Key: f[0], Cite: Cite{File: file, Lines: lines, Blob: f[2], Commit: f[3]}})
	}
	return out, problems
}

// Format writes lines as the file: the header, then each line once,
// sorted by entry, file and lines.
func Format(lines []Line) []byte {
	slices.SortFunc(lines, func(a, b Line) int {
		if c := strings.Compare(a.Key, b.Key); c != 0 {
			return c
		}
		return strings.Compare(a.String(), b.String())
	})
	lines = slices.Compact(lines)
	var b bytes.Buffer
	b.WriteString(header)
	for _, l := range lines {
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Of is what the file says entry key cites.
func Of(data []byte, key string) []Cite {
	lines, _ := Parse(data)
	var out []Cite
	for _, l := range lines {
		if l.Key == key {
			out = append(out, l.Cite)
		}
	}
	return out
}

// Set is the file with entry key citing cs (and nothing else it cited
// before). A row it cannot read is dropped (lore validate names it).
func Set(data []byte, key string, cs []Cite) []byte {
	lines, _ := Parse(data)
	lines = slices.DeleteFunc(lines, func(l Line) bool { return l.Key == key })
	for _, c := range cs {
		lines = append(lines, Line{Key: key, Cite: c})
	}
	return Format(lines)
}

// Merge merges three versions as sets of lines: a line both sides have
// stays, one that a side added comes in, one that a side removed goes.
// Never a conflict.
func Merge(base, ours, theirs []byte) []byte {
	set := func(data []byte) map[Line]bool {
		lines, _ := Parse(data)
		m := make(map[Line]bool, len(lines))
		for _, l := range lines {
			m[l] = true
		}
		return m
	}
	b, o, t := set(base), set(ours), set(theirs)
	var out []Line
	for l := range o {
		if t[l] || !b[l] {
			out = append(out, l)
		}
	}
	for l := range t {
		if !o[l] && !b[l] {
			out = append(out, l)
		}
	}
	return Format(out)
}

// Validate judges the citations file for lore validate.
func Validate(f entry.File) []entry.Problem {
	_, problems := Parse(f.Data)
	out := make([]entry.Problem, 0, len(problems))
	for _, p := range problems {
		out = append(out, entry.Problem{Path: f.Path, Line: p.Line, Severity: entry.SeverityError, Message: p.Msg})
	}
	return out
}
