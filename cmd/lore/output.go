package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"lore/internal/words"
	"lore/loop"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// printer writes for people: colour and emoji only when decorate is set
// (a terminal, or --color always). Everything it writes goes through a
// terminalSafe writer, so that what entries hold cannot drive the
// terminal; lore's own colours are the only escape sequences it emits.
type printer struct {
	out, err io.Writer
	decorate bool
}

func newPrinter(out, err io.Writer, decorate bool) *printer {
	return &printer{out: &terminalSafe{w: out}, err: &terminalSafe{w: err}, decorate: decorate}
}

// lore's colours, written as marks (runes of Unicode's private use area)
// that terminalSafe turns into their escape sequences: an escape sequence
// in an entry's text is shown, never obeyed.
const (
	ansiReset  = "\ue000"
	ansiBold   = "\ue001"
	ansiDim    = "\ue002"
	ansiYellow = "\ue003"
	ansiCyan   = "\ue004"
	ansiRed    = "\ue005"
)

// colourSequences are the escape sequences of the colour marks, in order.
var colourSequences = [...]string{"\x1b[0m", "\x1b[1m", "\x1b[2m", "\x1b[33m", "\x1b[36m", "\x1b[31m"}

func (p *printer) paint(code, s string) string {
	if !p.decorate || s == "" {
		return s
	}
	return code + s + ansiReset
}

// terminalSafe writes text for a terminal: a control character a terminal
// would act on (escape, bell, backspace, carriage return, the C1 codes,
// delete) is written as a visible escape such as \x1b, so that no text
// lore shows can move the cursor, retitle the window or hide what follows;
// line breaks and tabs pass; colour marks become their escape sequences.
type terminalSafe struct{ w io.Writer }

func (t *terminalSafe) Write(b []byte) (int, error) {
	if !needsEscaping(b) {
		return t.w.Write(b)
	}
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r >= 0xe000 && r <= 0xe005 && n == 3:
			out = append(out, colourSequences[r-0xe000]...)
		case r == '\n' || r == '\t':
			out = append(out, byte(r))
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f && n == 2):
			out = fmt.Appendf(out, "\\x%02x", r)
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}

// needsEscaping says whether b holds a control character or a colour mark
// (whose UTF-8 starts 0xee 0x80): most writes hold neither and pass as
// they are.
func needsEscaping(b []byte) bool {
	for i, c := range b {
		switch {
		case c < 0x20 && c != '\n' && c != '\t', c == 0x7f:
			return true
		case c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			return true
		case c == 0xee && i+1 < len(b) && b[i+1] == 0x80:
			return true
		}
	}
	return false
}

// emoji returns symbol followed by a space on a decorated output, else "".
func (p *printer) emoji(symbol string) string {
	if !p.decorate {
		return ""
	}
	return symbol + " "
}

// notice tells the user about a fallback or a condition, on stderr.
func (p *printer) Notice(msg string) {
	fmt.Fprintf(p.err, "lore: %s\n", msg)
}

// maxWarnings is how many file problems a command prints before it
// summarises the rest.
const maxWarnings = 10

func (p *printer) Warnings(ws []entry.Warning) {
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

func toJSON(m entry.Memory) memoryJSON {
	tags := m.Tags
	if tags == nil {
		tags = []string{}
	}
	return memoryJSON{ID: m.ID, Type: string(m.Type), Content: m.Content, Tags: tags, Created: m.Created}
}

func toJSONList(ms []entry.Memory) []memoryJSON {
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
func (p *printer) memoryTable(ms []entry.Memory) {
	tw := tabwriter.NewWriter(p.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.paint(ansiBold, "ID"), p.paint(ansiBold, "TYPE"), p.paint(ansiBold, "CREATED"), p.paint(ansiBold, "TAGS"), p.paint(ansiBold, "CONTENT"))
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n",
			p.paint(ansiYellow, m.ID), p.paint(ansiCyan, string(m.Type)), m.Created,
			p.paint(ansiDim, strings.Join(m.Tags, ",")), words.FirstLine(m.Content, 60))
	}
	tw.Flush()
}

// memoryDetail prints one memory in full.
func (p *printer) memoryDetail(m entry.Memory) {
	fmt.Fprintf(p.out, "%s %s\n", p.paint(ansiBold, "ID:     "), p.paint(ansiYellow, m.ID))
	fmt.Fprintf(p.out, "%s %s%s\n", p.paint(ansiBold, "Type:   "), p.emoji(m.Type.Emoji()), p.paint(ansiCyan, string(m.Type)))
	fmt.Fprintf(p.out, "%s %s\n", p.paint(ansiBold, "Tags:   "), strings.Join(m.Tags, ", "))
	fmt.Fprintf(p.out, "%s %s\n", p.paint(ansiBold, "Created:"), m.Created)
	fmt.Fprintf(p.out, "\n%s\n", m.Content)
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

// printNotices tells the user, once each, what a write did differently
// from a plain commit.
func printNotices(p *printer, res *mdstore.WriteResult) {
	if res == nil {
		return
	}
	for _, n := range res.Notices {
		p.Notice(n)
	}
}

// commitOf is the commit a write made, "" for none (nothing to change).
func commitOf(res *mdstore.WriteResult) string {
	if res == nil {
		return ""
	}
	return res.Commit
}

// printWrite says what the write of one entry, noun id ("Memory",
// "mem-…"), noted, and when it was queued instead of committed
// (loop.ReportWrite). What the command prints on stdout stays the same,
// for the scripts that read it: the change is acknowledged either way.
func printWrite(p *printer, res *mdstore.WriteResult, noun, id string) {
	loop.ReportWrite(p, res, noun, id)
}
