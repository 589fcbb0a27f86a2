package yamlfm

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"
)

// yamlFrontmatter is adrg/frontmatter's "---" format decoded with yaml.v3
// into a node, so that every field keeps its line number.
var yamlFrontmatter = frontmatter.NewFormat("---", "---", func(data []byte, v any) error {
	return yaml.Unmarshal(data, v.(*yaml.Node))
})

// Doc is a file with YAML frontmatter, read field by field: each reader
// records what is wrong with its field as a Problem and returns the zero
// value, so that a file is read whole and refused once, with every
// problem.
type Doc struct {
	fields []Field // top-level keys, each once, in the file's order
	// index finds a key in fields once there are more than a few (a
	// frontmatter is a dozen keys: a map for each of 100,000 files cost a
	// full read of the store more than looking along them).
	index map[string]int
	body  string
	// Problems found while reading fields: a file is refused if any.
	Problems []Problem
}

// Problem is what is wrong with a field, at a line of the file (1-based;
// the opening --- is line 1).
type Problem struct {
	Line    int
	Message string
}

// Error is a file whose frontmatter does not read at all.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Field is a key of a frontmatter, its value and the line of the key.
type Field struct {
	Key   string
	Value *yaml.Node
	Line  int
}

// indexedFields is how many keys a Doc looks along before it
// makes an index of them.
const indexedFields = 32

// find returns the position of key in d.fields, or -1.
func (d *Doc) find(key string) int {
	if d.index != nil {
		if i, ok := d.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range d.fields {
		if d.fields[i].Key == key {
			return i
		}
	}
	return -1
}

// Field returns key's value.
func (d *Doc) Field(key string) (*yaml.Node, bool) {
	if i := d.find(key); i >= 0 {
		return d.fields[i].Value, true
	}
	return nil, false
}

// set records key's value, replacing the one it had.
func (d *Doc) set(key string, v *yaml.Node, line int) {
	if i := d.find(key); i >= 0 {
		d.fields[i] = Field{key, v, line}
		return
	}
	d.fields = append(d.fields, Field{key, v, line})
	switch {
	case d.index != nil:
		d.index[key] = len(d.fields) - 1
	case len(d.fields) > indexedFields:
		d.index = make(map[string]int, 2*len(d.fields))
		for i, f := range d.fields {
			d.index[f.Key] = i
		}
	}
}

// Parse splits data into its frontmatter and body. A file that does not
// start with a frontmatter block is an error at line 1.
func Parse(data []byte) (*Doc, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil, &Error{Line: 1, Msg: "no frontmatter: the file must start with a --- line"}
	}
	// One copy of the file, which the fast path's nodes and the body
	// are slices of.
	node, body, fast := fastFrontmatter(string(data))
	var err error
	if !fast {
		var b []byte
		b, err = frontmatter.MustParse(bytes.NewReader(data), &node, yamlFrontmatter)
		body = string(b)
	}
	if err != nil {
		line, problem := ErrorLine(err)
		if line > 0 {
			line++ // the opening --- is line 1
		} else {
			line = 1
		}
		msg := "frontmatter is not valid YAML: " + problem
		if err == frontmatter.ErrNotFound {
			msg = "frontmatter is not closed by a --- line"
		}
		return nil, &Error{Line: line, Msg: msg}
	}
	if len(node.Content) == 0 {
		return &Doc{body: body}, nil // empty frontmatter
	}
	root := node.Content[0]
	d := &Doc{fields: make([]Field, 0, len(root.Content)/2), body: body}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{Line: root.Line + 1, Msg: "frontmatter must be a mapping of fields (key: value)"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key := root.Content[i]
		if d.find(key.Value) >= 0 {
			d.Problem(key.Line, "field %q appears twice", key.Value)
			continue
		}
		d.set(key.Value, root.Content[i+1], key.Line+1)
	}
	return d, nil
}

// FieldLine is the node line of key's value (yaml.v3's, which counts from
// the line after the opening ---), 0 when the key is absent.
func (d *Doc) FieldLine(key string) int {
	if n, ok := d.Field(key); ok {
		return n.Line
	}
	return 0
}

// Problem records a problem at a node line (yaml.v3's, which counts from
// the line after the opening ---; 0 for the whole file).
func (d *Doc) Problem(line int, format string, args ...any) {
	if line > 0 {
		line++ // node lines count from the line after the opening ---
	} else {
		line = 1
	}
	d.Problems = append(d.Problems, Problem{Line: line, Message: fmt.Sprintf(format, args...)})
}

// Missing records that the required field key is missing.
func (d *Doc) Missing(key string) {
	d.Problems = append(d.Problems, Problem{Line: 2, Message: fmt.Sprintf("required field %q is missing", key)})
}

// Body is what follows the frontmatter.
func (d *Doc) Body() string { return d.body }

// Fields are the top-level keys, each once, in the file's order.
func (d *Doc) Fields() []Field { return d.fields }

// Str reads a scalar field; required fields must be present and non-empty.
func (d *Doc) Str(key string, required bool) string {
	n, ok := d.Field(key)
	if !ok || n.Tag == "!!null" {
		if required {
			d.Missing(key)
		}
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.Problem(n.Line, "%s must be a single value", key)
		return ""
	}
	v := strings.TrimSpace(n.Value)
	if required && v == "" {
		d.Problem(n.Line, "%s is empty", key)
	}
	return v
}

// List reads a field that is a YAML list or a comma-separated string.
func (d *Doc) List(key string) []string {
	n, ok := d.Field(key)
	if !ok || n.Tag == "!!null" {
		return nil
	}
	var out []string
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				d.Problem(item.Line, "%s must be a list of values", key)
				return nil
			}
			out = append(out, strings.TrimSpace(item.Value))
		}
	case yaml.ScalarNode:
		for _, v := range strings.Split(n.Value, ",") {
			out = append(out, strings.TrimSpace(v))
		}
	default:
		d.Problem(n.Line, "%s must be a list", key)
	}
	return out
}

