package merge

import (
	"strconv"
	"strings"
	"time"

	"lore/internal/diff3"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"

	"gopkg.in/yaml.v3"
)

// --- files with YAML frontmatter ---

// setFields are the list fields that merge as sets.
var setFields = map[string]bool{"tags": true, "sources": true, "files_modified": true, "source_runs": true, "relevant_files": true}

// fmField is one key of a frontmatter mapping with its value; text is the
// field's lines in its file (top-level fields only), from its key to the
// next key.
type fmField struct {
	key  string
	node *yaml.Node
	text string
}

// fmDoc is a file with frontmatter cut into the parts the merge handles.
type fmDoc struct {
	head     string // a byte-order mark and the opening --- line
	preamble string // lines before the first key
	fields   []fmField
	closing  string // the closing --- line
	body     string
}

// splitFrontmatterDoc cuts data as parseFrontmatter reads it. It refuses
// (false) what the merge cannot take apart field by field: no frontmatter,
// invalid YAML, anything but a block mapping with one key per line at the
// left margin, duplicate keys, anchors and aliases. An empty file is an
// empty document.
func splitFrontmatterDoc(data []byte) (*fmDoc, bool) {
	if len(data) == 0 {
		return &fmDoc{}, true
	}
	s := string(data)
	bom := ""
	if strings.HasPrefix(s, "\xef\xbb\xbf") {
		bom, s = s[:3], s[3:]
	}
	if !strings.HasPrefix(s, "---") {
		return nil, false
	}
	lines := diff3.SplitLines(s)
	if strings.TrimSpace(lines[0]) != "---" {
		return nil, false
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, false
	}
	d := &fmDoc{head: bom + lines[0], closing: lines[end], body: strings.Join(lines[end+1:], "")}
	inner := lines[1:end]
	for _, l := range inner {
		if strings.TrimSpace(l) == "..." {
			return nil, false // a document end marker: fields cannot move past it
		}
	}
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(strings.Join(inner, "")), &root); err != nil {
		return nil, false
	}
	if len(root.Content) == 0 {
		d.preamble = strings.Join(inner, "")
		return d, true
	}
	m := root.Content[0]
	if m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 || !plainTree(m) {
		return nil, false
	}
	seen := map[string]bool{}
	prev := -1
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		at := k.Line - 1
		if k.Kind != yaml.ScalarNode || k.Column != 1 || at <= prev || at >= len(inner) || seen[k.Value] {
			return nil, false
		}
		seen[k.Value] = true
		if i == 0 {
			d.preamble = strings.Join(inner[:at], "")
		} else {
			d.fields[len(d.fields)-1].text = strings.Join(inner[prev:at], "")
		}
		d.fields = append(d.fields, fmField{key: k.Value, node: m.Content[i+1]})
		prev = at
	}
	d.fields[len(d.fields)-1].text = strings.Join(inner[prev:], "")
	return d, true
}

// plainTree reports whether n has no anchors, aliases, non-scalar or
// repeated keys, so that its fields can be moved and rendered one by one.
func plainTree(n *yaml.Node) bool {
	if n.Anchor != "" || n.Kind == yaml.AliasNode {
		return false
	}
	keys := map[string]bool{}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			if c.Kind != yaml.ScalarNode || keys[c.Value] {
				return false
			}
			keys[c.Value] = true
		}
		if !plainTree(c) {
			return false
		}
	}
	return true
}

