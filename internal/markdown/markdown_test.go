package markdown

import (
	"fmt"
	"strings"
	"testing"
)

const progress = `# Ralph Progress Log
Started: 2026-01-10

## Codebase Patterns
- Use ` + "`sql<number>`" + ` for aggregations
- Always run migrations
  before the tests

## 2026-01-10 - US-001
- What was implemented: the login form
- Files changed: src/login.tsx
- **Learnings for future iterations:**
  - The form library needs a key per field
  - ` + "`npm test`" + ` needs the mock server
---

` + "```" + `
## not a heading
- not an item
` + "```" + `
`

func TestSections(t *testing.T) {
	d := Parse([]byte(progress))
	var got []string
	for _, s := range d.Sections() {
		got = append(got, fmt.Sprintf("%d %q heading=%q body-starts=%q body-ends=%q", s.Level, s.Title,
			s.Heading.Of(d.src), firstLine(string(s.Body.Of(d.src))), lastLine(string(s.Body.Of(d.src)))))
	}
	want := []string{
		`1 "Ralph Progress Log" heading="# Ralph Progress Log\n" body-starts="Started: 2026-01-10" body-ends="` + "```" + `"`,
		`2 "Codebase Patterns" heading="## Codebase Patterns\n" body-starts="- Use ` + "`sql<number>`" + ` for aggregations" body-ends=""`,
		`2 "2026-01-10 - US-001" heading="## 2026-01-10 - US-001\n" body-starts="- What was implemented: the login form" body-ends="` + "```" + `"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestListItems(t *testing.T) {
	d := Parse([]byte(progress))
	secs := d.Sections()
	var got []string
	for _, it := range d.ListItems(secs[1].Body) {
		got = append(got, string(it.Content.Of(d.src)))
	}
	want := []string{"Use `sql<number>` for aggregations\n", "Always run migrations\n  before the tests\n"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("items %q, want %q", got, want)
	}
	items := d.ListItems(secs[2].Body)
	if len(items) != 3 {
		t.Fatalf("%d items in the entry, want 3", len(items))
	}
	var nested []string
	for _, it := range d.ListItems(items[2].Content) {
		nested = append(nested, string(it.Content.Of(d.src)))
	}
	if want := []string{"The form library needs a key per field\n", "`npm test` needs the mock server\n"}; strings.Join(nested, "|") != strings.Join(want, "|") {
		t.Errorf("nested items %q, want %q", nested, want)
	}
	if got := string(items[2].Range.Of(d.src)); !strings.HasPrefix(got, "- **Learnings") || !strings.HasSuffix(got, "mock server\n") {
		t.Errorf("item 3 is %q", got)
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
func lastLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// TestATXSections: a paragraph over "---" is a setext heading to
// CommonMark; ATXSections leaves it in the section above.
func TestATXSections(t *testing.T) {
	src := []byte("## One\nTool: claude\n---\n## Two\ntext\n")
	d := Parse(src)
	if n := len(d.Sections()); n != 3 {
		t.Errorf("%d sections, want 3 (one setext)", n)
	}
	atx := d.ATXSections()
	if len(atx) != 2 || string(atx[0].Body.Of(src)) != "Tool: claude\n---\n" {
		t.Errorf("ATX sections: %+v", atx)
	}
}

// BenchmarkBuildParser is what the first Parse of a process pays once.
func BenchmarkBuildParser(b *testing.B) {
	for i := 0; i < b.N; i++ {
		buildParser()
	}
}

// TestEmptyHeading: a heading with no text ("#" alone) has no lines in
// goldmark's tree; it ended the section before it at offset 0, a range
// that ran backwards (found by lifecycle's FuzzMarkdownSections).
func TestEmptyHeading(t *testing.T) {
	src := []byte("# 0\n#\n\n## A\n\ntext\n")
	d := Parse(src)
	var got []string
	for _, s := range d.Sections() {
		if s.Body.Start > s.Body.End || s.Heading.Start > s.Heading.End {
			t.Fatalf("section %q runs backwards: %+v", s.Title, s)
		}
		got = append(got, fmt.Sprintf("%q=%q", s.Title, s.Body.Of(src)))
	}
	if want := []string{`"0"="#\n\n## A\n\ntext\n"`, `"A"="\ntext\n"`}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("sections %v, want %v", got, want)
	}
}
