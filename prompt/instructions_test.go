package prompt

import (
	"strings"
	"testing"

	"lore/mdstore/entry"
	"lore/sigils"
)

// TestEchoedInstructionsAreNotSigils: an agent that repeats the
// instructions — as written, or rendered without their backticks, as an
// agent CLI echoing its prompt shows them — reports nothing, and lore
// ingest makes nothing of them.
func TestEchoedInstructionsAreNotSigils(t *testing.T) {
	text := Instructions(true, true, nil)
	for name, echo := range map[string]string{"as written": text, "rendered": strings.ReplaceAll(text, "`", ""),
		"without learn, rendered": strings.ReplaceAll(Instructions(false, true, nil), "`", "")} {
		r := sigils.Parse(echo)
		if !r.Empty() || len(r.Skipped) > 0 || len(r.Overruled) > 0 {
			t.Errorf("%s: %+v", name, r)
		}
		if name != "without learn, rendered" && len(r.Ignored) < len(sigils.Examples) {
			t.Errorf("%s: only %d tags ignored: %+v", name, len(r.Ignored), r.Ignored)
		}
	}
}

// TestMultiLineNotesStayABlock: a note of several lines keeps its lines
// and its code fence in the Run Journal, indented into the list item.
func TestMultiLineNotesStayABlock(t *testing.T) {
	notes := "Split the write path:\n\n1. plan\n2. commit\n\n```go\nfunc f() {\n\treturn\n}\n```"
	got := JournalBlock(entry.JournalEntry{Iteration: 3, Outcome: "done", Notes: notes})
	want := "- **Notes**:\n\n  Split the write path:\n\n  1. plan\n  2. commit\n\n  ```go\n  func f() {\n  \treturn\n  }\n  ```\n"
	if !strings.HasSuffix(got, want) {
		t.Fatalf("got:\n%s", got)
	}
	if got := JournalBlock(entry.JournalEntry{Iteration: 3, Outcome: "done", Notes: "One line."}); !strings.HasSuffix(got, "- **Notes**: One line.\n") {
		t.Fatalf("got:\n%s", got)
	}
}

// TestARevertedIterationIsMarked: an iteration lore revert undid keeps
// its line in the Run Journal, marked, in full and shortened.
func TestARevertedIterationIsMarked(t *testing.T) {
	e := entry.JournalEntry{Iteration: 2, Outcome: "done", Notes: "Did it.", RevertedAt: "2027-01-15T10:00:00Z"}
	for _, got := range []string{JournalBlock(e), outline(DefaultHeadingLevel).shortJournalBlock(e, 200)} {
		if !strings.Contains(got, "Iteration 2 [done] (reverted)\n") {
			t.Errorf("got:\n%s", got)
		}
	}
	e.RevertedAt = ""
	if got := JournalBlock(e); strings.Contains(got, "reverted") {
		t.Errorf("an iteration not reverted: %s", got)
	}
}

// TestNoLearnKeepsTaskControl: --no-learn stops asking for new memory but
// keeps the sigils the loop needs to know how the task went.
func TestNoLearnKeepsTaskControl(t *testing.T) {
	got := Instructions(false, true, nil)
	for _, want := range []string{"<task-done>", "<task-failed>", "<failure-report>", "<retry-suggestion>", "<next-model>"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %s in:\n%s", want, got)
		}
	}
	for _, gone := range []string{"lore add", "<knowledge", "<learning", "<journal>"} {
		if strings.Contains(got, gone) {
			t.Errorf("%s in:\n%s", gone, got)
		}
	}
	if got := Instructions(true, false, []string{"gpt-4o-mini", "gpt-4o"}); strings.Contains(got, "lore add") || !strings.Contains(got, "<learning") || !strings.Contains(got, "(gpt-4o-mini, gpt-4o)") {
		t.Errorf("learn without memories:\n%s", got)
	}
}
