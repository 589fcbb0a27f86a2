package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadTestGuard(t *testing.T) (*fillerGuard, []recallQuery) {
	t.Helper()
	queries, err := readQueries(filepath.Join("recall", "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	guard, err := newFillerGuard(filepath.Join("recall", "store", ".agent"), queries)
	if err != nil {
		t.Fatal(err)
	}
	return guard, queries
}

// readTree returns the files under dir/.agent by path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	root := filepath.Join(dir, ".agent")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestRealisticFillerIsSeeded(t *testing.T) {
	guard, _ := loadTestGuard(t)
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for _, g := range []struct {
		dir  string
		seed int64
	}{{a, 7}, {b, 7}, {c, 8}} {
		if err := generateRealistic(g.dir, 300, g.seed, guard); err != nil {
			t.Fatal(err)
		}
	}
	fa, fb, fc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(fa) != len(fb) {
		t.Fatalf("seed 7 wrote %d files, then %d", len(fa), len(fb))
	}
	for p, data := range fa {
		if !bytes.Equal(data, fb[p]) {
			t.Fatalf("seed 7 wrote %s differently the second time", p)
		}
	}
	if bytes.Equal(fa["memories.md"], fc["memories.md"]) {
		t.Error("seeds 7 and 8 wrote the same memories.md")
	}
}

// TestRealisticFillerAnswersNoQuery reads a generated store as the recall
// benchmark does and checks each entry whole, frontmatter included,
// against the labelled store and queries: what the generator checks
// text by text holds for the files it wrote.
func TestRealisticFillerAnswersNoQuery(t *testing.T) {
	guard, queries := loadTestGuard(t)
	dir := t.TempDir()
	const n = 1000
	if err := generateRealistic(dir, n, n, guard); err != nil {
		t.Fatal(err)
	}
	entries, err := readEntries(dir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range entries {
		kinds[e.kind]++
		if bad := guard.check(e.text); bad != "" {
			t.Errorf("%s %s holds %q of the labelled store:\n%s", e.kind, e.id, bad, e.text)
		}
	}
	want := map[string]int{"memory": n / 10, "knowledge": n * 15 / 100, "learning": n / 4, "journal": n - n/10 - n*15/100 - n/4}
	for k, w := range want {
		if kinds[k] != w {
			t.Errorf("%d %s entries, want %d (corpus.go's shares)", kinds[k], k, w)
		}
	}
	// No entry carries all the tags of a tag query.
	for _, e := range entries {
		tags := entryTags(e.text)
		for _, q := range queries {
			if q.Kind != "tag" {
				continue
			}
			all := true
			for _, w := range strings.Fields(strings.ToLower(q.Query)) {
				all = all && tags[w]
			}
			if all {
				t.Errorf("%s carries the tags of the query %q", e.id, q.Query)
			}
		}
	}
}

// entryTags reads the tags of an entry's lowercased text: the memory
// comment's or the frontmatter's.
func entryTags(text string) map[string]bool {
	tags := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		var list string
		switch {
		case strings.HasPrefix(line, "<!-- tags: "):
			list, _, _ = strings.Cut(strings.TrimPrefix(line, "<!-- tags: "), " |")
		case strings.HasPrefix(line, "tags: ["):
			list = strings.TrimSuffix(strings.TrimPrefix(line, "tags: ["), "]")
		default:
			continue
		}
		for _, t := range strings.Split(list, ",") {
			tags[strings.TrimSpace(t)] = true
		}
	}
	return tags
}

func TestFillerGuard(t *testing.T) {
	guard, _ := loadTestGuard(t)
	for _, tc := range []struct {
		text, bad string
	}{
		{"NextInvoiceNumber takes the lock", "NextInvoiceNumber"},
		{"see internal/billing/numbering.go for it", "internal/billing/numbering.go"},
		{"ERROR: canceling statement (SQLSTATE 57014)", "57014"},
		{"Gaps are not allowed (German tax law) here", "gaps are not allowed (german tax law)"},
		{"tally's workers", "tally"},
		{"ledger's tests time out in internal/ledger/reconcile.go: context deadline exceeded", ""},
		{"created_at: \"2026-01-01T00:00:00Z\"\nrun_id: q1-ledger", ""},
	} {
		if got := guard.check(tc.text); got != tc.bad {
			t.Errorf("check(%q) = %q, want %q", tc.text, got, tc.bad)
		}
	}
	if guard.allowsTags([]string{"postgres", "timeout"}) {
		t.Error("an entry may carry the tags of the query 'postgres timeout'")
	}
	if !guard.allowsTags([]string{"postgres", "migrations"}) {
		t.Error("an entry may not carry postgres and migrations")
	}
}
