package mdstore

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// loadStoreFiles reads every file under dir as a store would hold it:
// paths relative to dir, slash-separated.
func loadStoreFiles(t *testing.T, dir string) []entry.File {
	t.Helper()
	var files []entry.File
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		files = append(files, entry.File{Path: filepath.ToSlash(rel), Data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func problemsText(ps []entry.Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.String() + "\n")
	}
	return b.String()
}

// Every malformed file of the corpus — every kind, every rule — yields its
// path:line message; the well-formed files beside them yield none.
func TestValidateCorpus(t *testing.T) {
	t.Parallel()
	files := loadStoreFiles(t, "testdata/validate/store")
	problems := entry.Validate(files, config.Validate)
	loretest.Golden(t, "testdata/validate/store.golden", problemsText(problems))

	flagged := map[string]bool{}
	for _, p := range problems {
		flagged[p.Path] = true
	}
	for _, good := range []string{".agent/knowledge/release-checklist.md", ".agent/learnings/l-a1b2c3.md",
		".agent/journal/run-1a2b3c4d/0001.md", ".agent/skills/deploy/SKILL.md", ".agent/memories.md"} {
		if flagged[good] {
			t.Errorf("%s is well formed but was flagged", good)
		}
	}
	malformed := 0
	for _, f := range files {
		if flagged[f.Path] {
			malformed++
		}
	}
	if malformed < 40 {
		t.Errorf("%d store files flagged, want the whole corpus", malformed)
	}
}

// Each memories.md case, validated as the store's memories.md.
func TestValidateMemoriesCases(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir("testdata/validate/memories")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join("testdata/validate/memories", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		problems := entry.Validate([]entry.File{{Path: entry.MemoriesPath, Data: data}}, config.Validate)
		fmt.Fprintf(&b, "== %s\n%s", e.Name(), problemsText(problems))
		if len(problems) == 0 {
			t.Errorf("%s: no problem found", e.Name())
		}
	}
	loretest.Golden(t, "testdata/validate/memories.golden", b.String())
}

// What is not in a fixture: size caps, unmerged paths, a clean store.
func TestValidateLimits(t *testing.T) {
	t.Parallel()
	big := append([]byte("---\ntitle: \"Big\"\ntags: [\"a\"]\n---\n\n"), bytes.Repeat([]byte("word "), 14000)...)
	huge := append([]byte(entry.MemoriesTemplate), bytes.Repeat([]byte("\nplain prose line of the file\n"), 40000)...)
	got := problemsText(entry.Validate([]entry.File{
		{Path: ".agent/knowledge/big.md", Data: big},
		{Path: entry.MemoriesPath, Data: huge},
		{Path: ".agent/learnings/l-123456.md", Unmerged: true},
	}, config.Validate))
	for _, want := range []string{
		".agent/knowledge/big.md: error: the file is 68 KiB, over the 64 KiB an entry may be",
		".agent/learnings/l-123456.md: error: unmerged: the merge left this file in conflict",
		".agent/memories.md: warning: memories.md is 1171 KiB (over 1024 KiB)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	clean := entry.Validate([]entry.File{{Path: entry.MemoriesPath, Data: []byte(entry.MemoriesTemplate)}}, config.Validate)
	if len(clean) != 0 || entry.HasErrors(clean) {
		t.Fatalf("the template has problems: %v", clean)
	}
	// Problems come in path and line order.
	ps := entry.Validate(loadStoreFiles(t, "testdata/validate/store"), config.Validate)
	if !sort.SliceIsSorted(ps, func(i, j int) bool {
		return ps[i].Path < ps[j].Path || (ps[i].Path == ps[j].Path && ps[i].Line < ps[j].Line)
	}) {
		t.Fatal("problems are not in path and line order")
	}
}

// TestInChangesJudgesTheCommit: of the staged files, only those the
// commit changes have their problems reported; errors in the others are
// counted.
func TestInChangesJudgesTheCommit(t *testing.T) {
	t.Parallel()
	secret := "---\ntitle: \"Deploy\"\ntags: [\"deploy\"]\n---\n\nUse postgres://app:Z1U9ueHK7CN1w4zPbW@db:5432/app.\n"
	files := []entry.File{
		{Path: ".agent/knowledge/old.md", Data: []byte(secret), InHead: true},
		{Path: ".agent/knowledge/new.md", Data: []byte(strings.Replace(secret, "Deploy", "Deploy again", 1))},
		{Path: ".agent/knowledge/untitled.md", Data: []byte("---\ntags: [\"x\"]\n---\n\nBody.\n"), InHead: true},
	}
	all := entry.Validate(files, config.Validate)
	changed, elsewhere := entry.InChanges(files, all)
	if len(all) != 3 || len(changed) != 1 || changed[0].Path != ".agent/knowledge/new.md" || changed[0].Rule != "url-password" || elsewhere != 2 {
		t.Fatalf("all %v\nchanged %v, %d errors elsewhere", all, changed, elsewhere)
	}
}
