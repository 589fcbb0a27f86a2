package markdown

import (
	"fmt"
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
		{"no span across paragraphs", "a `b\n\nc` d", nil},
		{"a backslash does not escape in code", "`a\\`b`", []string{"`a\\`"}},
		{"an escaped backtick opens nothing", "\\`a` b`", []string{"` b`"}},
		{"no code in a tag's attribute", "<a title=\"`\">x`</a>", nil},
		// The leniencies
		{"an unclosed fence is text", "```\n<x> `y`\n", []string{"`y`"}},
		{"an unclosed fence, then a closed one", "~~~\na\n```\nb\n```\n", []string{"block:```\nb\n```\n"}},
		{"a fence indented four spaces", "text\n\n    ```\n    <x>\n    ```\n", []string{"block:    ```\n    <x>\n    ```\n"}},
		{"a closing fence indented any amount", "```\n<x>\n        ```\n", []string{"block:```\n<x>\n        ```\n"}},
		{"indented text is text", "text\n\n    <x> `y`\n", []string{"`y`"}},
		{"a tag alone on a line starts no HTML block", "<journal>\n```\n<x>\n```\n</journal>\n", []string{"block:```\n<x>\n```\n"}},
		{"a quote that ends before its fence closes", "> ```\n> <x>\n\n```\n", nil},
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