// canonicalYAML is n's value without its style, comments and position.
func canonicalYAML(n *yaml.Node) string {
	if n == nil {
		return "\x00absent"
	}
	var b strings.Builder
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		switch n.Kind {
		case yaml.ScalarNode:
			if n.ShortTag() == "!!null" {
				b.WriteString("!!null") // ~, null and nothing at all
				return
			}
			b.WriteString(n.ShortTag() + " " + strconv.Quote(n.Value))
		case yaml.SequenceNode:
			b.WriteString("[")
			for _, c := range n.Content {
				walk(c)
				b.WriteString(",")
			}
			b.WriteString("]")
		case yaml.MappingNode:
			b.WriteString("{")
			for _, c := range n.Content {
				walk(c)
				b.WriteString(",")
			}
			b.WriteString("}")
		default:
			b.WriteString("?")
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// fieldsOf lists a mapping node's keys as fields (no text).
func fieldsOf(n *yaml.Node) []fmField {
	var out []fmField
	for i := 0; n != nil && i+1 < len(n.Content); i += 2 {
		out = append(out, fmField{key: n.Content[i].Value, node: n.Content[i+1]})
	}
	return out
}

// fmMerger merges frontmatter fields and counts the conflicts.
type fmMerger struct {
	labels    Labels
	conflicts int
}

// fieldText is a field's lines: its own text, or rendered in lore's style.
func fieldText(f *fmField, indent string) string {
	if f == nil {
		return ""
	}
	if f.text != "" {
		return f.text
	}
	return renderYAMLField(indent, f.key, f.node)
}

// mergeFields merges three mappings key by key and returns the merged
// lines. Keys keep ours' order; a key new from theirs goes after the key
// that comes before it in theirs.
func (m *fmMerger) mergeFields(base, ours, theirs []fmField, indent string) string {
	index := func(fs []fmField) map[string]*fmField {
		out := make(map[string]*fmField, len(fs))
		for i := range fs {
			out[fs[i].key] = &fs[i]
		}
		return out
	}
	bi, oi, ti := index(base), index(ours), index(theirs)
	type item struct{ key, text string }
	var out []item
	one := func(key string) (string, bool) {
		b, o, t := bi[key], oi[key], ti[key]
		cb, co, ct := canonicalYAML(nodeOf(b)), canonicalYAML(nodeOf(o)), canonicalYAML(nodeOf(t))
		switch {
		case co == ct:
			if o == nil {
				return "", false
			}
			if co == cb && t != nil && b != nil && o.text == b.text && t.text != b.text {
				return t.text, true // theirs changed only how it is written
			}
			return fieldText(o, indent), true
		case co == cb:
			return fieldText(t, indent), t != nil
		case ct == cb:
			return fieldText(o, indent), o != nil
		}
		if later, ok := laterTime(o, t); ok {
			return fieldText(later, indent), true
		}
		if merged, ok := m.mergeValue(key, nodeOf(b), nodeOf(o), nodeOf(t), indent); ok {
			return merged, true
		}
		m.conflicts++
		var sb strings.Builder
		m.labels.WriteConflict(&sb, fieldText(o, indent), fieldText(t, indent))
		return sb.String(), true
	}
	for _, o := range ours {
		if text, ok := one(o.key); ok {
			out = append(out, item{o.key, text})
		}
	}
	for i, t := range theirs {
		if oi[t.key] != nil {
			continue
		}
		text, ok := one(t.key)
		if !ok {
			continue
		}
		at := 0
	find:
		for j := i - 1; j >= 0; j-- {
			for k := range out {
				if out[k].key == theirs[j].key {
					at = k + 1
					break find
				}
			}
		}
		out = append(out[:at], append([]item{{t.key, text}}, out[at:]...)...)
	}
	var b strings.Builder
	for _, it := range out {
		diff3.WriteLines(&b, it.text)
	}
	return b.String()
}

// laterTime is, of two fields that both hold a time (created_at,
// updated_at: an RFC 3339 timestamp or a date), the later one, ours when
// they are the same instant: of two branches that both touched an entry,
// the later time is the right one.
func laterTime(o, t *fmField) (*fmField, bool) {
	if o == nil || t == nil {
		return nil, false
	}
	to, okO := timeOf(o.node)
	tt, okT := timeOf(t.node)
	switch {
	case !okO || !okT:
		return nil, false
	case tt.After(to):
		return t, true
	}
	return o, true
}

// timeOf reads a scalar that holds a time, quoted or not.
func timeOf(n *yaml.Node) (time.Time, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!str" && n.ShortTag() != "!!timestamp") {
		return time.Time{}, false
	}
	t := entry.ParseTimestamp(strings.TrimSpace(n.Value))
	return t, !t.IsZero()
}

func nodeOf(f *fmField) *yaml.Node {
	if f == nil {
		return nil
	}
	return f.node
}

// mergeValue merges a field both sides changed in different ways, when
// its value allows: a set list as a union, a mapping key by key. The base
// may be missing (the field added on both sides).
func (m *fmMerger) mergeValue(key string, b, o, t *yaml.Node, indent string) (string, bool) {
	if o == nil || t == nil {
		return "", false
	}
	if setFields[key] {
		baseItems, okB := setItems(b)
		oursItems, okO := setItems(o)
		theirsItems, okT := setItems(t)
		if okB && okO && okT {
			return renderYAMLField(indent, key, &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: unionItems(baseItems, oursItems, theirsItems)}), true
		}
	}
	if o.Kind == yaml.MappingNode && t.Kind == yaml.MappingNode && (b == nil || b.Kind == yaml.MappingNode) {
		fields := m.mergeFields(fieldsOf(b), fieldsOf(o), fieldsOf(t), indent+"  ")
		if fields == "" {
			return indent + yamlKey(key) + ": {}\n", true
		}
		return indent + yamlKey(key) + ":\n" + fields, true
	}
	return "", false
}

