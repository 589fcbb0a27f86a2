package agentout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Format is the format of an agent's output.
type Format string

// The formats Read knows. Auto is Detect's choice.
const (
	Auto Format = "auto"
	Text Format = "text"
	// ClaudeJSON is `claude -p --output-format json`: one result object
	// ({"type":"result","result":…}), or with --verbose (or hooks) an
	// array of every message.
	ClaudeJSON Format = "claude-json"
	// ClaudeStreamJSON is `claude -p --output-format stream-json
	// --verbose`: one message a line (system, assistant, user), then the
	// result.
	ClaudeStreamJSON Format = "claude-stream-json"
	// CodexJSON is `codex exec --json`: one event a line (thread.started,
	// turn.*, item.*).
	CodexJSON Format = "codex-json"
	// GeminiJSON is `gemini -p … --output-format json`: one object with
	// response, stats and error.
	GeminiJSON Format = "gemini-json"
)

// Formats are the formats a caller may name, Auto first.
var Formats = []Format{Auto, Text, ClaudeJSON, ClaudeStreamJSON, CodexJSON, GeminiJSON}

// ParseFormat is the Format named s; "" is Auto.
func ParseFormat(s string) (Format, error) {
	if s == "" {
		return Auto, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("agentout: unknown format %q (use %s)", s, strings.Join(names, ", "))
}

// Describe names a format as a person would: "Claude Code stream-json".
func (f Format) Describe() string {
	switch f {
	case ClaudeJSON:
		return "Claude Code json"
	case ClaudeStreamJSON:
		return "Claude Code stream-json"
	case CodexJSON:
		return "Codex exec --json"
	case GeminiJSON:
		return "Gemini CLI json"
	}
	return string(f)
}

// Output is an agent's output as its format gives it.
type Output struct {
	// Format is the format read: the one asked for, or the one detected.
	Format Format
	// Text is what the agent said: the assistant's text blocks in order,
	// each trimmed, joined by blank lines, with the error the CLI
	// reported and any text that was not the format's in their places.
	// For Text, the output byte for byte.
	Text string
	// Files are the files the agent's tool uses edited, as the format
	// names them (absolute, or relative to Cwd), each once, in the order
	// of their first edit; an edit the tool reported failed does not
	// count.
	Files []string
	// Cwd is the agent's working directory when the format says it
	// (Claude Code's init message).
	Cwd string
	// Model is the model the agent ran, when the format says it.
	Model string
	// CostUSD, DurationSecs and Tokens are the CLI's own figures, summed
	// over the sessions of an output that holds several; 0 when it gives
	// none, or none that can be one (a negative cost).
	CostUSD      float64
	DurationSecs float64
	Tokens       Tokens
	// Error is the error the CLI reported ("" when none): Claude Code's
	// error result (its message, or its subtype such as
	// error_max_turns), Codex's failed turn, Gemini CLI's error.
	Error string
	// Values counts the JSON objects of the format that were read (an
	// array's each), and Unread the lines kept as text because they were
	// not: a crash's message, a cut-off line.
	Values, Unread int
}

// Tokens are the tokens a CLI reports it used: Input counts all the
// prompt's (Claude Code's cached ones too), Output what the model wrote.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Read reads data in format f (Auto: Detect's). It never fails: what is
// not the format's is kept as text.
func Read(data []byte, f Format) Output {
	if f == Auto || f == "" {
		f = Detect(data)
	}
	var r reader
	switch f {
	case ClaudeJSON, ClaudeStreamJSON:
		r = &claudeReader{}
	case CodexJSON:
		r = &codexReader{}
	case GeminiJSON:
		r = &geminiReader{}
	default:
		return Output{Format: Text, Text: string(data)}
	}
	data = bytes.TrimPrefix(data, []byte(bom))
	var text textPieces
	out := Output{Format: f}
	out.Unread = scan(data, func(raw []byte) bool {
		n := r.value(raw, &text)
		out.Values += n
		return n > 0
	}, text.addRaw)
	r.finish(&out, &text)
	out.Text = text.String()
	out.CostUSD, out.DurationSecs = figure(out.CostUSD), figure(out.DurationSecs)
	out.Tokens.Input, out.Tokens.Output = max(out.Tokens.Input, 0), max(out.Tokens.Output, 0)
	return out
}

// figure is x when it can be a cost or a duration, else 0: a CLI's
// negative figure, or a sum that overflowed, says nothing.
func figure(x float64) float64 {
	if x > 0 && !math.IsInf(x, 0) {
		return x
	}
	return 0
}

// reader reads the values of one format.
type reader interface {
	// value reads one JSON object (or array of them) of the format, adds
	// what it says to text, and returns how many objects it read; 0 when
	// raw is not JSON, or not an object or an array of objects, for it is
	// then kept as text.
	value(raw []byte, text *textPieces) int
	// finish fills in what the values told once all are read.
	finish(out *Output, text *textPieces)
}

// unmarshal decodes raw into v, as far as it can: a field of another type
// than v's (a number where a string was expected) is left zero and the
// rest decoded. False when raw is not JSON.
func unmarshal(raw []byte, v any) bool {
	err := json.Unmarshal(raw, v)
	var typeErr *json.UnmarshalTypeError
	return err == nil || errors.As(err, &typeErr)
}

// isObject reports whether raw, JSON or not, starts as an object.
func isObject(raw []byte) bool {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	return len(raw) > 0 && raw[0] == '{'
}

// elements returns the elements of a JSON array of objects; ok is false
// when raw is not a JSON array or holds no object.
func elements(raw []byte) (elems []json.RawMessage, ok bool) {
	if json.Unmarshal(raw, &elems) != nil {
		return nil, false
	}
	for _, e := range elems {
		if isObject(e) {
			return elems, true
		}
	}
	return nil, false
}

// scan walks data in order: every JSON object or array goes to value,
// and what is not JSON (or what value refuses) to text, a line, or what
// is left of one, at a time. A line that is a value alone costs value's
// decoding; a line that only starts one (a pretty-printed object spans
// lines) is decoded on to the value's end (valueLen). A value that
// breaks off makes the lines before the one it broke on text, so that no
// byte is read more than a few times. It returns how many lines went to
// text.
func scan(data []byte, value func([]byte) bool, text func([]byte)) (unread int) {
	for off := 0; off < len(data); {
		next := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			next = off + i + 1
		}
		line := bytes.TrimRight(data[off:next], "\n")
		start := off
		for start < next && isSpace(data[start]) {
			start++
		}
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
			text(nil) // a blank line ends a paragraph of text
		case t[0] != '{' && t[0] != '[':
			text(line)
			unread++
		case value(t):
		case json.Valid(t) || endsInString(t): // JSON not the format's; or not JSON, for a string does not hold a line's end
			text(line)
			unread++
		default:
			n, broke := valueLen(data[start:])
			if n > 0 && value(data[start:start+n]) {
				next = start + n // what follows the value on its line is read next
				break
			}
			// The lines before the one the value broke on are text; that
			// one is read again, unless it is this one.
			stop := next
			if n == 0 && broke > next-start {
				if i := bytes.LastIndexByte(data[:start+broke], '\n'); i >= next {
					stop = i + 1
				}
			}
			for l := data[off:stop]; len(l) > 0; {
				i := bytes.IndexByte(l, '\n')
				if i < 0 {
					i = len(l) - 1
				}
				text(bytes.TrimRight(l[:i+1], "\n"))
				unread++
				l = l[i+1:]
			}
			next = stop
		}
		off = next
	}
	return unread
}

