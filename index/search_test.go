package index_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/index"
	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// Without a usable lore-index a search scans the files, and says so unless
// the environment asked for scanning.
func TestSearchFallsBackToScanning(t *testing.T) {
	r := loretest.NewRepo(t)
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := s.AddMemory(mdstore.NewMemory{Type: entry.Fix, Content: "the gondola needs a grease gun"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		loreIndex string
		notice    string // "" for none
	}{
		{"off", ""},
		{"scan", ""},
		{"/nonexistent/lore-index", "the search index failed"},
	} {
		sr := index.NewSearcher(func(k string) string {
			if k == "LORE_INDEX" {
				return c.loreIndex
			}
			return r.Getenv(k)
		}, nil)
		a, err := sr.Search(s, index.Query{Text: "gondla"})
		sr.Close()
		if err != nil {
			t.Fatalf("LORE_INDEX=%s: %v", c.loreIndex, err)
		}
		if len(a.Result.Hits) != 1 || a.Result.Hits[0].EntryID != m.ID {
			t.Errorf("LORE_INDEX=%s: hits %+v", c.loreIndex, a.Result.Hits)
		}
		switch {
		case c.notice == "" && len(a.Notices) > 0:
			t.Errorf("LORE_INDEX=%s: notices %q, want none", c.loreIndex, a.Notices)
		case c.notice != "" && (len(a.Notices) != 1 || !strings.Contains(a.Notices[0], c.notice) || !strings.HasSuffix(a.Notices[0], "searched by scanning the files")):
			t.Errorf("LORE_INDEX=%s: notices %q, want one saying %q and that the files were scanned", c.loreIndex, a.Notices, c.notice)
		}
		// Relevance falls back to a scan of the files too.
		if rel := <-sr.Relevance(s, "gondola", nil, entry.KindMemory); len(rel) != 1 || rel[".agent/memories.md#"+m.ID] != 1 {
			t.Errorf("LORE_INDEX=%s: relevance without an index: %v", c.loreIndex, rel)
		}
	}
	var none *index.Searcher
	none.Close()
	if rel := <-none.Relevance(s, "gondola", nil); len(rel) != 1 {
		t.Errorf("relevance without a searcher: %v", rel)
	}
	if rel := <-none.Relevance(s, "", nil); rel != nil {
		t.Errorf("relevance of no text: %v", rel)
	}
}

// TestFirstRelevanceScansThenBuilds (issue 39): prime's relevance in a
// clone with no index comes from a scan, and the index is built after it
// (on Close), not before the answer.
func TestFirstRelevanceScansThenBuilds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore-index")
	}
	r := loretest.NewRepo(t)
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := s.AddMemory(mdstore.NewMemory{Type: entry.Fix, Content: "the gondola needs a grease gun"})
	if err != nil {
		t.Fatal(err)
	}
	helper := loretest.Built(t).Index
	sr := index.NewSearcher(func(k string) string {
		if k == "LORE_INDEX" {
			return helper
		}
		return r.Getenv(k) // LORE_INDEX_BUILD=wait
	}, nil)
	current := filepath.Join(index.Dir(s), index.CurrentFile)
	if rel := <-sr.Relevance(s, "gondola grease", nil, entry.KindMemory); rel[".agent/memories.md#"+m.ID] != 1 {
		t.Errorf("relevance: %v", rel)
	}
	if _, err := os.Stat(current); err == nil {
		t.Errorf("the index was built before the answer")
	}
	sr.Close()
	if _, err := os.Stat(current); err != nil {
		t.Errorf("the index was not built after the answer: %v", err)
	}
}

// TestFirstSearchStartsNoHelper (issue 39): lore-index is started for a
// question only once the index was built; a fresh clone's first search is
// answered by the scan without starting it, so that its start-up does not
// compete with the scan, and only the build after the answer runs it.
func TestFirstSearchStartsNoHelper(t *testing.T) {
	r := loretest.NewRepo(t)
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddMemory(mdstore.NewMemory{Type: entry.Fix, Content: "the gondola needs a grease gun"}); err != nil {
		t.Fatal(err)
	}
	// A stand-in for lore-index that says it ran, and answers nothing.
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	helper := filepath.Join(dir, "lore-index")
	if err := os.WriteFile(helper, []byte("#!/bin/sh\necho x >> "+ran+"\ncat >/dev/null\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sr := index.NewSearcher(func(k string) string {
		if k == "LORE_INDEX" {
			return helper
		}
		return r.Getenv(k) // LORE_INDEX_BUILD=wait
	}, nil)
	a, err := sr.Search(s, index.Query{Text: "gondola"})
	if err != nil || len(a.Result.Hits) != 1 {
		t.Fatalf("%+v, %v", a, err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Errorf("lore-index was started for a search of an index never built")
	}
	sr.Close()
	if data, err := os.ReadFile(ran); err != nil || string(data) != "x\n" {
		t.Errorf("the build after the answer ran lore-index %q times (%v), want once", data, err)
	}
}
