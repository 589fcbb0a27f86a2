package mdstore

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// Entries through the cache are what the loaders read from the files,
// whatever happened to the files since the cache was written.
func TestEntriesCache(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Dir), 0o755)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, title := range []string{"Alpha notes", "Beta notes", "Gamma notes"} {
		k, _, _, err := s.AddKnowledge(NewKnowledge{Title: title, Body: "About " + title + ".", Tags: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, k.Slug)
	}
	for _, body := range []string{"Retry flaky network tests once.", "Vendor the parser generator."} {
		if _, _, _, err := s.AddLearning(NewLearning{Category: "pattern", Tags: []string{"t"}, Body: body, Runs: []string{"r1"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := s.AddJournal(JournalEntry{RunID: "r1", Outcome: "failed", TaskID: "t-1", Model: "opus", FilesModified: []string{"a.go"},
		DurationSecs: 12.5, Failure: &Failure{WhatTried: "x", WhyFailed: "y", RelevantFiles: []string{"b.go"}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.AddJournal(JournalEntry{RunID: "r1", Outcome: "done", Notes: "fine"}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		got, ws, err := s.Entries()
		if err != nil || len(ws) != 0 {
			t.Fatalf("%s: %v %v", when, ws, err)
		}
		var want Entries
		want.Knowledge, _, _ = s.Knowledge()
		want.Learnings, _, _ = s.Learnings()
		want.Journal, _, _ = s.Journal()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\ngot  %+v\nwant %+v", when, got, want)
		}
	}
	check("first read")
	time.Sleep(60 * time.Millisecond) // past the racy window: the next read uses the cache
	check("written")
	check("from the cache")
	if _, err := os.Stat(filepath.Join(s.StateDir(), "entries.cache")); err != nil {
		t.Fatal(err)
	}

	// Changed by renaming a new file over it, rewritten in place, deleted,
	// added.
	p := filepath.Join(dir, ".agent/knowledge", slugs[0]+".md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p+".tmp", append(data, "More.\n"...), 0o644)
	os.Rename(p+".tmp", p)
	q := filepath.Join(dir, ".agent/knowledge", slugs[1]+".md")
	data, _ = os.ReadFile(q)
	os.WriteFile(q, append(data, "Edited in place.\n"...), 0o644)
	os.Remove(filepath.Join(dir, ".agent/knowledge", slugs[2]+".md"))
	s.AddKnowledge(NewKnowledge{Title: "Delta notes", Body: "New.", Tags: []string{"y"}})
	check("after changes")
	time.Sleep(60 * time.Millisecond)
	check("after changes, cached")

	// A new run's directory, a learning deleted: directories whose stamp
	// changed are listed again.
	if _, _, _, err := s.AddJournal(JournalEntry{RunID: "r2", Outcome: "done", Notes: "second run"}); err != nil {
		t.Fatal(err)
	}
	learnings, _, _ := s.Learnings()
	os.Remove(filepath.Join(dir, filepath.FromSlash(learnings[0].Path)))
	check("new run, learning deleted")
	time.Sleep(60 * time.Millisecond)
	check("new run, learning deleted, cached")
	os.RemoveAll(filepath.Join(dir, ".agent/journal/r2"))
	check("run removed")

	// A damaged cache is read as empty and rewritten.
	os.WriteFile(filepath.Join(s.StateDir(), "entries.cache"), []byte("LORECACH\x01\x05garbage"), 0o644)
	check("damaged cache")
	time.Sleep(60 * time.Millisecond)
	check("rewritten")
}

// The cache encodes every field of the entry types by hand: a field added
// to one of them must be added to the cache, with cacheVersion bumped.
func TestEntriesCacheCoversEveryField(t *testing.T) {
	for _, c := range []struct {
		v      any
		fields int
	}{{Knowledge{}, 9}, {Source{}, 2}, {Learning{}, 14}, {JournalEntry{}, 15}, {Failure{}, 6}} {
		if n := reflect.TypeOf(c.v).NumField(); n != c.fields {
			t.Errorf("%T has %d fields, the cache encodes %d: encode the new ones in writeEntryCache and readEntryCache and bump cacheVersion", c.v, n, c.fields)
		}
	}
}

// A file that does not parse is never cached: its warning is said on
// every read.
func TestEntriesCacheKeepsWarnings(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Dir, "knowledge"), 0o755)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, Dir, "knowledge", "broken.md"), []byte("---\ntitle: [unclosed\n---\nbody\n"), 0o644)
	time.Sleep(60 * time.Millisecond)
	for i := range 2 {
		_, ws, err := s.Entries()
		if err != nil || len(ws) != 1 || ws[0].Path != ".agent/knowledge/broken.md" {
			t.Fatalf("read %d: %v %v", i, ws, err)
		}
	}
}