// setItems reads a list field as items: a YAML list, or a comma-separated
// string as parseFrontmatter's list reads it. A missing or null field is
// empty.
func setItems(n *yaml.Node) ([]*yaml.Node, bool) {
	switch {
	case n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"):
		return nil, true
	case n.Kind == yaml.SequenceNode:
		return n.Content, true
	case n.Kind == yaml.ScalarNode:
		var out []*yaml.Node
		for _, v := range strings.Split(n.Value, ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v})
			}
		}
		return out, true
	}
	return nil, false
}

// unionItems keeps base's items unless a side removed them, and adds both
// sides' new items: ours' list in its order, then theirs' new items.
func unionItems(base, ours, theirs []*yaml.Node) []*yaml.Node {
	set := func(ns []*yaml.Node) map[string]bool {
		s := map[string]bool{}
		for _, n := range ns {
			s[canonicalYAML(n)] = true
		}
		return s
	}
	inBase, inOurs, inTheirs := set(base), set(ours), set(theirs)
	seen := map[string]bool{}
	var out []*yaml.Node
	for _, n := range ours {
		c := canonicalYAML(n)
		if seen[c] || (inBase[c] && !inTheirs[c]) {
			continue
		}
		seen[c] = true
		out = append(out, n)
	}
	for _, n := range theirs {
		c := canonicalYAML(n)
		if seen[c] || inBase[c] || inOurs[c] {
			continue
		}
		seen[c] = true
		out = append(out, n)
	}
	return out
}

// renderYAMLField writes key: value in the style of frontmatterWriter:
// strings double-quoted unless they are simple words written plain, lists
// of values in flow style, mappings as indented blocks.
func renderYAMLField(indent, key string, n *yaml.Node) string {
	prefix := indent + yamlKey(key) + ":"
	switch n.Kind {
	case yaml.MappingNode:
		if len(n.Content) == 0 {
			return prefix + " {}\n"
		}
		var b strings.Builder
		b.WriteString(prefix + "\n")
		for _, f := range fieldsOf(n) {
			b.WriteString(renderYAMLField(indent+"  ", f.key, f.node))
		}
		return b.String()
	case yaml.SequenceNode:
		block := false
		for _, c := range n.Content {
			if c.Kind == yaml.MappingNode && len(c.Content) > 0 {
				block = true
			}
		}
		if !block {
			return prefix + " " + flowYAML(n) + "\n"
		}
		var b strings.Builder
		b.WriteString(prefix + "\n")
		for _, c := range n.Content {
			if c.Kind != yaml.MappingNode || len(c.Content) == 0 {
				b.WriteString(indent + "  - " + flowYAML(c) + "\n")
				continue
			}
			item := ""
			for _, f := range fieldsOf(c) {
				item += renderYAMLField(indent+"    ", f.key, f.node)
			}
			b.WriteString(indent + "  - " + strings.TrimPrefix(item, indent+"    "))
		}
		return b.String()
	}
	return prefix + " " + scalarYAML(n) + "\n"
}

