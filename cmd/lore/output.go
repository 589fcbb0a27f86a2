package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"lore/mdstore"
)

// printer writes for people: colour and emoji only when decorate is set
// (a terminal, or --color always).
type printer struct {
	out, err io.Writer
	decorate bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiRed    = "\x1b[31m"
)

func (p *printer) paint(code, s string) string {
	if !p.decorate || s == "" {
		return s
	}
	return code + s + ansiReset
}

// emoji returns symbol followed by a space on a decorated output, else "".
func (p *printer) emoji(symbol string) string {
	if !p.decorate {
		return ""
	}
	return symbol + " "
}

// notice tells the user about a fallback or a condition, on stderr.
func (p *printer) notice(msg string) {
	fmt.Fprintf(p.err, "lore: %s\n", msg)
}

// maxWarnings is how many file problems a command prints before it
// summarises the rest.
const maxWarnings = 10

func (p *printer) warnings(ws []mdstore.Warning) {
	for i, w := range ws {
		if i == maxWarnings {
			fmt.Fprintf(p.err, "%s %d more problems in %s\n", p.paint(ansiYellow, "warning:"), len(ws)-maxWarnings, w.Path)
			return
		}
		fmt.Fprintf(p.err, "%s %s\n", p.paint(ansiYellow, "warning:"), w)
	}
}

// memoryJSON is a memory as lore prints it in JSON.
type memoryJSON struct {
	ID      string   `json:"id"`
	Type    string   `json:"type"`
	Content string   `json:"content"`
	Tags    []string `json:"tags"`
	Created string   `json:"created"`
}

func toJSON(m mdstore.Memory) memoryJSON {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return memoryJSON{ID: m.ID, Type: string(m.Type), Content: m.Content, Tags: tags, Created: m.Created}
}

func toJSONList(ms []mdstore.Memory) []memoryJSON {
	out := make([]memoryJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, toJSON(m))
	}
	return out
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// memoryTable prints one line per memory: id, type, date, tags and the
// first line of the content.
func (p *printer) memoryTable(ms []mdstore.Memory) {
	tw := tabwriter.NewWriter(p.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.paint(ansiBold, "ID"), p.paint(ansiBold, "TYPE"), p.paint(ansiBold, "CREATED"), p.paint(ansiBold, "TAGS"), p.paint(ansiBold, "CONTENT"))
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n",
			p.paint(ansiYellow, m.ID), p.paint(ansiCyan, string(m.Type)), m.Created,
			p.paint(ansiDim, strings.Join(m.Tags, ",")), summary(m.Content, 60))
	}
	tw.Flush()
}

// memoryDetail prints one memory in full.
func (p *printer) memoryDetail(m mdstore.Memory) {
	fmt.Fprintf(p.out, "%s %s\n", p.paint(ansiBold, "ID:     "), p.paint(ansiYellow, m.ID))
	fmt.Fprintf(p.out, "%s %s%s\n", p.paint(ansiBold, "Type:   "), p.emoji(m.Type.Emoji()), p.paint(ansiCyan, string(m.Type)))
	fmt.Fprintf(p.out, "%s %s\n", p.paint(ansiBold, "Tags:   "), strings.Join(m.Tags, ", "))
	fmt.Fprintf(p.out, "%s %s\n", p.paint(ansiBold, "Created:"), m.Created)
	fmt.Fprintf(p.out, "\n%s\n", m.Content)
}

// summary is the first line of s, cut to at most n characters.
func summary(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	if utf8.RuneCountInString(line) > n {
		runes := []rune(line)
		return string(runes[:n-1]) + "…"
	}
	if more {
		return line + " …"
	}
	return line
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

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// printNotices tells the user, once each, what a write did differently
// from a plain commit.
func printNotices(p *printer, res *mdstore.WriteResult) {
	if res == nil {
		return
	}
	for _, n := range res.Notices {
		p.notice(n)
	}
}
