package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// jsonText is a JSON document's text and its values, each with the offsets
// of its text, so that lore can edit a file someone else writes by
// replacing bytes of it (edit) instead of writing the document again its
// own way: what it does not change keeps its spacing, its newlines, its
// escapes.
type jsonText struct {
	text []byte
	root *jsonNode // nil when the text holds only whitespace
}

// jsonNode is one value of a jsonText, text[start:end].
type jsonNode struct {
	start, end int
	kind       byte        // '{', '[', or 0: a string, number, true, false or null
	scalar     any         // a scalar's value: string, json.Number, bool or nil
	keys       []jsonKey   // an object's keys, one for each of elems
	elems      []*jsonNode // an object's values, an array's elements
	parent     *jsonNode
}

// jsonKey is an object's key, text[start:end] with its quotes.
type jsonKey struct {
	name       string
	start, end int
}

// edit replaces text[start:end] with with.
type edit struct {
	start, end int
	with       string
}

const jsonSpace = " \t\r\n"

// parseJSON reads one JSON value and where each of its values is, with
// encoding/json's tokenizer (which judges the grammar and decodes the
// strings and numbers) and the offsets it has read to.
func parseJSON(text []byte) (*jsonText, error) {
	t := &jsonText{text: text}
	if len(bytes.Trim(text, jsonSpace)) == 0 {
		return t, nil
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	root, err := t.value(dec, nil)
	if err == nil {
		if _, extra := dec.Token(); extra != io.EOF {
			err = errors.New("more than one JSON value")
		}
	}
	if err != nil {
		return nil, err
	}
	t.root = root
	return t, nil
}

func (t *jsonText) value(dec *json.Decoder, parent *jsonNode) (*jsonNode, error) {
	n := &jsonNode{start: t.next(dec.InputOffset()), parent: parent}
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		n.scalar = tok
		n.end = int(dec.InputOffset())
		return n, nil
	}
	if d != '{' && d != '[' {
		return nil, fmt.Errorf("unexpected %v", d)
	}
	n.kind = byte(d)
	for dec.More() {
		if n.kind == '{' {
			k := jsonKey{start: t.next(dec.InputOffset())}
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			k.name, _ = tok.(string)
			k.end = int(dec.InputOffset())
			n.keys = append(n.keys, k)
		}
		v, err := t.value(dec, n)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	n.end = int(dec.InputOffset())
	return n, nil
}

// next is where the token after offset starts: past the whitespace, the
// comma or the colon the tokenizer reads before it.
func (t *jsonText) next(offset int64) int {
	i := int(offset)
	for i < len(t.text) && strings.IndexByte(jsonSpace+",:", t.text[i]) >= 0 {
		i++
	}
	return i
}

// lookup is the index of an object's value for key (the last, as
// encoding/json and JavaScript read a key written twice), -1 when there
// is none or n is no object.
func (n *jsonNode) lookup(key string) int {
	for i := len(n.keys) - 1; i >= 0; i-- {
		if n.keys[i].name == key {
			return i
		}
	}
	return -1
}

// get is an object's value for key; nil when there is none or n is no
// object.
func (n *jsonNode) get(key string) *jsonNode {
	if n == nil {
		return nil
	}
	if i := n.lookup(key); i >= 0 {
		return n.elems[i]
	}
	return nil
}

// str is a string's value.
func (n *jsonNode) str() (string, bool) {
	if n == nil {
		return "", false
	}
	s, ok := n.scalar.(string)
	return s, ok
}

// childStart is where the i-th child starts: an object's key, an array's
// element.
func (n *jsonNode) childStart(i int) int {
	if n.kind == '{' {
		return n.keys[i].start
	}
	return n.elems[i].start
}

// jsonObject is an object of new JSON text, its fields in order. Its
// values are jsonObjects, arrays ([]any) and strings.
type jsonObject []jsonField

type jsonField struct {
	key   string
	value any
}

// insert adds items at the end of the container c: jsonFields to an
// object, values to an array. They are written as c's children are — on
// the line of the last one, with the separator before it, or each on a
// line of its own, indented like it — and into an empty container like
// the container around it; nothing of the text around them changes.
func (t *jsonText) insert(c *jsonNode, items []any) edit {
	l := layout{nl: t.newline(), colon: t.colon(c)}
	var b strings.Builder
	if n := len(c.elems); n > 0 {
		last := c.childStart(n - 1)
		var sep string // what joins the last child to the one before
		switch first := t.text[c.start+1 : last]; {
		case n > 1:
			sep = string(t.text[c.elems[n-2].end:last])
		case bytes.Contains(first, []byte("\n")):
			sep = "," + string(first)
		default:
			sep = t.comma(l.colon)
		}
		l.oneLine = !strings.Contains(sep, "\n") && !bytes.Contains(t.text[last:c.elems[n-1].end], []byte("\n"))
		l.comma = sep
		indent := t.lineIndent(last)
		l.unit = t.unitBelow(indent, c)
		for _, it := range items {
			b.WriteString(sep)
			l.item(&b, it, indent)
		}
		at := c.elems[n-1].end
		return edit{at, at, b.String()}
	}
	inner := t.text[c.start+1 : c.end-1]
	l.oneLine = !bytes.Contains(inner, []byte("\n")) &&
		(c.parent == nil || !bytes.Contains(t.text[c.parent.start:c.parent.end], []byte("\n")))
	at := c.start + 1
	if l.oneLine {
		l.comma = t.comma(l.colon)
		for i, it := range items {
			if i > 0 {
				b.WriteString(l.comma)
			}
			l.item(&b, it, "")
		}
		return edit{at, at, b.String()}
	}
	outer := t.lineIndent(c.start)
	l.unit = t.indentUnit()
	if c.parent != nil {
		l.unit = t.unitBelow(outer, c.parent)
	}
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.nl + outer + l.unit)
		l.item(&b, it, outer+l.unit)
	}
	if !bytes.Contains(inner, []byte("\n")) {
		b.WriteString(l.nl + outer)
	}
	return edit{at, at, b.String()}
}