// Enum reads a field that must be one of values ("" when absent).
func (d *Doc) Enum(key string, values []string) string {
	v := d.Str(key, false)
	if v == "" {
		return ""
	}
	for _, ok := range values {
		if v == ok {
			return v
		}
	}
	d.Problem(d.FieldLine(key), "%s must be one of %s (got %q)", key, strings.Join(values, ", "), v)
	return ""
}

// Integer reads a non-negative whole number.
func (d *Doc) Integer(key string, required bool) int {
	v := d.Str(key, required)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		d.Problem(d.FieldLine(key), "%s must be a whole number of at least 0 (got %q)", key, v)
		return 0
	}
	return n
}

// Number reads a non-negative decimal number.
func (d *Doc) Number(key string) float64 {
	v := d.Str(key, false)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		d.Problem(d.FieldLine(key), "%s must be a number of at least 0 (got %q)", key, v)
		return 0
	}
	return f
}

// Fraction reads a number from 0 to 1, and reports whether it was given.
func (d *Doc) Fraction(key string) (float64, bool) {
	v := d.Str(key, false)
	if v == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		d.Problem(d.FieldLine(key), "%s must be a number from 0 to 1 (got %q)", key, v)
		return 0, false
	}
	return f, true
}

// Timestamp reads an RFC 3339 time (a bare date is accepted).
func (d *Doc) Timestamp(key string, required bool) string {
	v := d.Str(key, required)
	if v == "" {
		return ""
	}
	if _, err := time.Parse(time.RFC3339, v); err == nil {
		return v
	}
	if _, err := time.Parse(DateLayout, v); err == nil {
		return v
	}
	d.Problem(d.FieldLine(key), "%s must be an RFC 3339 time such as 2026-02-17T12:00:00Z (got %q)", key, v)
	return ""
}

// Sub reads a nested mapping field as a document of its own.
func (d *Doc) Sub(key string) *Doc {
	n, ok := d.Field(key)
	if !ok || n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.Problem(n.Line, "%s must be a mapping of fields", key)
		return nil
	}
	s := &Doc{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		s.set(n.Content[i].Value, n.Content[i+1], n.Content[i].Line+1) // the last of a key twice, as yaml.v3 decodes a map
	}
	return s
}

// Writer renders frontmatter in the order its fields are written, in the
// style of the seeds: strings double-quoted, lists in flow style.
type Writer struct {
	b      strings.Builder
	indent string
}

// NewWriter starts a frontmatter.
func NewWriter() *Writer {
	w := &Writer{}
	w.b.WriteString("---\n")
	return w
}

// Str writes key: "value", skipping empty values.
func (w *Writer) Str(key, value string) {
	if value != "" {
		w.b.WriteString(w.indent + key + ": " + Quote(value) + "\n")
	}
}

// Plain writes key: value unquoted, for values validated as identifiers,
// enum values or numbers; anything else goes through Str.
func (w *Writer) Plain(key, value string) {
	if value != "" {
		w.b.WriteString(w.indent + key + ": " + value + "\n")
	}
}

// List writes key: [a, b], quoting the items that need it; an empty list
// is skipped unless always is set.
func (w *Writer) List(key string, values []string, always bool) {
	if len(values) == 0 && !always {
		return
	}
	items := make([]string, len(values))
	for i, v := range values {
		items[i] = FlowItem(v)
	}
	w.b.WriteString(w.indent + key + ": [" + strings.Join(items, ", ") + "]\n")
}

// Mapping starts a nested mapping; end it with EndMapping.
func (w *Writer) Mapping(key string) {
	w.b.WriteString(w.indent + key + ":\n")
	w.indent += "  "
}

// EndMapping ends the mapping Mapping started.
func (w *Writer) EndMapping() { w.indent = w.indent[:len(w.indent)-2] }

// Raw writes text as it is, for what the other methods do not write.
func (w *Writer) Raw(text string) { w.b.WriteString(text) }

// Done closes the frontmatter and appends the body.
func (w *Writer) Done(body string) []byte {
	w.b.WriteString("---\n")
	if body = strings.TrimSpace(body); body != "" {
		w.b.WriteString("\n" + body + "\n")
	}
	return []byte(w.b.String())
}

// Quote writes s as a YAML double-quoted scalar. Everything outside
// YAML's printable set is escaped, and so are the characters YAML reads as
// line breaks (U+0085, U+2028, U+2029).
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 ||
			(r >= 0xd800 && r <= 0xdfff) || r == 0xfeff || r == 0xfffe || r == 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// FlowItem leaves simple words unquoted, as the seeds write tags, and
// quotes what YAML would read as something else.
func FlowItem(s string) string {
	if yamlWord(s) {
		return Quote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return Quote(s)
	}
	if isPlainFlowItem(s) {
		return s
	}
	return Quote(s)
}

// ErrorLine reads a yaml.v3 error. yaml.v3 reports a syntax error only
// as text ("yaml: line 3: did not find expected key"), with no type to
// ask, so this is the one place that reads it (TestErrorLine holds it to
// yaml.v3's own errors): the line (0 when it names none) and the rest.
func ErrorLine(err error) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if num, text, ok := strings.Cut(rest, ": "); ok {
			if n, err := strconv.Atoi(num); err == nil {
				return n, text
			}
		}
	}
	return 0, msg
}

// DateLayout is a bare date, which a timestamp may be.
const DateLayout = "2006-01-02"
