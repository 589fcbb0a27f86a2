package entry

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

// frontmatterDoc is a file with YAML frontmatter, read for validation.
type frontmatterDoc struct {
	path   string
	fields []docField // top-level keys, each once, in the file's order
	// index finds a key in fields once there are more than a few (a
	// frontmatter is a dozen keys: a map for each of 100,000 files cost a
	// full read of the store more than looking along them).
	index map[string]int
	body  string
	// problems found while reading fields: a file is refused if any
	problems []Warning
}

// docField is a key of a frontmatter, its value and the line of the key.
type docField struct {
	key   string
	value *yaml.Node
	line  int
}

// indexedFields is how many keys a frontmatterDoc looks along before it
// makes an index of them.
const indexedFields = 32

// find returns the position of key in d.fields, or -1.
func (d *frontmatterDoc) find(key string) int {
	if d.index != nil {
		if i, ok := d.index[key]; ok {
			return i
		}
		return -1
	}
	for i := range d.fields {
		if d.fields[i].key == key {
			return i
		}
	}
	return -1
}

// field returns key's value.
func (d *frontmatterDoc) field(key string) (*yaml.Node, bool) {
	if i := d.find(key); i >= 0 {
		return d.fields[i].value, true
	}
	return nil, false
}

// set records key's value, replacing the one it had.
func (d *frontmatterDoc) set(key string, v *yaml.Node, line int) {
	if i := d.find(key); i >= 0 {
		d.fields[i] = docField{key, v, line}
		return
	}
	d.fields = append(d.fields, docField{key, v, line})
	switch {
	case d.index != nil:
		d.index[key] = len(d.fields) - 1
	case len(d.fields) > indexedFields:
		d.index = make(map[string]int, 2*len(d.fields))
		for i, f := range d.fields {
			d.index[f.key] = i
		}
	}
}

// parseFrontmatter splits data into its frontmatter and body. A file that
// does not start with a frontmatter block is an error at line 1.
func parseFrontmatter(data []byte, path string) (*frontmatterDoc, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(data, []byte("---")) {
		return nil, &FileError{Path: path, Line: 1, Msg: "no frontmatter: the file must start with a --- line"}
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
		line, problem := YAMLProblem(err)
		if line > 0 {
			line++ // the opening --- is line 1
		} else {
			line = 1
		}
		msg := "frontmatter is not valid YAML: " + problem
		if err == frontmatter.ErrNotFound {
			msg = "frontmatter is not closed by a --- line"
		}
		return nil, &FileError{Path: path, Line: line, Msg: msg}
	}
	if len(node.Content) == 0 {
		return &frontmatterDoc{path: path, body: body}, nil // empty frontmatter
	}
	root := node.Content[0]
	d := &frontmatterDoc{path: path, fields: make([]docField, 0, len(root.Content)/2), body: body}
	if root.Kind != yaml.MappingNode {
		return nil, &FileError{Path: path, Line: root.Line + 1, Msg: "frontmatter must be a mapping of fields (key: value)"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key := root.Content[i]
		if d.find(key.Value) >= 0 {
			d.problem(key.Line, "field %q appears twice", key.Value)
			continue
		}
		d.set(key.Value, root.Content[i+1], key.Line+1)
	}
	return d, nil
}

// fieldLine is the node line of key's value, 0 when the key is absent.
func (d *frontmatterDoc) fieldLine(key string) int {
	if n, ok := d.field(key); ok {
		return n.Line
	}
	return 0
}

func (d *frontmatterDoc) problem(line int, format string, args ...any) {
	if line > 0 {
		line++ // node lines count from the line after the opening ---
	} else {
		line = 1
	}
	d.problems = append(d.problems, Warning{Path: d.path, Line: line, Message: fmt.Sprintf(format, args...)})
}

// err returns the first problem as an error, or nil.
func (d *frontmatterDoc) err() error {
	if len(d.problems) == 0 {
		return nil
	}
	p := d.problems[0]
	return &FileError{Path: p.Path, Line: p.Line, Msg: p.Message, Problems: d.problems}
}

// str reads a scalar field; required fields must be present and non-empty.
func (d *frontmatterDoc) str(key string, required bool) string {
	n, ok := d.field(key)
	if !ok || n.Tag == "!!null" {
		if required {
			d.problems = append(d.problems, Warning{Path: d.path, Line: 2, Message: fmt.Sprintf("required field %q is missing", key)})
		}
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		d.problem(n.Line, "%s must be a single value", key)
		return ""
	}
	v := strings.TrimSpace(n.Value)
	if required && v == "" {
		d.problem(n.Line, "%s is empty", key)
	}
	return v
}

// list reads a field that is a YAML list or a comma-separated string.
func (d *frontmatterDoc) list(key string) []string {
	n, ok := d.field(key)
	if !ok || n.Tag == "!!null" {
		return nil
	}
	var out []string
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				d.problem(item.Line, "%s must be a list of values", key)
				return nil
			}
			out = append(out, strings.TrimSpace(item.Value))
		}
	case yaml.ScalarNode:
		for _, v := range strings.Split(n.Value, ",") {
			out = append(out, strings.TrimSpace(v))
		}
	default:
		d.problem(n.Line, "%s must be a list", key)
	}
	return out
}

