package mdstore

import (
	"strings"
	"testing"

	"lore/mdstore/entry"
)

// TestReplaceMemoryKeepsTheRestOfTheFile: replace-memory rewrites only
// the block of its id, in place, keeps CR LF line ends and the prose
// around it, moves the block when its type changed, does nothing when
// the id is gone, and is idempotent (a queued change may be applied to a
// HEAD that holds it already).
func TestReplaceMemoryKeepsTheRestOfTheFile(t *testing.T) {
	file := "# Memories\n\nOur notes.\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n" +
		"### mem-1737372000-a1b2\n> old\n<!-- tags: a | created: 2025-01-20 -->\n\n" +
		"### mem-1737372001-c3d4\n> other\n<!-- tags:  | created: 2025-01-20 -->\n\n## Context\n"
	edited := entry.Memory{ID: "mem-1737372000-a1b2", Type: entry.Fix, Content: "new\n\nlines", Tags: []string{"a", "b"}, Created: "2025-01-20"}
	want := strings.Replace(file, "> old\n<!-- tags: a |", "> new\n>\n> lines\n<!-- tags: a, b |", 1)
	apply := func(old string, m entry.Memory) string {
		out, keep, err := Edit{Path: entry.MemoriesPath, Op: OpReplaceMemory, Memory: &m}.checked([]byte(old), true)
		if err != nil || !keep {
			t.Fatalf("apply: %v %v", keep, err)
		}
		return string(out)
	}
	if got := apply(file, edited); got != want {
		t.Errorf("in place:\n%s\nwant:\n%s", got, want)
	}
	if got := apply(want, edited); got != want {
		t.Errorf("applied twice:\n%s", got)
	}
	crlf := strings.ReplaceAll(file, "\n", "\r\n")
	if got := apply(crlf, edited); got != strings.ReplaceAll(want, "\n", "\r\n") {
		t.Errorf("CR LF:\n%q", got)
	}
	moved := edited
	moved.Type = entry.Decision
	got := apply(file, moved)
	if strings.Count(got, moved.ID) != 1 || !strings.Contains(got, "## Decisions\n\n### "+moved.ID) || !strings.Contains(got, "Our notes.") {
		t.Errorf("moved:\n%s", got)
	}
	gone := edited
	gone.ID = "mem-1737372999-ffff"
	if got := apply(file, gone); got != file {
		t.Errorf("an id no block has changed the file:\n%s", got)
	}
}
