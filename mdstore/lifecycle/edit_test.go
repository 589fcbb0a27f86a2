package lifecycle

import (
	"regexp"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// TestEditsQueuedDuringAMergeKeepEveryAdd: an edit of memories.md made
// while a merge holds the store back is queued as the replacement of one
// block, so committing the queue after the merge keeps the memory the
// merge brought and those queued before and after the edit — a put of the
// whole file, decided before the merge was committed, would drop the
// merge's.
func TestEditsQueuedDuringAMergeKeepEveryAdd(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", entry.MemoriesPath: entry.MemoriesTemplate})
	open := func() *mdstore.Store {
		s, err := mdstore.Open(r.Dir, storeOptions(t))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	old, _, err := s.AddMemory(mdstore.NewMemory{Type: entry.Fix, Content: "before the merge", Tags: []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Git("checkout", "-q", "-b", "side")
	side := entry.Memory{ID: "mem-1700000000-5e1d", Type: entry.Context, Content: "from the side branch", Created: "2023-11-14"}
	r.Commit("side", map[string]string{entry.MemoriesPath: string(entry.AddMemory([]byte(r.Read(entry.MemoriesPath)), side))})
	r.Git("checkout", "-q", "main")
	r.Commit("main", map[string]string{"main.txt": "main\n"})
	r.Git("merge", "-q", "--no-commit", "--no-ff", "side")

	s = open()
	first, _, err := s.AddMemory(mdstore.NewMemory{Type: entry.Fix, Content: "queued first"})
	if err != nil {
		t.Fatal(err)
	}
	content := "before the merge, edited during it"
	if _, res, err := Edit(s, old.ID, Change{Content: &content, Type: string(entry.Decision)}); err != nil || res.Mode != "queued" {
		t.Fatalf("edit: %+v %v", res, err)
	}
	later, _, err := s.AddMemory(mdstore.NewMemory{Type: entry.Fix, Content: "queued after the edit"})
	if err != nil {
		t.Fatal(err)
	}
	r.Git("commit", "-q", "--no-edit")
	f, err := open().Flush(false)
	if err != nil || len(f.Committed) != 3 || f.Committed[1] != "lore: edit memory "+old.ID {
		t.Fatalf("flush: %+v %v", f, err)
	}
	got := r.Read(entry.MemoriesPath)
	for _, want := range []string{first.ID, later.ID, side.ID, "> " + content} {
		if !strings.Contains(got, want) {
			t.Errorf("memories.md lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "> before the merge\n") || strings.Count(got, old.ID) != 1 {
		t.Errorf("the old block stayed:\n%s", got)
	}
	// Seed 001's reader (ralph-orchestrator's regexes) still reads the
	// edited block, under its new section, with its id and date.
	block := regexp.MustCompile(`(?m)^## Decisions\n\n### (mem-\d+-[0-9a-f]{4})\n> (.*)\n<!-- tags: (.*) \| created: (\d{4}-\d{2}-\d{2}) -->$`)
	m := block.FindStringSubmatch(got)
	if m == nil || m[1] != old.ID || m[2] != content || m[3] != "a" || m[4] != old.Created {
		t.Errorf("edited block %q in:\n%s", m, got)
	}
	r.AssertClean()
	if out := r.Git("fsck", "--strict", "--no-progress"); out != "" {
		t.Errorf("fsck: %s", out)
	}
}
