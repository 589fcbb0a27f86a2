// Package markdown locates the structure of Markdown that lore reads but
// does not own — an agent's output, a progress.txt, a CLAUDE.md, a
// MEMORY.md — with goldmark, CommonMark's parser: its sections under
// their headings, the items of its lists and its code, as byte offsets
// into the source. Nothing is rendered: callers cut what they need out
// of the source as it was written. Where agents write what CommonMark
// reads otherwise (an unclosed fence, indented sigils, Markdown inside a
// tag), lore reads what they mean (newParser). Fence, Closes and
// FenceFor are the same rule for a line, for those who read a line
// format holding fences or write a fence around text they quote.
package markdown

import (
	"bytes"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Range is a stretch of the source: [Start, End).
type Range struct{ Start, End int }

// Of is the stretch of src r covers.
func (r Range) Of(src []byte) []byte { return src[r.Start:r.End] }

// Doc is a parsed Markdown source.
type Doc struct {
	src  []byte
	root ast.Node
}

// newParser is goldmark's CommonMark parser, without extensions (lore
// reads headings, lists and code, which CommonMark defines), with the
// leniencies agents need: fences read as fenceParser says, no indented
// code blocks (indentedText), no HTML blocks of CommonMark's seventh
// kind (htmlBlocks), and no inline HTML: lore reads no HTML, and a tag
// in a paragraph is text (CommonMark lets a tag hide the backticks in
// its attributes from code spans; lore's sigils are found outside of
// Markdown, and a backtick in one's attribute does not hide the tag).
// It is made on first use: a command that reads no
// Markdown pays nothing for it.
var newParser = sync.OnceValue(buildParser)

func buildParser() parser.Parser {
	return parser.NewParser(
		parser.WithBlockParsers( // parser.DefaultBlockParsers, but
			util.Prioritized(parser.NewSetextHeadingParser(), 100),
			util.Prioritized(parser.NewThematicBreakParser(), 200),
			util.Prioritized(parser.NewListParser(), 300),
			util.Prioritized(parser.NewListItemParser(), 400),
			// no NewCodeBlockParser (indented code), 500
			util.Prioritized(parser.NewATXHeadingParser(), 600),
			util.Prioritized(fenceParser{}, 700),
			util.Prioritized(parser.NewBlockquoteParser(), 800),
			util.Prioritized(htmlBlocks{parser.NewHTMLBlockParser()}, 900),
			util.Prioritized(indentedText{parser.NewParagraphParser()}, 1000)),
		parser.WithInlineParsers( // parser.DefaultInlineParsers, but
			util.Prioritized(codeSpans{parser.NewCodeSpanParser()}, 100),
			util.Prioritized(parser.NewLinkParser(), 200),
			util.Prioritized(parser.NewAutoLinkParser(), 300),
			// no NewRawHTMLParser (inline HTML), 400
			util.Prioritized(parser.NewEmphasisParser(), 500)),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
}

// Parse parses src; it never fails (every text is Markdown).
func Parse(src []byte) *Doc {
	return &Doc{src: src, root: newParser().Parse(text.NewReader(src))}
}

// Section is a heading and what follows it up to the next heading of the
// same or a higher level (a smaller number), or the end.
type Section struct {
	Level int
	Title string // the heading's text, its inline markup as written
	// Heading is the heading's line(s); Body what follows, up to the
	// next heading of the same or a higher level.
	Heading, Body Range
}

// Sections are the document's headings, in order, each with its section.
// Headings inside lists, block quotes or code are not sections.
func (d *Doc) Sections() []Section { return d.sections(false) }

// ATXSections are Sections of the headings written with #s alone: in a
// log that separates its entries with "---", a paragraph right above one
// is a setext heading to CommonMark, and an entry's last line, not a
// section of its own.
func (d *Doc) ATXSections() []Section { return d.sections(true) }

func (d *Doc) sections(atxOnly bool) []Section {
	var out []Section
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			// An empty heading ("#" alone) has no lines to place it by:
			// it titles nothing, and stays in the section before it.
			continue
		}
		r := d.blockRange(h)
		if atxOnly && !bytes.HasPrefix(bytes.TrimLeft(r.Of(d.src), " "), []byte("#")) {
			continue
		}
		title := bytes.TrimSpace(d.linesText(h))
		out = append(out, Section{Level: h.Level, Title: string(title), Heading: r, Body: Range{Start: r.End, End: len(d.src)}})
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].Level <= out[i].Level {
				out[i].Body.End = out[j].Heading.Start
				break
			}
		}
	}
	return out
}

// Item is one item of a list: Range is its lines, marker included;
// Content its text without the marker (continuation lines as written).
type Item struct {
	Range
	Content Range
}

// List is one list: its lines and its items.
type List struct {
	Range
	Items []Item
}

// Lists are the outermost lists that begin in r, in order: for a
// section's body, its lists (not those nested in their items); for an
// item's Content, the lists nested in it.
func (d *Doc) Lists(r Range) []List {
	var out []List
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		l, ok := n.(*ast.List)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		lr := d.blockRange(l)
		if lr.Start < r.Start || lr.Start >= r.End {
			return ast.WalkContinue, nil
		}
		lr.End = min(lr.End, r.End)
		list := List{Range: lr}
		for it := l.FirstChild(); it != nil; it = it.NextSibling() {
			ir := d.blockRange(it)
			ir.End = min(ir.End, r.End)
			content := ir
			if first := firstLines(it); first != nil {
				content.Start = first.Lines().At(0).Start
			}
			list.Items = append(list.Items, Item{Range: ir, Content: content})
		}
		out = append(out, list)
		return ast.WalkSkipChildren, nil
	})
	return out
}

// ListItems are the items of Lists(r), in order.
func (d *Doc) ListItems(r Range) []Item {
	var out []Item
	for _, l := range d.Lists(r) {
		out = append(out, l.Items...)
	}
	return out
}

// blockRange is the whole lines a block node covers: from the start of
// the line it begins on to the end of its last line (its line break
// included).
func (d *Doc) blockRange(n ast.Node) Range {
	start, end := -1, -1
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		lines := c.Lines()
		for i := 0; i < lines.Len(); i++ {
			s := lines.At(i)
			if start < 0 || s.Start < start {
				start = s.Start
			}
			if s.Stop > end {
				end = s.Stop
			}
		}
		return ast.WalkContinue, nil
	})
	if start < 0 { // no lines (an empty item): where its parent says it is
		return Range{}
	}
	start = bytes.LastIndexByte(d.src[:start], '\n') + 1
	if end > 0 && d.src[end-1] != '\n' { // to the end of its line
		if i := bytes.IndexByte(d.src[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(d.src)
		}
	}
	return Range{Start: start, End: end}
}

// linesText is a block's own lines, joined as in the source.
func (d *Doc) linesText(n ast.Node) []byte {
	lines := n.Lines()
	if lines.Len() == 0 {
		return nil
	}
	return d.src[lines.At(0).Start:lines.At(lines.Len()-1).Stop]
}

// firstLines is the first block under n that has lines of its own.
func firstLines(n ast.Node) ast.Node {
	var found ast.Node
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			found = c
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return found
}
