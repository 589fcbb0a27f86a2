package yamlfm

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// The frontmatter lore writes, and most a person writes by hand, is a few
// "key: value" lines: words, numbers, double-quoted strings without
// escapes, and flow lists of words. Reading 90,000 such files through
// adrg/frontmatter and yaml.v3 took a third of a full read of the store
// (the first search in a fresh clone, an index build). fastFrontmatter
// reads exactly that subset into the nodes yaml.v3 would make — checked
// against yaml.v3 by FuzzFastFrontmatter — and declines anything else,
// which Parse then reads with yaml.v3 as before.

// fastFrontmatter returns the frontmatter of text (which starts with the
// "---" line) as yaml.v3 decodes it, and the body after the closing
// "---" line; ok is false when text is not in the subset. The nodes'
// strings are slices of text, and the nodes come from one slab.
func fastFrontmatter(text string) (node yaml.Node, body string, ok bool) {
	rest, found := strings.CutPrefix(text, "---\n")
	if !found {
		return yaml.Node{}, "", false
	}
	// As many nodes as the frontmatter can need, in one block: the
	// mapping, a key and a value per line, an item per list element.
	head := rest
	if end := strings.Index(rest, "\n---"); end >= 0 {
		head = rest[:end+1]
	}
	slab := make(nodeSlab, 0, 1+2*strings.Count(head, "\n")+strings.Count(head, ", ")+strings.Count(head, "["))
	mapping := slab.node()
	*mapping = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: 1, Column: 1}
	for line := 1; ; line++ {
		end := strings.IndexByte(rest, '\n')
		field := rest
		if end >= 0 {
			field = rest[:end]
		}
		if field == "---" {
			if len(mapping.Content) == 0 {
				return yaml.Node{}, "", false
			}
			if end >= 0 {
				body = rest[end+1:]
			}
			return yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{mapping}}, body, true
		}
		if end < 0 {
			return yaml.Node{}, "", false // not closed: yaml.v3 says so
		}
		key, value, ok := fastField(&slab, field, line)
		if !ok {
			return yaml.Node{}, "", false
		}
		mapping.Content = append(mapping.Content, key, value)
		rest = rest[end+1:]
	}
}

// nodeSlab hands out yaml.Nodes from blocks: a file's frontmatter is a
// few dozen nodes, one allocation rather than one each. An exhausted
// block is followed by another (the nodes handed out stay where they
// are).
type nodeSlab []yaml.Node

func (s *nodeSlab) node() *yaml.Node {
	if len(*s) == cap(*s) {
		*s = make([]yaml.Node, 0, 32)
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

// fastField reads one "key: value" line, the line-th of the frontmatter.
func fastField(slab *nodeSlab, text string, line int) (key, value *yaml.Node, ok bool) {
	name, v, found := strings.Cut(text, ": ")
	if !found || !fastKey(name) {
		return nil, nil, false
	}
	column := len(name) + 3
	key = slab.node()
	*key = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name, Line: line, Column: 1}
	switch {
	case strings.HasPrefix(v, "["):
		value, ok = fastList(slab, v, line, column)
	case strings.HasPrefix(v, `"`):
		inner, closed := strings.CutSuffix(v[1:], `"`)
		if !closed || !fastQuoted(inner) {
			return nil, nil, false
		}
		value, ok = slab.node(), true
		*value = yaml.Node{Kind: yaml.ScalarNode, Style: yaml.DoubleQuotedStyle, Tag: "!!str", Value: inner, Line: line, Column: column}
	default:
		var tag string
		if tag, ok = fastPlain(v, false); ok {
			value = slab.node()
			*value = yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v, Line: line, Column: column}
		}
	}
	return key, value, ok
}

// fastList reads a flow list of plain words, "[a, b]" or "[]".
func fastList(slab *nodeSlab, v string, line, column int) (*yaml.Node, bool) {
	inner, closed := strings.CutSuffix(v[1:], "]")
	if !closed {
		return nil, false
	}
	list := slab.node()
	*list = yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Tag: "!!seq", Line: line, Column: column}
	if inner == "" {
		return list, true
	}
	list.Content = make([]*yaml.Node, 0, strings.Count(inner, ", ")+1)
	at := column + 1
	for item := range strings.SplitSeq(inner, ", ") {
		tag, ok := fastPlain(item, true)
		if !ok {
			return nil, false
		}
		n := slab.node()
		*n = yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: item, Line: line, Column: at}
		list.Content = append(list.Content, n)
		at += len(item) + 2
	}
	return list, true
}

// fastKey reports whether name is a key of letters, digits and '_'
// starting with a letter, short enough for YAML to read it as a key
// without a "?" (an implicit key ends within 1024 characters).
func fastKey(name string) bool {
	return name != "" && len(name) <= 1000 && isLetter(name[0]) && !yamlWord(name) &&
		all(name, func(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' })
}

// fastPlain reports whether v is a plain scalar of the subset and the tag
// yaml.v3 gives it: a word that starts with a letter and holds letters,
// digits and "-_./@+" (inFlow: no ',' either; otherwise also single
// spaces between words), which is a string unless YAML reads it as a
// boolean or null; a decimal integer without leading zeros (!!int); or
// digits, a point and digits (!!float).
func fastPlain(v string, inFlow bool) (tag string, ok bool) {
	switch {
	case v == "":
		return "", false
	case isDigit(v[0]):
		whole, frac, point := strings.Cut(v, ".")
		if !all(whole, isDigit) || (len(whole) > 1 && whole[0] == '0') {
			return "", false
		}
		if !point {
			return "!!int", len(whole) <= 18
		}
		return "!!float", frac != "" && all(frac, isDigit)
	case !isLetter(v[0]) || v[len(v)-1] == ' ' || strings.Contains(v, "  ") || yamlWord(v):
		return "", false
	}
	word := all(v, func(c byte) bool {
		return isLetter(c) || isDigit(c) || strings.IndexByte("-_./@+", c) >= 0 || (c == ' ' && !inFlow)
	})
	if !word {
		return "", false
	}
	return "!!str", true
}

// yamlWord reports whether a plain word may mean something else than a
// string to a YAML reader (a boolean or null, in YAML 1.1 or 1.2).
func yamlWord(v string) bool {
	if len(v) > len("false") {
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~":
		return true
	}
	return false
}

// fastQuoted reports whether s, between double quotes, means itself:
// printable, without '"' or '\'.
func fastQuoted(s string) bool {
	for _, r := range s {
		if r < ' ' || r == '"' || r == '\\' || r == 0x7f || r == '\uFFFD' || (r >= 0x80 && r <= 0x9f) || r == '\u2028' || r == '\u2029' || r == '\uFEFF' {
			return false
		}
	}
	return true
}
