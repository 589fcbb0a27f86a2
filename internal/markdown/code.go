package markdown

import (
	"bytes"
	"sort"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Code is a stretch of code in the source: a fenced code block (its
// whole lines, fences included) or an inline code span (its backticks
// included).
type Code struct {
	Range
	Block bool // a fenced code block; false for an inline code span
}

// Code is the code of the document, in order. It is CommonMark's, read
// with the leniencies agents need (see newParser): a fence that is never
// closed is not code, a fence may be indented any amount, and text that
// is only indented is text, not an indented code block.
func (d *Doc) Code() []Code {
	var out []Code
	_ = ast.Walk(d.root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			if end, ok := n.AttributeString(closedAt); ok && n.Pos() >= 0 {
				start := bytes.LastIndexByte(d.src[:n.Pos()], '\n') + 1
				out = append(out, Code{Range: Range{Start: start, End: end.(int)}, Block: true})
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			if r, ok := d.spanRange(n); ok {
				out = append(out, Code{Range: r})
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// spanRange is a code span with its backticks: from the opening run
// (the node's position) to the end of the closing run of as many, which
// follows its last text at most a space or line break later.
func (d *Doc) spanRange(n *ast.CodeSpan) (Range, bool) {
	start := n.Pos()
	if start < 0 || start >= len(d.src) || d.src[start] != '`' {
		return Range{}, false
	}
	opener := 0
	for start+opener < len(d.src) && d.src[start+opener] == '`' {
		opener++
	}
	from := start + opener
	if last, ok := n.LastChild().(*ast.Text); ok {
		from = last.Segment.Stop
	}
	i := bytes.IndexByte(d.src[from:], '`')
	if i < 0 {
		return Range{}, false
	}
	return Range{Start: start, End: from + i + opener}, true
}

// closedAt is the attribute of a fenced code block that holds the end of
// its closing fence's line; a block without it was never closed.
const closedAt = "lore-closed-at"

// fenceParser reads fenced code blocks as goldmark's does, with the
// leniencies agents need. A fence is a line of three or more backticks
// or tildes (a backtick fence's info string holds no backtick), indented
// any amount (fences in list items an agent indented loosely); a line
// of the same character, at least as long and alone on its line,
// indented any amount, closes it. A fence opens only when such a line
// follows somewhere in the source (quoted or not): an agent that forgot
// to close a fence still means what follows it, so an unclosed fence is
// text. A fence its container ends before it is closed (a quote, a list
// item) has no closedAt, and is not code either.
type fenceParser struct{}

// openFence is the fence being read: its character and length.
type openFence struct {
	char   byte
	length int
}

var (
	openFenceKey = parser.NewContextKey()
	closersKey   = parser.NewContextKey()
)

func (fenceParser) Trigger() []byte { return []byte{'`', '~'} }

func (fenceParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, segment := reader.PeekLine()
	pos := pc.BlockOffset()
	if pos < 0 {
		return nil, parser.NoChildren
	}
	char, n, _ := fenceRun(line[pos:])
	if n == 0 || !closers(pc, reader.Source()).after(segment.Stop, char, n) {
		return nil, parser.NoChildren
	}
	pc.Set(openFenceKey, &openFence{char: char, length: n})
	return ast.NewFencedCodeBlock(nil), parser.NoChildren
}

func (fenceParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, segment := reader.PeekLine()
	f := pc.Get(openFenceKey).(*openFence)
	if char, n, bare := fenceRun(bytes.TrimLeft(line, " \t")); bare && char == f.char && n >= f.length {
		node.SetAttributeString(closedAt, segment.Stop)
		reader.AdvanceToEOL()
		return parser.Close
	}
	seg := text.NewSegment(segment.Start, segment.Stop)
	seg.ForceNewline = true
	node.Lines().Append(seg)
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

func (fenceParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	pc.Set(openFenceKey, nil)
}

func (fenceParser) CanInterruptParagraph() bool { return true }
func (fenceParser) CanAcceptIndentedLine() bool { return true }

// closerLines are the lines of a source that could close a fence, quoted
// or indented: for each fence character, the lines' offsets and the
// longest run at each of them or later. Found once per parse.
type closerLines [2]struct {
	at      []int // the offset of each line's start, ascending
	longest []int // the longest run of the lines from i on
}

func closers(pc parser.Context, src []byte) *closerLines {
	if c, ok := pc.Get(closersKey).(*closerLines); ok {
		return c
	}
	var c closerLines
	runs := [2][]int{}
	for start := 0; start < len(src); {
		end := bytes.IndexByte(src[start:], '\n') + 1
		if end == 0 {
			end = len(src) - start
		}
		if char, n, bare := fenceRun(bytes.TrimLeft(src[start:start+end], " \t>")); bare {
			k := charIndex(char)
			c[k].at = append(c[k].at, start)
			runs[k] = append(runs[k], n)
		}
		start += end
	}
	for k := range c {
		c[k].longest = make([]int, len(runs[k])+1)
		for i := len(runs[k]) - 1; i >= 0; i-- {
			c[k].longest[i] = max(c[k].longest[i+1], runs[k][i])
		}
	}
	pc.Set(closersKey, &c)
	return &c
}

// after reports whether a line starting at offset from or later closes a
// fence of n chars.
func (c *closerLines) after(from int, char byte, n int) bool {
	k := charIndex(char)
	i := sort.SearchInts(c[k].at, from)
	return c[k].longest[i] >= n
}

func charIndex(char byte) int {
	if char == '~' {
		return 1
	}
	return 0
}

// indentedText is goldmark's paragraph parser, but a paragraph may start
// with an indented line: with no indented code blocks, text that is only
// indented is text (an agent's indented lines are prose and sigils, and
// its code is fenced).
type indentedText struct{ parser.BlockParser }

func (indentedText) CanAcceptIndentedLine() bool { return true }

// htmlBlocks is goldmark's HTML block parser without CommonMark's
// seventh kind: a line that is only a tag of any other name than HTML's
// block elements (<journal>, <instructions>) starts no HTML block, so
// the Markdown after it, up to the next blank line, is read as Markdown.
// Agents and CLAUDE.md files wrap Markdown in such tags.
type htmlBlocks struct{ parser.BlockParser }

func (h htmlBlocks) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, pos := reader.Position()
	n, state := h.BlockParser.Open(parent, reader, pc)
	if b, ok := n.(*ast.HTMLBlock); ok && b.HTMLBlockType == ast.HTMLBlockType7 {
		reader.SetPosition(line, pos)
		return nil, parser.NoChildren
	}
	return n, state
}
