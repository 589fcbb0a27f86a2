package entry

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCheckName(t *testing.T) {
	long := strings.Repeat("a", MaxNameBytes-len(".md"))
	for _, c := range []struct {
		path, want string // want "" for a name lore makes
	}{
		{MemoriesPath, ""},
		{KnowledgePath("release-checklist"), ""},
		{LearningPath("l-0a1b2c"), ""},
		{JournalPath("run-1", 3, "4fa9c2"), ""},
		{JournalDir + "/run-1/" + long + ".md", ""},
		{JournalDir + "/run-1/" + long + "a.md", "is 231 bytes, over the 230"},
		{KnowledgePath(strings.Repeat("x", 301)), "is 304 bytes"},
		{JournalDir + "/" + strings.Repeat("r", 231) + "/0001.md", "is 231 bytes"},
		{JournalDir + "/run-1/0002-a\tb.md", `"0002-a\tb.md" holds a control character`},
		{JournalDir + "/run-1/0002-a\nb.md", "holds a control character"},
		{JournalDir + "/run-1/0002-\x1b[31m.md", "holds a control character"},
		{JournalDir + "/run-1/0002-\u0085.md", "holds a control character"},
		{KnowledgePath("caf\xe9"), "is not valid UTF-8"},
		{JournalDir + "/run-1/.0002.md", "not where lore keeps an entry"},
		{KnowledgeDir + "/sub/x.md", "not where lore keeps an entry"},
		{Dir + "/notes.txt", "not where lore keeps an entry"},
	} {
		err := CheckName(c.path)
		var input *InputError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.path, err)
		case c.want != "" && (!errors.As(err, &input) || input.Field != "name" || !strings.Contains(input.Msg, c.want)):
			t.Errorf("%q: %v, want %q", c.path, err, c.want)
		}
	}
}

func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		path      string
		size, old int
		want      string
	}{
		{MemoriesPath, MemoriesReadLimit, 0, ""},
		{MemoriesPath, MemoriesReadLimit + 1, 0, ".agent/memories.md would be 16.0 MiB, over the 16 MiB lore reads of it: delete memories"},
		{MemoriesPath, 18 << 20, 19 << 20, ""}, // a delete from a file past the limit
		{MemoriesPath, 18 << 20, 17 << 20, "would be 18.0 MiB"},
		{LearningPath("l-0a1b2c"), MaxEntryFileBytes, -1, ""},
		{LearningPath("l-0a1b2c"), MaxEntryFileBytes + 1, -1, "would be 65 KiB, over the 64 KiB lore accepts of an entry (lore validate's limit)"},
		{JournalPath("run-1", 1, ""), 2 << 20, -1, "would be 2.0 MiB"},
		{ConfigPath, FileReadLimit + 1, -1, "over the 1 MiB lore reads of it"},
	} {
		err := CheckSize(c.path, c.size, c.old)
		var input *InputError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %d: %v", c.path, c.size, err)
		case c.want != "" && (!errors.As(err, &input) || !strings.Contains(input.Msg, c.want)):
			t.Errorf("%s %d: %v, want %q", c.path, c.size, err, c.want)
		}
	}
}

// TestCapFiles: a list of files is kept to MaxJournalFilesBytes, the
// rest counted, and capping it again changes nothing (an ingest retried
// with its key or iteration records the same entry, word for word).
func TestCapFiles(t *testing.T) {
	few := []string{"a.go", "b.go"}
	if got := capFiles(few); len(got) != 2 {
		t.Fatalf("%q", got)
	}
	many := make([]string, 12_000)
	for i := range many {
		many[i] = fmt.Sprintf("src/module_%05d/file.go", i)
	}
	got := capFiles(many)
	kept := len(got) - 1
	if got[kept] != fmt.Sprintf("… and %d more files", len(many)-kept) || strings.Join(got[:kept], ",") != strings.Join(many[:kept], ",") {
		t.Fatalf("%d kept, then %q", kept, got[kept])
	}
	if again := capFiles(got); strings.Join(again, ",") != strings.Join(got, ",") {
		t.Fatalf("capped again: %d, then %q", len(again), again[len(again)-1])
	}
	if n := len(RenderJournal(JournalEntry{RunID: "run-1", FilesModified: got})); n > MaxJournalFilesBytes+200 {
		t.Fatalf("rendered: %d bytes", n)
	}
}

// TestInputsOverTheEntryLimitNameTheirField: the input types refuse an
// entry whose file would be over MaxEntryFileBytes, naming the field, so
// that ingest can skip the sigil and a command can say what to shorten.
func TestInputsOverTheEntryLimitNameTheirField(t *testing.T) {
	big := strings.Repeat("word ", MaxEntryFileBytes/5)
	check := func(what string, err error, field string) {
		t.Helper()
		var input *InputError
		if !errors.As(err, &input) || input.Field != field || !strings.Contains(input.Msg, "over the 64 KiB lore accepts of an entry") {
			t.Errorf("%s: %v, want the %s named", what, err, field)
		}
	}
	_, err := NewKnowledge{Title: big, Tags: []string{"x"}, Body: "b"}.Normalize(&SecretCheck{})
	check("knowledge title", err, "title")
	_, err = NewKnowledge{Title: "t", Tags: []string{"x"}, Body: strings.Repeat("x", MaxEntryFileBytes)}.Normalize(&SecretCheck{})
	check("knowledge body of one long word", err, "body")
	_, err = NewLearning{Category: "pitfall", Tags: []string{"x"}, Body: big}.Normalize(&SecretCheck{})
	check("learning body", err, "body")
	_, err = NewLearning{Category: "pitfall", Tags: []string{"x"}, Task: big, Body: "b"}.Normalize(&SecretCheck{})
	check("learning task", err, "task")
	_, err = JournalEntry{RunID: "run-1", Outcome: "failed", Failure: &Failure{StackTrace: big}}.Normalize(&SecretCheck{})
	check("journal stack trace", err, "stack_trace")
	// What an iteration reports at length is cut, not refused: it is
	// recorded.
	j, err := JournalEntry{RunID: "run-1", Outcome: "failed", Notes: big, Failure: &Failure{WhatTried: big, WhyFailed: big, RetrySuggestion: big, RelevantFiles: strings.Fields(big)}}.Normalize(&SecretCheck{})
	if err != nil || len(RenderJournal(j)) > MaxEntryFileBytes {
		t.Fatalf("%v: %d bytes", err, len(RenderJournal(j)))
	}
}
