package mdstore

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// TestNothingIsWrittenThatLoreWouldNotReadBack: issue 36, item 5. Two
// 9 MB memories were both "stored", after which memories.md was past the
// 16 MiB lore reads and no command saw a memory; a 2 MB learning and a
// knowledge entry with a 100 KB title were written past what validation
// accepts. The write that would do it is refused (an InputError naming
// the limit), and what was there stays, as C git sees it.
func TestNothingIsWrittenThatLoreWouldNotReadBack(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{entry.MemoriesPath: entry.MemoriesTemplate})
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	nine := strings.Repeat("word ", 9_000_000/5)
	first, _, err := s.AddMemory(NewMemory{Type: entry.Pattern, Content: nine})
	if err != nil {
		t.Fatal(err)
	}
	head := r.Git("rev-parse", "HEAD")
	refused := func(what string, err error, want string) {
		t.Helper()
		var input *entry.InputError
		if !errors.As(err, &input) || !strings.Contains(input.Msg, want) {
			t.Fatalf("%s: %v, want an InputError saying %q", what, err, want)
		}
		if got := r.Git("rev-parse", "HEAD"); got != head {
			t.Fatalf("%s: a commit was made", what)
		}
		r.AssertClean()
	}
	_, _, err = s.AddMemory(NewMemory{Type: entry.Pattern, Content: nine})
	refused("a second 9 MB memory", err, ".agent/memories.md would be 17.2 MiB, over the 16 MiB lore reads of it")
	if n := len(r.Git("show", "HEAD:"+entry.MemoriesPath)); n > entry.MemoriesReadLimit {
		t.Fatalf("memories.md is %d bytes in HEAD", n)
	}
	ms, ws, err := s.Memories()
	if err != nil || len(ms) != 1 || ms[0].ID != first.ID || len(ws) != 0 {
		t.Fatalf("memories: %d %v %v", len(ms), ws, err)
	}

	_, _, _, err = s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"big"}, Body: strings.Repeat("word ", 2_000_000/5)})
	refused("a 2 MB learning", err, "its body is 1.9 MiB; shorten it, or split it into several entries")
	_, _, _, err = s.AddKnowledge(entry.NewKnowledge{Title: strings.Repeat("t", 100_000), Tags: []string{"big"}, Body: "body"})
	refused("a 100 KB title", err, "its title is 98 KiB; shorten it")
	_, _, _, err = s.AddJournal(entry.JournalEntry{RunID: "run-1", Outcome: "done", TaskID: strings.Repeat("t", 70_000)})
	refused("a 70 KB task id", err, "its task_id is 69 KiB")
	if _, err := os.Stat(r.Path(entry.Dir + "/learnings")); !os.IsNotExist(err) {
		t.Fatalf("learnings/: %v", err)
	}
}

// TestAnIterationThatTouched12000FilesIsRecorded: its files_modified kept
// the journal file past what lore reads; the files that fit in 16 KiB are
// recorded, and how many more there were.
func TestAnIterationThatTouched12000FilesIsRecorded(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{entry.MemoriesPath: entry.MemoriesTemplate})
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	files := make([]string, 12_000)
	for i := range files {
		files[i] = fmt.Sprintf("src/generated/module_%05d/file.go", i)
	}
	got, res, err := s.Ingest(IngestInput{Output: "<task-done>T-1</task-done>", RunID: "run-1", Iteration: 1, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	kept := len(got.Journal.FilesModified) - 1
	if kept < 300 || kept > 600 || got.Journal.FilesModified[kept] != fmt.Sprintf("… and %d more files", 12_000-kept) {
		t.Fatalf("%d files kept, then %q", kept, got.Journal.FilesModified[kept])
	}
	if len(got.Warnings) != 1 || !strings.HasPrefix(got.Warnings[0], "the iteration changed 12000 files: the journal keeps the first ") {
		t.Fatalf("warnings: %q", got.Warnings)
	}
	data := r.Git("show", "HEAD:"+got.Journal.Path)
	if len(data) > entry.MaxEntryFileBytes || res.Commit == "" {
		t.Fatalf("the journal file is %d bytes", len(data))
	}
	j, err := s.JournalEntry(got.Journal.Key())
	if err != nil || len(j.FilesModified) != kept+1 {
		t.Fatalf("read back: %d files, %v", len(j.FilesModified), err)
	}
	stored, _ := s.ValidationFiles(false)
	if ps := entry.Validate(stored, nil); entry.HasErrors(ps) {
		t.Fatalf("validate: %v", ps)
	}
	r.AssertClean()
}

// TestAQueuedChangeIsHeldToTheLimits: during a merge a change is queued,
// not applied; what would take memories.md past 16 MiB once the queue is
// committed is refused now, not acknowledged and then never committed.
func TestAQueuedChangeIsHeldToTheLimits(t *testing.T) {
	t.Parallel()
	r := mergeInProgress(t)
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	nine := strings.Repeat("word ", 9_000_000/5)
	if _, res, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: nine}); err != nil || res.Mode != "queued" {
		t.Fatalf("%+v %v", res, err)
	}
	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	_, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: nine})
	var input *entry.InputError
	if !errors.As(err, &input) || !strings.Contains(input.Msg, "17.2 MiB") {
		t.Fatalf("%v", err)
	}
	if p := s.Pending(); p.Queued != 1 {
		t.Fatalf("pending = %+v", p)
	}
	r.Git("commit", "-q", "--no-edit")
	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	if f, err := s.Flush(true); err != nil || len(f.Committed) != 1 {
		t.Fatalf("%+v %v", f, err)
	}
	r.AssertClean()
}
