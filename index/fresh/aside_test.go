package fresh_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lore/index/fresh"
	"lore/mdstore/entry"
)

// The next manifest is written aside while the index is updated: the
// one in place stays until Commit, Discard drops the next one without a
// trace, and a manifest that cannot be written says why.
func TestManifestWrittenAside(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, entry.KnowledgeDir), 0o755)
	os.WriteFile(filepath.Join(root, entry.KnowledgeDir, "one.md"), []byte(knowledgeFile("One", "1.")), 0o644)
	ch, err := fresh.CheckAll(fresh.Store{Root: root}, time.Now().UnixNano(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "gen-a.manifest")
	if err := fresh.WriteManifest(path, fresh.NewManifest()); err != nil {
		t.Fatal(err)
	}
	files := func() int {
		t.Helper()
		m, err := fresh.ReadManifest(path)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		return m.FileCount()
	}
	names := func() []string {
		entries, _ := os.ReadDir(dir)
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}

	aside := fresh.WriteAside(path, ch.Next)
	if aside.Err != nil {
		t.Fatal(aside.Err)
	}
	if files() != 0 || len(names()) != 2 {
		t.Fatalf("written aside: the manifest in place records %d files, the directory holds %q; want the old one and the one aside", files(), names())
	}
	aside.Discard()
	if files() != 0 || !slices.Equal(names(), []string{"gen-a.manifest"}) {
		t.Fatalf("discarded: %d files in place, the directory holds %q", files(), names())
	}

	aside = fresh.WriteAside(path, ch.Next)
	if err := aside.Commit(); err != nil {
		t.Fatal(err)
	}
	if files() != 1 || !slices.Equal(names(), []string{"gen-a.manifest"}) {
		t.Fatalf("committed: %d files in place, the directory holds %q; want the new manifest alone", files(), names())
	}

	// Beneath a file, no manifest can be written.
	blocked := filepath.Join(path, "gen-b.manifest")
	aside = fresh.WriteAside(blocked, ch.Next)
	if aside.Err == nil || !errors.Is(aside.Commit(), aside.Err) {
		t.Fatalf("a manifest beneath a file: %v, commit %v", aside.Err, aside.Commit())
	}
	aside.Discard()
	if err := fresh.WriteManifest(blocked, ch.Next); err == nil {
		t.Fatal("WriteManifest beneath a file succeeded")
	}
}