// endsInString reports whether line, read as JSON, ends inside a string.
func endsInString(line []byte) bool {
	in, escaped := false, false
	for _, c := range line {
		switch {
		case escaped:
			escaped = false
		case in && c == '\\':
			escaped = true
		case c == '"':
			in = !in
		}
	}
	return in
}

// valueLen is the length of the JSON value data starts with; 0 when it
// is not one, with broke the offset where it broke off (len(data) when
// data ends first).
func valueLen(data []byte) (n, broke int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var end valueEnd
	err := dec.Decode(&end)
	var syntax *json.SyntaxError
	switch {
	case err == nil:
		return int(dec.InputOffset()), 0
	case errors.As(err, &syntax):
		return 0, int(syntax.Offset)
	}
	return 0, len(data)
}

// valueEnd decodes nothing: decoding one is how valueLen finds where a
// value ends, without a copy of it.
type valueEnd struct{}

func (*valueEnd) UnmarshalJSON([]byte) error { return nil }

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// textPieces builds Output.Text: pieces joined by blank lines, and the
// lines that were not the format's in theirs.
type textPieces struct {
	pieces []string
	raw    []string // lines not yet made a piece
}

// add adds one piece of the agent's text, trimmed; nothing when blank.
func (t *textPieces) add(s string) {
	t.flush()
	if s = strings.TrimSpace(s); s != "" {
		t.pieces = append(t.pieces, s)
	}
}