// flowYAML writes n in flow style: [a, b], {k: v}.
func flowYAML(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		items := make([]string, len(n.Content))
		for i, c := range n.Content {
			if c.Kind == yaml.ScalarNode && c.ShortTag() == "!!str" {
				items[i] = yamlfm.FlowItem(c.Value)
			} else {
				items[i] = flowYAML(c)
			}
		}
		return "[" + strings.Join(items, ", ") + "]"
	case yaml.MappingNode:
		var items []string
		for _, f := range fieldsOf(n) {
			items = append(items, yamlKey(f.key)+": "+flowYAML(f.node))
		}
		return "{" + strings.Join(items, ", ") + "}"
	}
	return scalarYAML(n)
}

// scalarYAML writes a scalar so that it reads back with the same tag and
// value.
func scalarYAML(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!str":
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 && yamlfm.FlowItem(n.Value) == n.Value {
			return n.Value
		}
		return yamlfm.Quote(n.Value)
	case "!!null":
		return "null"
	case "!!int", "!!float", "!!bool", "!!timestamp":
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) == 0 && n.Tag == n.ShortTag() && !strings.ContainsAny(n.Value, "\n\r") {
			return n.Value
		}
	}
	return n.ShortTag() + " " + yamlfm.Quote(n.Value)
}

// yamlKey writes a mapping key, quoted when it is not a simple word.
func yamlKey(k string) string {
	if yamlfm.FlowItem(k) == k {
		return k
	}
	return yamlfm.Quote(k)
}

// mergeEntryFile merges a file with YAML frontmatter (mergeFrontmatter).
// A merge without conflicts that the kind's parser refuses, when it
// accepts every side, becomes the line-based merge of the whole file if
// that one is clean and valid, or else one conflict over the whole file.
func mergeEntryFile(path string, base, ours, theirs []byte, labels Labels) ([]byte, int) {
	data, n := mergeFrontmatter(base, ours, theirs, labels)
	if n > 0 || entry.ParsesAs(path, data) || (len(base) > 0 && !entry.ParsesAs(path, base)) || !entry.ParsesAs(path, ours) || !entry.ParsesAs(path, theirs) {
		return data, n
	}
	// Each side is a valid entry and the merge is not (a body emptied by
	// two deletions, say): say so rather than write a broken file.
	if text, n := diff3.Merge(string(base), string(ours), string(theirs), labels); n == 0 && entry.ParsesAs(path, []byte(text)) {
		return []byte(text), 0
	}
	var b strings.Builder
	labels.WriteConflict(&b, string(ours), string(theirs))
	return []byte(b.String()), 1
}

// mergeFrontmatter merges the frontmatter field by field, then the body
// by lines. A side whose frontmatter cannot be taken apart makes it a
// line-based merge of the whole file.
func mergeFrontmatter(base, ours, theirs []byte, labels Labels) ([]byte, int) {
	db, okB := splitFrontmatterDoc(base)
	do, okO := splitFrontmatterDoc(ours)
	dt, okT := splitFrontmatterDoc(theirs)
	if !okB || !okO || !okT || len(ours) == 0 || len(theirs) == 0 {
		text, n := diff3.Merge(string(base), string(ours), string(theirs), labels)
		return []byte(text), n
	}
	m := &fmMerger{labels: labels}
	var out strings.Builder
	out.WriteString(do.head)
	preamble, _, _ := merge3(db.preamble, do.preamble, dt.preamble, true)
	out.WriteString(preamble)
	out.WriteString(m.mergeFields(db.fields, do.fields, dt.fields, ""))
	out.WriteString(do.closing)
	body, _, conflict := merge3(db.body, do.body, dt.body, true)
	if conflict {
		var n int
		body, n = diff3.Merge(db.body, do.body, dt.body, labels)
		m.conflicts += n
	}
	if body != "" && !strings.HasSuffix(do.closing, "\n") {
		out.WriteByte('\n')
	}
	out.WriteString(body)
	return []byte(out.String()), m.conflicts
}
