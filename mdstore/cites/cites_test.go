package cites

import (
	"strings"
	"testing"
)

const (
	blobA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	blobB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	head  = "cccccccccccccccccccccccccccccccccccccccc"
)

// TestSetAndOf: an entry's citations replace what it cited; lines come
// out sorted, once, under the header.
func TestSetAndOf(t *testing.T) {
	data := Set(nil, "mem-1-aaaa", []Cite{{File: "src/a.go", Lines: "3-9", Blob: blobA, Commit: head}, {File: "src/a.go", Lines: "3-9", Blob: blobA, Commit: head}})
	data = Set(data, "knowledge/k.md", []Cite{{File: "b.go", Blob: blobB}})
	if got := Of(data, "mem-1-aaaa"); len(got) != 1 || got[0].Ref() != "src/a.go:3-9" {
		t.Fatalf("Of: %+v\n%s", got, data)
	}
	data = Set(data, "mem-1-aaaa", []Cite{{File: "c.go", Blob: blobB, Commit: head}})
	want := header + "| knowledge/k.md | b.go | " + blobB + " |  |\n" + "| mem-1-aaaa | c.go | " + blobB + " | " + head + " |\n"
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
}

// TestMergeAsSets: three versions merge as sets of lines, never in
// conflict, the same whichever side is ours.
func TestMergeAsSets(t *testing.T) {
	l := func(key, file, blob string) string {
		return "| " + key + " | " + file + " | " + blob + " | " + head + " |\n"
	}
	base := header + l("mem-1", "a.go", blobA) + l("mem-2", "b.go", blobA)
	ours := header + l("mem-1", "a.go", blobB) + l("mem-2", "b.go", blobA) + l("mem-3", "c.go", blobA) // re-stamped mem-1, added mem-3
	theirs := header + l("mem-1", "a.go", blobA) + l("mem-4", "d.go", blobA)                           // removed mem-2, added mem-4
	want := header + l("mem-1", "a.go", blobB) + l("mem-3", "c.go", blobA) + l("mem-4", "d.go", blobA)
	if got := string(Merge([]byte(base), []byte(ours), []byte(theirs))); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := string(Merge([]byte(base), []byte(theirs), []byte(ours))); got != want {
		t.Errorf("the other way:\n%s", got)
	}
}

// TestParseProblems: a line lore cannot read is named with its number.
func TestParseProblems(t *testing.T) {
	_, problems := Parse([]byte(header + "| mem-1 | a.go |\n" + "| mem-2 | a.go | nothex |  |\n" + "| mem-3 | a\\|b.go | " + blobA + " |  |\n"))
	lines, _ := Parse([]byte(header + "| mem-3 | a\\|b.go | " + blobA + " |  |\n"))
	if len(lines) != 1 || lines[0].File != "a|b.go" {
		t.Errorf("an escaped |: %+v", lines)
	}
	if len(problems) != 2 || problems[0].Line != 7 || problems[1].Line != 8 || !strings.Contains(problems[1].Msg, "40 hex") {
		t.Errorf("%+v", problems)
	}
}
