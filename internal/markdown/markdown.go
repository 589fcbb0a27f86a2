// Package markdown locates the structure of Markdown that lore reads but
// does not own — an agent's output, a progress.txt, a CLAUDE.md, a
// MEMORY.md — with goldmark, CommonMark's parser: its sections under
// their headings and the items of its lists, as byte offsets into the
// source. Nothing is rendered: callers cut what they need out of the
// source as it was written.
package markdown

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
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

// md is goldmark's CommonMark parser, without extensions: lore reads
// headings, lists and code, which CommonMark defines.
var md = goldmark.New()

// Parse parses src; it never fails (every text is Markdown).
func Parse(src []byte) *Doc {
	return &Doc{src: src, root: md.Parser().Parse(text.NewReader(src))}
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
func (d *Doc) Sections() []Section {
	var out []Section
	for n := d.root.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Lines().Len() == 0 {
			// An empty heading ("#" alone) has no lines to place it by:
			// it titles nothing, and stays in the section before it.
			continue
		}
		r := d.blockRange(h)
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

// ListItems are the items of the outermost lists that begin in r: for a
// section's body, its lists (not those nested in their items); for an
// item's Content, the lists nested in it.
func (d *Doc) ListItems(r Range) []Item {
	var out []Item
	in := func(n ast.Node) bool { lr := d.blockRange(n); return lr.Start >= r.Start && lr.Start < r.End }
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		l, ok := n.(*ast.List)
		if !entering || !ok || !in(l) {
			return ast.WalkContinue, nil
		}
		for it := l.FirstChild(); it != nil; it = it.NextSibling() {
			ir := d.blockRange(it)
			if ir.End > r.End {
				ir.End = r.End
			}
			content := ir
			if first := firstLines(it); first != nil {
				content.Start = first.Lines().At(0).Start
			}
			out = append(out, Item{Range: ir, Content: content})
		}
		return ast.WalkSkipChildren, nil
	})
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
