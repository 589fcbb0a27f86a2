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
	node   ast.Node
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
	node := ast.NewFencedCodeBlock(nil)
	pc.Set(openFenceKey, &openFence{char: char, length: n, node: node})
	return node, parser.NoChildren
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

// Close forgets the fence, unless a fence opened since (on the line that
// ended this one's container) is the one being read.
func (fenceParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {
	if f, ok := pc.Get(openFenceKey).(*openFence); ok && f.node == node {
		pc.Set(openFenceKey, nil)
	}
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
// seventh kind: a line that is only a tag of another name than HTML's
// block elements (<journal>, <instructions>) starts no HTML block, so
// the Markdown after it is read as Markdown (agents and CLAUDE.md files
// wrap Markdown in such tags). Only a line that can start one of the
// other kinds — a comment, a declaration, an instruction, or a tag of
// blockTags — reaches goldmark's regular expressions, which would cost a
// megabyte-long line of tags more than the rest of the parse.
type htmlBlocks struct{ parser.BlockParser }

func (h htmlBlocks) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	if pos := pc.BlockOffset(); pos < 0 || !blockTagAt(line[pos:]) {
		return nil, parser.NoChildren
	}
	at, pos := reader.Position()
	n, state := h.BlockParser.Open(parent, reader, pc)
	if b, ok := n.(*ast.HTMLBlock); ok && b.HTMLBlockType == ast.HTMLBlockType7 { // </textarea>
		reader.SetPosition(at, pos)
		return nil, parser.NoChildren
	}
	return n, state
}

// blockTagAt reports whether line (from its '<') can start an HTML block
// of CommonMark's kinds 1 to 6: "<!", "<?", or an opening or closing tag
// of blockTags.
func blockTagAt(line []byte) bool {
	if len(line) < 2 || line[0] != '<' {
		return false
	}
	if line[1] == '!' || line[1] == '?' {
		return true
	}
	name := line[1:]
	if name[0] == '/' {
		name = name[1:]
	}
	n := 0
	for n < len(name) && n <= 10 && (name[n] >= 'a' && name[n] <= 'z' || name[n] >= 'A' && name[n] <= 'Z' || name[n] >= '0' && name[n] <= '9') {
		n++
	}
	return blockTags[string(bytes.ToLower(name[:n]))]
}

// blockTags are the HTML elements whose tags start an HTML block in
// CommonMark (kinds 1 and 6).
var blockTags = map[string]bool{
	"script": true, "pre": true, "style": true, "textarea": true,
	"address": true, "article": true, "aside": true, "base": true, "basefont": true, "blockquote": true,
	"body": true, "caption": true, "center": true, "col": true, "colgroup": true, "dd": true,
	"details": true, "dialog": true, "dir": true, "div": true, "dl": true, "dt": true,
	"fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true, "frame": true,
	"frameset": true, "h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"head": true, "header": true, "hr": true, "html": true, "iframe": true, "legend": true,
	"li": true, "link": true, "main": true, "menu": true, "menuitem": true, "meta": true,
	"nav": true, "noframes": true, "ol": true, "optgroup": true, "option": true, "p": true,
	"param": true, "search": true, "section": true, "summary": true, "table": true, "tbody": true,
	"td": true, "tfoot": true, "th": true, "thead": true, "title": true, "tr": true,
	"track": true, "ul": true,
}

// codeSpans is goldmark's code span parser made linear. An opening run
// of n backticks is closed by the next run of exactly n in its block;
// goldmark looks for it by reading the rest of the block, so a block of
// runs that close nothing, each of another length, costs the square
// root of its length times its length (seconds for a megabyte). Here the
// block's runs are indexed by length once, an opener that nothing closes
// is text at once, and goldmark reads only up to the closer it will find:
// spans do not overlap, so it reads each byte at most once.
type codeSpans struct{ parser.InlineParser }

// blockRuns are the runs of backticks of one block: for each length, the
// offsets in the source where runs of that length start, ascending.
type blockRuns struct {
	first int // the offset of the block's first line: which block
	byLen map[int][]int
}

var blockRunsKey = parser.NewContextKey()

func (c codeSpans) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, segment := block.PeekLine()
	n := 0
	for n < len(line) && line[n] == '`' {
		n++
	}
	starts := runsOf(block, pc).byLen[n]
	if i := sort.SearchInts(starts, segment.Start+1); i == len(starts) {
		block.Advance(n)
		return ast.NewTextSegment(segment.WithStop(segment.Start + n))
	}
	return c.InlineParser.Parse(parent, block, pc)
}

// runsOf indexes the runs of the block being read, once per block.
func runsOf(block text.Reader, pc parser.Context) *blockRuns {
	at, pos := block.Position()
	block.ResetPosition()
	_, first := block.PeekLine()
	if r, ok := pc.Get(blockRunsKey).(*blockRuns); ok && r.first == first.Start {
		block.SetPosition(at, pos)
		return r
	}
	r := &blockRuns{first: first.Start, byLen: map[int][]int{}}
	for {
		line, seg := block.PeekLine()
		if line == nil {
			break
		}
		for i := 0; i < len(line); {
			if line[i] != '`' {
				i++
				continue
			}
			j := i
			for j < len(line) && line[j] == '`' {
				j++
			}
			r.byLen[j-i] = append(r.byLen[j-i], seg.Start+i)
			i = j
		}
		block.AdvanceLine()
	}
	block.SetPosition(at, pos)
	pc.Set(blockRunsKey, r)
	return r
}