// remove cuts the children of c marked gone, not all of them, each with
// the separator that joins it to the others: after a child that stays,
// the separator before it (where insert puts it), else the one after it.
func (c *jsonNode) remove(gone []bool) []edit {
	var edits []edit
	kept := false
	for i, g := range gone {
		switch {
		case !g:
			kept = true
		case kept:
			edits = append(edits, edit{c.elems[i-1].end, c.elems[i].end, ""})
		default: // a child after it stays
			edits = append(edits, edit{c.childStart(i), c.childStart(i + 1), ""})
		}
	}
	return edits
}

// applyEdits is text with edits, which do not overlap, made.
func applyEdits(text []byte, edits []edit) []byte {
	edits = slices.Clone(edits)
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out bytes.Buffer
	at := 0
	for _, e := range edits {
		out.Write(text[at:e.start])
		out.WriteString(e.with)
		at = e.end
	}
	out.Write(text[at:])
	return out.Bytes()
}

// newline is the text's: CRLF when its first line ends so.
func (t *jsonText) newline() string {
	if i := bytes.IndexByte(t.text, '\n'); i > 0 && t.text[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lineIndent is the spaces and tabs that start the line offset is on (up
// to offset).
func (t *jsonText) lineIndent(offset int) string {
	start := bytes.LastIndexByte(t.text[:offset], '\n') + 1
	end := start
	for end < offset && (t.text[end] == ' ' || t.text[end] == '\t') {
		end++
	}
	return string(t.text[start:end])
}

// unitBelow is one level of indentation: what indent, the indentation of
// a child of c, adds to the indentation of c's line; else indentUnit.
func (t *jsonText) unitBelow(indent string, c *jsonNode) string {
	outer := t.lineIndent(c.start)
	if len(indent) > len(outer) && strings.HasPrefix(indent, outer) {
		return indent[len(outer):]
	}
	return t.indentUnit()
}

// indentUnit is the text's shortest indentation of a line, two spaces in
// a text with none.
func (t *jsonText) indentUnit() string {
	unit := ""
	for line := range bytes.SplitSeq(t.text, []byte("\n")) {
		rest := bytes.TrimLeft(line, " \t")
		indent := line[:len(line)-len(rest)]
		if len(indent) > 0 && len(bytes.TrimRight(rest, "\r")) > 0 && (unit == "" || len(indent) < len(unit)) {
			unit = string(indent)
		}
	}
	if unit == "" {
		return "  "
	}
	return unit
}

// colon is what joins a key to its value in c, the last of its keys; else
// the text's first key; else ": ".
func (t *jsonText) colon(c *jsonNode) string {
	if n := len(c.keys); n > 0 {
		if s := t.text[c.keys[n-1].end:c.elems[n-1].start]; !bytes.Contains(s, []byte("\n")) {
			return string(s)
		}
	}
	colon := ": "
	t.walk(func(n *jsonNode) bool {
		if len(n.keys) > 0 {
			if s := t.text[n.keys[0].end:n.elems[0].start]; !bytes.Contains(s, []byte("\n")) {
				colon = string(s)
				return false
			}
		}
		return true
	})
	return colon
}

// comma is the text's first separator of two values on one line; else
// "," in a text whose colons have no space, ", " in others.
func (t *jsonText) comma(colon string) string {
	comma := ", "
	if colon == ":" {
		comma = ","
	}
	t.walk(func(n *jsonNode) bool {
		for i := 1; i < len(n.elems); i++ {
			if s := t.text[n.elems[i-1].end:n.childStart(i)]; !bytes.Contains(s, []byte("\n")) {
				comma = string(s)
				return false
			}
		}
		return true
	})
	return comma
}

// walk calls f on the text's containers in the order they start, until f
// returns false.
func (t *jsonText) walk(f func(*jsonNode) bool) {
	var visit func(n *jsonNode) bool
	visit = func(n *jsonNode) bool {
		if n.kind == 0 {
			return true
		}
		if !f(n) {
			return false
		}
		for _, e := range n.elems {
			if !visit(e) {
				return false
			}
		}
		return true
	}
	if t.root != nil {
		visit(t.root)
	}
}

// layout is how insert writes new JSON text.
type layout struct {
	oneLine bool
	nl      string // on lines: the newline
	unit    string // on lines: one level of indentation
	colon   string // between a key and its value
	comma   string // on one line: between two values
}

// item writes a jsonField or a value, on lines indented from indent.
func (l layout) item(b *strings.Builder, it any, indent string) {
	if f, ok := it.(jsonField); ok {
		writeString(b, f.key)
		b.WriteString(l.colon)
		it = f.value
	}
	var items []any
	open, close := byte('['), byte(']')
	switch v := it.(type) {
	case string:
		writeString(b, v)
		return
	case jsonObject:
		open, close = '{', '}'
		for _, f := range v {
			items = append(items, f)
		}
	case []any:
		items = v
	}
	b.WriteByte(open)
	for i, it := range items {
		switch {
		case i > 0 && l.oneLine:
			b.WriteString(l.comma)
		case i > 0:
			b.WriteByte(',')
		}
		if !l.oneLine {
			b.WriteString(l.nl + indent + l.unit)
		}
		l.item(b, it, indent+l.unit)
	}
	if !l.oneLine {
		b.WriteString(l.nl + indent)
	}
	b.WriteByte(close)
}

func writeString(b *strings.Builder, s string) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // cannot fail
	b.Write(bytes.TrimSuffix(out.Bytes(), []byte("\n")))
}
