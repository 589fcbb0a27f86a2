package mdstore

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

func TestJournalFileName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		iteration int
		tag       string
		ok        bool
	}{
		{"0003.md", 3, "", true},
		{"0003-4fa9c2.md", 3, "4fa9c2", true},
		{"12345-beef01.md", 12345, "beef01", true},
		{"7.md", 7, "", true},
		{"0003-.md", 0, "", false},
		{"0003-4FA9C2.md", 0, "", false},
		{"0003-4f-a9.md", 0, "", false},
		{"-4fa9c2.md", 0, "", false},
		{"notes.md", 0, "", false},
		{"0003.txt", 0, "", false},
		{"0003", 0, "", false},
		{"99999999999.md", 0, "", false},
	} {
		n, tag, ok := entry.JournalFileName(tt.name)
		if n != tt.iteration || tag != tt.tag || ok != tt.ok {
			t.Errorf("JournalFileName(%q) = %d, %q, %v", tt.name, n, tag, ok)
		}
		if tt.ok && tt.name != "7.md" && entry.JournalPath("r", n, tag) != entry.JournalDir+"/r/"+tt.name {
			t.Errorf("JournalPath(%d, %q) = %s", n, tag, entry.JournalPath("r", n, tag))
		}
	}
}

// A run that two branches continued, merged: iterations 1 and 2 shared
// (one named before tags, one after), then 3 and 4 on each branch. Every
// reader takes both files of one number; the journal is in iteration
// order, ties by creation time; an id names one file, an iteration number
// both; the next iteration is the one after the highest; recording an
// iteration again by its number replaces the one it is the same as.
func TestIterationsOfTwoBranchesInOneRun(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	newEntry := func(it int, task, at string) entry.JournalEntry {
		return entry.JournalEntry{RunID: "sprint", Iteration: it, TaskID: task, Outcome: "failed", FilesModified: []string{}, CreatedAt: at, Notes: task + fmt.Sprint(it)}
	}
	files := map[string]string{}
	add := func(e entry.JournalEntry, tag string) {
		files[entry.JournalPath(e.RunID, e.Iteration, tag)] = string(entry.RenderJournal(e))
	}
	add(newEntry(1, "shared", "2027-01-15T08:00:00Z"), "")
	add(newEntry(2, "shared", "2027-01-15T08:10:00Z"), "0a0a0a")
	add(newEntry(3, "right", "2027-01-15T09:05:00Z"), "aaaaaa")
	add(newEntry(3, "left", "2027-01-15T09:00:00Z"), "ffffff")
	add(newEntry(4, "right", "2027-01-15T09:15:00Z"), "bbbbbb")
	add(newEntry(4, "left", "2027-01-15T09:10:00Z"), "cccccc")
	r.Commit("a merged run", files)
	s, err := Open(r.Dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}

	es, ws, err := s.Journal()
	if err != nil || len(ws) > 0 {
		t.Fatal(err, ws)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Key()+" "+e.Notes)
	}
	want := "sprint/0001 shared1, sprint/0002-0a0a0a shared2, sprint/0003-ffffff left3, sprint/0003-aaaaaa right3, sprint/0004-cccccc left4, sprint/0004-bbbbbb right4"
	if strings.Join(got, ", ") != want {
		t.Fatalf("journal:\n%s\nwant\n%s", strings.Join(got, ", "), want)
	}
	var all []entry.File
	for p, content := range files {
		all = append(all, entry.File{Path: p, Data: []byte(content)})
	}
	if problems := entry.Validate(all, config.Validate); len(problems) > 0 {
		t.Fatalf("validate: %v", problems)
	}

	for key, notes := range map[string]string{"sprint/0001": "shared1", "sprint/1": "shared1", "sprint/0002-0a0a0a": "shared2",
		"sprint/2": "shared2", "sprint/0003-aaaaaa": "right3", "sprint/0004-cccccc.md": "left4"} {
		if e, err := s.JournalEntry(key); err != nil || e.Notes != notes {
			t.Errorf("JournalEntry(%s) = %q, %v", key, e.Notes, err)
		}
	}
	_, err = s.JournalEntry("sprint/0003")
	var ie *entry.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "sprint/0003-aaaaaa, sprint/0003-ffffff") {
		t.Errorf("sprint/0003: %v", err)
	}
	var nf *entry.NotFoundError
	for _, key := range []string{"sprint/5", "sprint/0003-123456", "other/1"} {
		if _, err := s.JournalEntry(key); !errors.As(err, &nf) {
			t.Errorf("%s: %v", key, err)
		}
	}

	// Again by number, the same as the left branch's 3: nothing changes.
	left3 := newEntry(3, "left", "")
	left3.CreatedAt = ""
	e, replaced, res, err := s.AddJournal(left3)
	if err != nil || !replaced || res.Commit != "" || e.Key() != "sprint/0003-ffffff" {
		t.Fatalf("3 again: %s %v %+v %v", e.Key(), replaced, res, err)
	}
	// By number, like neither: a file of its own.
	other3 := newEntry(3, "third", "")
	if e, replaced, _, err := s.AddJournal(other3); err != nil || replaced || !strings.HasPrefix(e.Key(), "sprint/0003-") ||
		e.Key() == "sprint/0003-ffffff" || e.Key() == "sprint/0003-aaaaaa" {
		t.Fatalf("another 3: %s %v %v", e.Key(), replaced, err)
	}
	// The next one is 5, in a file of its own.
	e, replaced, _, err = s.AddJournal(entry.JournalEntry{RunID: "sprint", Outcome: "done"})
	if err != nil || replaced || e.Iteration != 5 || !strings.HasPrefix(e.Key(), "sprint/0005-") || e.Path != entry.JournalDir+"/"+e.Key()+".md" {
		t.Fatalf("next: %s %+v %v", e.Key(), e, err)
	}
	if got := r.Git("ls-files", entry.JournalDir+"/sprint"); strings.Count(got, "\n")+1 != 8 {
		t.Fatalf("files:\n%s", got)
	}
	r.AssertClean()

	// A tagged name whose number is not the entry's iteration is reported
	// as the old names are.
	bad := newEntry(6, "bad", "2027-01-15T10:00:00Z")
	if _, err := entry.ParseJournal(entry.RenderJournal(bad), entry.JournalPath("sprint", 7, "abcdef")); err == nil || !strings.Contains(err.Error(), "does not match the file name 0007-abcdef.md") {
		t.Errorf("a tagged name with another number: %v", err)
	}
}