// addRaw adds a line that was not the format's; nil ends a paragraph.
func (t *textPieces) addRaw(line []byte) {
	if line == nil {
		t.flush()
		return
	}
	t.raw = append(t.raw, strings.TrimRight(string(line), " \t\r"))
}

func (t *textPieces) flush() {
	if len(t.raw) > 0 {
		raw := strings.Join(t.raw, "\n")
		t.raw = t.raw[:0]
		t.add(raw)
	}
}

// last is the last piece, "" when there is none.
func (t *textPieces) last() string {
	t.flush()
	if len(t.pieces) == 0 {
		return ""
	}
	return t.pieces[len(t.pieces)-1]
}

func (t *textPieces) String() string {
	t.flush()
	return strings.Join(t.pieces, "\n\n")
}

// fileUses are the files a format's tool uses edit, in order, with the
// ids of the uses that failed.
type fileUses struct {
	uses   []fileUse
	failed map[string]bool
}

type fileUse struct{ path, id string }

func (f *fileUses) add(path, id string) {
	if path != "" {
		f.uses = append(f.uses, fileUse{path, id})
	}
}

// fail marks the use id as one that edited nothing.
func (f *fileUses) fail(id string) {
	if id == "" {
		return
	}
	if f.failed == nil {
		f.failed = map[string]bool{}
	}
	f.failed[id] = true
}

// files are the files of the uses that did not fail, each once.
func (f *fileUses) files() []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range f.uses {
		if (u.id == "" || !f.failed[u.id]) && !seen[u.path] {
			seen[u.path] = true
			out = append(out, u.path)
		}
	}
	return out
}

// StartsAsJSON reports whether s, past blanks and a byte order mark,
// starts as a JSON object or array: only then can Detect find a format in
// it. It lets a caller holding the output as a string pass text on
// without a copy.
func StartsAsJSON(s string) bool {
	s = strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(s, " \t\r\n"), bom), " \t\r\n")
	return s != "" && (s[0] == '{' || s[0] == '[')
}

// bom is the byte order mark some Windows programs write first.
const bom = "\ufeff"

// Detect tells the format of data from its first non-blank bytes: a JSON
// object (or array) of one of the formats' shapes — Claude Code's messages
// (type system, assistant, user or result), Codex's events (thread.*,
// turn.*, item.*), Gemini CLI's object (response, stats, error) — and
// otherwise Text.
func Detect(data []byte) Format {
	data = bytes.TrimPrefix(data, []byte(bom))
	i := 0
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	if i == len(data) || data[i] != '{' && data[i] != '[' {
		return Text
	}
	data = data[i:]
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	alone := false // the first value is all there is
	if dec.Decode(&raw) == nil {
		alone = len(bytes.TrimSpace(data[dec.InputOffset():])) == 0
	} else {
		// A first value cut off, or followed by something that is not
		// JSON: its first line alone may still be one of the formats'.
		line := data
		if j := bytes.IndexByte(data, '\n'); j >= 0 {
			line = data[:j]
		}
		if !json.Valid(line) {
			return Text
		}
		raw = line
	}
	if raw[0] == '[' {
		elems, ok := elements(raw)
		if !ok {
			return Text
		}
		var first probe
		for _, e := range elems {
			if isObject(e) {
				unmarshal(e, &first)
				break
			}
		}
		if first.claude() || first.Type == "" && first.Role != "" {
			return ClaudeJSON
		}
		return Text
	}
	var first probe
	if !unmarshal(raw, &first) {
		return Text
	}
	switch {
	case first.claude() && first.Type == "result" && alone:
		return ClaudeJSON
	case first.claude():
		return ClaudeStreamJSON
	case first.codex():
		return CodexJSON
	case first.Type == "" && bool(first.Response || first.Stats || first.Error):
		return GeminiJSON
	}
	return Text
}

// probe is what Detect reads of the first value.
type probe struct {
	Type     string  `json:"type"`
	Role     string  `json:"role"`
	Subtype  string  `json:"subtype"`
	Response present `json:"response"`
	Stats    present `json:"stats"`
	Error    present `json:"error"`
}

// present is true when its field is there, whatever it holds (nothing of
// it is kept).
type present bool

func (p *present) UnmarshalJSON([]byte) error {
	*p = true
	return nil
}

func (p probe) claude() bool {
	switch p.Type {
	case "system", "assistant", "user", "result", "stream_event":
		return true
	case "message": // in the array of early versions' --json --verbose
		return p.Role != ""
	}
	return false
}

func (p probe) codex() bool {
	for _, prefix := range []string{"thread.", "turn.", "item."} {
		if strings.HasPrefix(p.Type, prefix) {
			return true
		}
	}
	return false
}
