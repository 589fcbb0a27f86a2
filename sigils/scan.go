package sigils

import (
	"sort"
	"strings"

	"lore/internal/markdown"
)

// element is one well-formed <name attrs>content</name> outside code.
type element struct {
	name    string
	attrs   map[string]string
	content string // trimmed
	start   int    // the offset of its '<'
	line    int
}

// openTag is an opening tag waiting for its closing one.
type openTag struct {
	attrs     map[string]string
	start     int
	bodyStart int
}

// scan finds every sigil in text in one pass, in order of their opening
// tags. A tag in code is not a tag: the opening ones are reported as
// ignored. An opening tag followed by another of the same name before its
// closing one was never closed; so is one the text ends in; an opening
// tag whose attributes do not parse is skipped. Each '<' is looked at
// once, and an opening tag's attributes at most maxOpenTag bytes, so the
// scan is linear.
func scan(text string, lines lineIndex) (elements []element, skipped, ignored []Skip) {
	pending := map[string]*openTag{}
	unclosed := func(name string, o *openTag) {
		skipped = append(skipped, Skip{Sigil: name, Line: lines.at(o.start), Reason: "never closed: no </" + name + "> after it"})
	}
	// codeAt is the code span that holds offset at, or nil; at grows from
	// call to call. The text's code is found at the first tag that needs
	// it: an output without a sigil tag is not parsed as Markdown.
	var code []markdown.Code
	parsed, c := false, 0 // c: the first code span that does not end before at
	codeAt := func(at int) *markdown.Code {
		if !parsed {
			code, parsed = codeSpans(text), true
		}
		for c < len(code) && code[c].End <= at {
			c++
		}
		if c < len(code) && code[c].Start <= at {
			return &code[c]
		}
		return nil
	}
	for pos := 0; pos < len(text); {
		i := strings.IndexByte(text[pos:], '<')
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + 1
		if text[pos:] != "" && text[pos] == '/' { // a closing tag
			name := sigilAt(text[pos+1:])
			if name == "" {
				continue
			}
			end := pos + 1 + len(name)
			for end < len(text) && isSpace(text[end]) {
				end++
			}
			if end >= len(text) || text[end] != '>' || codeAt(at) != nil {
				continue
			}
			if o := pending[name]; o != nil {
				delete(pending, name)
				elements = append(elements, element{name: name, attrs: o.attrs, content: strings.TrimSpace(text[o.bodyStart:at]), start: o.start, line: lines.at(o.start)})
			}
			pos = end + 1
			continue
		}
		name := sigilAt(text[pos:])
		if name == "" {
			continue
		}
		rest := text[pos+len(name):]
		if rest == "" || !(rest[0] == '>' || isSpace(rest[0])) { // <knowledge-base> is not <knowledge>
			continue
		}
		if in := codeAt(at); in != nil {
			why := "in inline code"
			if in.Block {
				why = "in a fenced code block"
			}
			ignored = append(ignored, Skip{Sigil: name, Line: lines.at(at), Reason: why + ": shown, not said"})
			continue
		}
		if o := pending[name]; o != nil {
			unclosed(name, o)
			delete(pending, name)
		}
		attrs, n, ok := parseAttributes(rest)
		if !ok {
			skipped = append(skipped, Skip{Sigil: name, Line: lines.at(at), Reason: "its attributes do not parse (want name=\"value\" pairs)"})
			continue
		}
		pending[name] = &openTag{attrs: attrs, start: at, bodyStart: pos + len(name) + n}
		pos = pending[name].bodyStart
	}
	for name, o := range pending {
		unclosed(name, o)
	}
	sort.SliceStable(elements, func(i, j int) bool { return elements[i].start < elements[j].start })
	return elements, skipped, ignored
}

// sigilAt returns the sigil name s starts with, or "".
func sigilAt(s string) string {
	for _, name := range Names {
		if strings.HasPrefix(s, name) {
			return name
		}
	}
	return ""
}

// parseAttributes reads name="value" or name='value' pairs up to the '>'
// that ends an opening tag. It returns the attributes and the length of
// the tag's rest including '>'.
func parseAttributes(s string) (map[string]string, int, bool) {
	if len(s) > maxOpenTag {
		s = s[:maxOpenTag] // a longer opening tag is malformed
	}
	attrs := map[string]string{}
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, 0, false
		}
		if s[i] == '>' {
			return attrs, i + 1, true
		}
		start := i
		for i < len(s) && isNameChar(s[i]) {
			i++
		}
		if i == start {
			return nil, 0, false
		}
		key := strings.ToLower(s[start:i])
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return nil, 0, false
		}
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || (s[i] != '"' && s[i] != '\'') {
			return nil, 0, false
		}
		quote := s[i]
		i++
		end := strings.IndexByte(s[i:], quote)
		if end < 0 {
			return nil, 0, false
		}
		if _, dup := attrs[key]; !dup { // the first of a repeated attribute wins
			attrs[key] = s[i : i+end]
		}
		i += end + 1
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNameChar(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// lineIndex finds the line of an offset: the offsets where lines start.
type lineIndex []int

func newLineIndex(text string) lineIndex {
	starts := lineIndex{0}
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// at is the line, from 1, that holds offset.
func (l lineIndex) at(offset int) int {
	return sort.Search(len(l), func(i int) bool { return l[i] > offset })
}
