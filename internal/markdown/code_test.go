package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// TestCode shows each stretch of code a text holds: a block as
// "block:" and its lines, a span as written.
func TestCode(t *testing.T) {
	fence := "```"
	cases := []struct {
		name, src string
		want      []string
	}{
		// CommonMark
		{"a fenced block", "text\n" + fence + "go\nx := 1\n" + fence + "\nafter\n", []string{"block:```go\nx := 1\n```\n"}},
		{"a tilde fence", "~~~\n<x>\n~~~", []string{"block:~~~\n<x>\n~~~"}},
		{"a longer fence holds a shorter one", "````\n```\n<x>\n```\n````\n", []string{"block:````\n```\n<x>\n```\n````\n"}},
		{"a fence closed by a longer run", "```\na\n`````\n", []string{"block:```\na\n`````\n"}},
		{"a fence interrupts a paragraph", "para\n```\ncode\n```\n", []string{"block:```\ncode\n```\n"}},
		{"an empty fenced block", "```\n```\n", []string{"block:```\n```\n"}},
		{"a backtick fence's info holds no backtick", "``` a`b\nx\n```\n", []string{"``` a`b\nx\n```"}},
		{"a quoted fence", "> ```\n> <x>\n> ```\n", []string{"block:> ```\n> <x>\n> ```\n"}},
		{"a fence in a list item", "- item\n\n  ```\n  <x>\n  ```\n- next\n", []string{"block:  ```\n  <x>\n  ```\n"}},
		{"a fence on a list item's first line", "1. ```\n   <x>\n   ```\n", []string{"block:1. ```\n   <x>\n   ```\n"}},
		{"a code span", "a `<x>` b", []string{"`<x>`"}},
		{"a code span of two backticks", "a `` `<x>` `` b", []string{"`` `<x>` ``"}},
		{"a span over lines", "a `b\nc` d", []string{"`b\nc`"}},
		{"a run no run of its length closes", "a ``b` c", nil},
		{"spans in a heading and a list", "# `h`\n- `i`\n", []string{"`h`", "`i`"}},
		{"a span in emphasis and a link", "*`e`* [`l`](u)", []string{"`e`", "`l`"}},
		{"runs nothing closes, then a span", "``` a ```` b `` c ` d `` e ```` ", []string{"```` b `` c ` d `` e ````"}},
		{"an escaped backtick opens nothing", "\\`a` b`", []string{"` b`"}},
		{"an opener after an escaped backtick", "\\`` a ` b", []string{"` a `"}},
		{"no span across paragraphs", "a `b\n\nc` d", nil},
		{"a backslash does not escape in code", "`a\\`b`", []string{"`a\\`"}},
		// The leniencies
		{"an unclosed fence is text", "```\n<x> `y`\n", []string{"`y`"}},
		{"an unclosed fence, then a closed one", "~~~\na\n```\nb\n```\n", []string{"block:```\nb\n```\n"}},
		{"a fence indented four spaces", "text\n\n    ```\n    <x>\n    ```\n", []string{"block:    ```\n    <x>\n    ```\n"}},
		{"a closing fence indented any amount", "```\n<x>\n        ```\n", []string{"block:```\n<x>\n        ```\n"}},
		{"indented text is text", "text\n\n    <x> `y`\n", []string{"`y`"}},
		{"a quote that ends before its fence closes", "> ```\n> <x>\n\n```\n", nil},
		{"a tag alone on a line starts no HTML block", "<journal>\n```\n<x>\n```\n</journal>\n", []string{"block:```\n<x>\n```\n"}},
		{"a tag is text: its attribute holds no code", "<a title=\"`\">x`</a>", []string{"`\">x`"}},
		{"a closing textarea tag is text", "</textarea>\n```\n<x>\n```\n", []string{"block:```\n<x>\n```\n"}},
		{"an HTML block of a block element is HTML", "<div>\n```\n<x>\n```\n</div>\n", nil},
		{"a fence that ends a list item's unclosed one", "- ```\n  a\n```\nb\n```\n", []string{"block:```\nb\n```\n"}},
		{"a fence that ends a quote's unclosed one", "> ```\n> a\n```\nb\n```\n> ```\n", []string{"block:```\nb\n```\n"}},
		{"an HTML comment is HTML", "<!--\n```\n<x>\n```\n-->\n", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Parse([]byte(c.src))
			var got []string
			for _, code := range d.Code() {
				s := string(code.Of(d.src))
				if code.Block {
					s = "block:" + s
				}
				got = append(got, s)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", c.want) {
				t.Errorf("code of %q:\n got %q\nwant %q", c.src, got, c.want)
			}
		})
	}
}

// BenchmarkCodeRuns reads a megabyte paragraph of backtick runs that
// close nothing, each of another length: goldmark's own code span parser
// takes seconds (it reads the rest of the block for each).
func BenchmarkCodeRuns(b *testing.B) {
	var sb strings.Builder
	for k := 1; sb.Len() < 1<<20; k++ {
		sb.WriteString(strings.Repeat("`", k) + " a ")
	}
	src := []byte(sb.String())
	b.SetBytes(int64(len(src)))
	for i := 0; i < b.N; i++ {
		Parse(src).Code()
	}
}

// FuzzCode checks what every text's code is: stretches of the source in
// order, not overlapping; a block from the start of a line, a span from
// backtick to backtick.
func FuzzCode(f *testing.F) {
	f.Add(progress)
	f.Add("> ```\n> a\n```\nb\n```\n- ```\n  <x>\n\t```\n`` a ` b ``")
	f.Add("<journal>\n~~~\n`x`\n~~~\n</journal>\n<!--\n```\n-->\n    ```\n")
	f.Fuzz(func(t *testing.T, src string) {
		d := Parse([]byte(src))
		end := 0
		for _, c := range d.Code() {
			if c.Start < end || c.End <= c.Start || c.End > len(src) {
				t.Fatalf("code %+v after %d in %d bytes", c, end, len(src))
			}
			if c.Block && c.Start > 0 && src[c.Start-1] != '\n' || !c.Block && (src[c.Start] != '`' || src[c.End-1] != '`') {
				t.Fatalf("code %+v is %q", c, src[c.Start:c.End])
			}
			end = c.End
		}
	})
}
