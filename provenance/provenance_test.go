package provenance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/gitx"
	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/cites"
)

// TestReadALargeCitationsFile: a store of many entries cites more than
// a megabyte's worth (the limit of an ordinary store file); Read reads
// it whole and finds the one stale citation, and an unreadable file is an
// error, not "nothing is stale".
func TestReadALargeCitationsFile(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("code", map[string]string{"src/a.go": "package a\n", "src/b.go": "package b\n"})
	head := strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	blobA := gitx.BlobHash([]byte("package a\n")).String()
	blobB := gitx.BlobHash([]byte("package b\n")).String()
	var lines []cites.Line
	for i := range 20000 {
		lines = append(lines, cites.Line{Key: fmt.Sprintf("mem-%d-aaaa", 1000000+i), Cite: cites.Cite{File: "src/a.go", Blob: blobA, Commit: head}})
	}
	lines = append(lines, cites.Line{Key: "mem-1-bbbb", Cite: cites.Cite{File: "src/b.go", Blob: blobB, Commit: head}})
	data := cites.Format(lines)
	if len(data) < 2<<20 {
		t.Fatalf("only %d bytes", len(data))
	}
	// The one entry that goes stale is there (lore stale lists only those).
	memories := "# Memories\n\n## Patterns\n\n### mem-1-bbbb\n> b.go is small\n<!-- tags: b | created: 2026-01-01 -->\n"
	r.Commit("cite", map[string]string{".agent/citations.md": string(data), ".agent/memories.md": memories, "src/b.go": "package b // changed\n"})
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	report, err := Read(s)
	if err != nil {
		t.Fatal(err)
	}
	stale, err := report.Stale()
	if err != nil {
		t.Fatal(err)
	}
	if len(report.all) != 20001 || len(stale) != 1 || stale[0].Key != "mem-1-bbbb" {
		t.Fatalf("%d entries, stale %+v", len(report.all), stale)
	}
	if err := os.Chmod(filepath.Join(r.Dir, ".agent", "citations.md"), 0); err == nil && os.Getuid() != 0 {
		if _, err := Read(s); err == nil {
			t.Error("an unreadable citations file read as no citations")
		}
	}
}