// tags reads a tag list: each tag non-empty, without '|', ',' or "-->"
// (the rules of memory tags), and lowercase when lower is set.
func (d *frontmatterDoc) tags(key string, required, lower bool) []string {
	raw := d.list(key)
	if len(raw) == 0 {
		if !required {
			return nil
		}
		if n, ok := d.field(key); ok {
			d.problem(n.Line, "%s needs at least one tag", key)
		} else {
			d.problems = append(d.problems, Warning{Path: d.path, Line: 2, Message: fmt.Sprintf("required field %q is missing", key)})
		}
		return nil
	}
	line := d.fieldLine(key)
	if lower {
		for _, t := range raw {
			if t != strings.ToLower(t) {
				d.problem(line, "%s: tag %q must be lowercase", key, t)
				break
			}
		}
	}
	tags, err := NormalizeTags(raw)
	if err != nil {
		d.problem(line, "%s: %s", key, err.(*InputError).Msg)
		return nil
	}
	return tags
}

// enum reads a field that must be one of values ("" when absent).
func (d *frontmatterDoc) enum(key string, values []string) string {
	v := d.str(key, false)
	if v == "" {
		return ""
	}
	for _, ok := range values {
		if v == ok {
			return v
		}
	}
	d.problem(d.fieldLine(key), "%s must be one of %s (got %q)", key, strings.Join(values, ", "), v)
	return ""
}

// integer reads a non-negative whole number.
func (d *frontmatterDoc) integer(key string, required bool) int {
	v := d.str(key, required)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		d.problem(d.fieldLine(key), "%s must be a whole number of at least 0 (got %q)", key, v)
		return 0
	}
	return n
}

// number reads a non-negative decimal number.
func (d *frontmatterDoc) number(key string) float64 {
	v := d.str(key, false)
	if v == "" {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		d.problem(d.fieldLine(key), "%s must be a number of at least 0 (got %q)", key, v)
		return 0
	}
	return f
}

// fraction reads a number from 0 to 1, and reports whether it was given.
func (d *frontmatterDoc) fraction(key string) (float64, bool) {
	v := d.str(key, false)
	if v == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 || f > 1 {
		d.problem(d.fieldLine(key), "%s must be a number from 0 to 1 (got %q)", key, v)
		return 0, false
	}
	return f, true
}

// timestamp reads an RFC 3339 time (a bare date is accepted).
func (d *frontmatterDoc) timestamp(key string, required bool) string {
	v := d.str(key, required)
	if v == "" {
		return ""
	}
	if _, err := time.Parse(time.RFC3339, v); err == nil {
		return v
	}
	if _, err := time.Parse(DateLayout, v); err == nil {
		return v
	}
	d.problem(d.fieldLine(key), "%s must be an RFC 3339 time such as 2026-02-17T12:00:00Z (got %q)", key, v)
	return ""
}

// sub reads a nested mapping field as a document of its own.
func (d *frontmatterDoc) sub(key string) *frontmatterDoc {
	n, ok := d.field(key)
	if !ok || n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.problem(n.Line, "%s must be a mapping of fields", key)
		return nil
	}
	s := &frontmatterDoc{path: d.path}
	for i := 0; i+1 < len(n.Content); i += 2 {
		s.set(n.Content[i].Value, n.Content[i+1], n.Content[i].Line+1) // the last of a key twice, as yaml.v3 decodes a map
	}
	return s
}

// frontmatterWriter renders frontmatter in a fixed field order, in the
// style of the seeds: strings double-quoted, lists in flow style.
type frontmatterWriter struct {
	b      strings.Builder
	indent string
}

func newFrontmatterWriter() *frontmatterWriter {
	w := &frontmatterWriter{}
	w.b.WriteString("---\n")
	return w
}

// str writes key: "value", skipping empty values.
func (w *frontmatterWriter) str(key, value string) {
	if value != "" {
		w.b.WriteString(w.indent + key + ": " + YAMLQuote(value) + "\n")
	}
}

// plain writes key: value unquoted, for values validated as identifiers,
// enum values or numbers; anything else goes through str.
func (w *frontmatterWriter) plain(key, value string) {
	if value != "" {
		w.b.WriteString(w.indent + key + ": " + value + "\n")
	}
}

// list writes key: [a, b], quoting the items that need it; an empty list
// is skipped unless always is set.
func (w *frontmatterWriter) list(key string, values []string, always bool) {
	if len(values) == 0 && !always {
		return
	}
	items := make([]string, len(values))
	for i, v := range values {
		items[i] = YAMLFlowItem(v)
	}
	w.b.WriteString(w.indent + key + ": [" + strings.Join(items, ", ") + "]\n")
}

// mapping starts a nested mapping; end it with endMapping.
func (w *frontmatterWriter) mapping(key string) {
	w.b.WriteString(w.indent + key + ":\n")
	w.indent += "  "
}

func (w *frontmatterWriter) endMapping() { w.indent = w.indent[:len(w.indent)-2] }

// done closes the frontmatter and appends the body.
func (w *frontmatterWriter) done(body string) []byte {
	w.b.WriteString("---\n")
	if body = strings.TrimSpace(body); body != "" {
		w.b.WriteString("\n" + body + "\n")
	}
	return []byte(w.b.String())
}

// YAMLQuote writes s as a YAML double-quoted scalar. Everything outside
// YAML's printable set is escaped, and so are the characters YAML reads as
// line breaks (U+0085, U+2028, U+2029).
func YAMLQuote(s string) string {
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

// YAMLFlowItem leaves simple words unquoted, as the seeds write tags, and
// quotes what YAML would read as something else.
func YAMLFlowItem(s string) string {
	if yamlWord(s) {
		return YAMLQuote(s)
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return YAMLQuote(s)
	}
	if isPlainFlowItem(s) {
		return s
	}
	return YAMLQuote(s)
}

// YAMLProblem reads a yaml.v3 error. yaml.v3 reports a syntax error only
// as text ("yaml: line 3: did not find expected key"), with no type to
// ask, so this is the one place that reads it (TestYAMLProblem holds it to
// yaml.v3's own errors): the line (0 when it names none) and the rest.
func YAMLProblem(err error) (line int, msg string) {
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
