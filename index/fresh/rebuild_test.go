package fresh_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"lore/index"
	"lore/index/fresh"
	"lore/mdstore/entry"
)

// A rebuild reads every entry file and hands the documents to its sink
// in batches, so that a large store is never held in memory whole; every
// document is handed over once, and progress hears how far it got.
func TestRebuildHandsDocumentsInBatches(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	const n = fresh.BatchSize + 100
	for i := 0; i < n; i++ {
		p := filepath.Join(root, filepath.FromSlash(knowledgePath(fmt.Sprintf("entry-%04d", i))))
		if i == 0 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		if err := os.WriteFile(p, []byte(knowledgeFile(fmt.Sprintf("Entry %d", i), "Plain words.")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, entry.MemoriesPath), []byte(entry.MemoriesTemplate+"\n### mem-1800000000-abcd\n> one memory\n<!-- tags: misc | created: 2027-01-15 -->\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := fresh.Store{Root: root}

	var batches []int
	seen := map[string]int{}
	lastDone, total := 0, 0
	ch, err := fresh.CheckAll(s, time.Now().UnixNano(), func(docs []index.Doc) error {
		batches = append(batches, len(docs))
		for _, d := range docs {
			seen[d.ID]++
		}
		return nil
	}, func(done, all int) {
		if done < lastDone || done > all {
			t.Errorf("progress went from %d to %d of %d", lastDone, done, all)
		}
		lastDone, total = done, all
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(batches) < 2 || len(ch.Docs) != 0 {
		t.Fatalf("batches of %v, %d documents left over; want every document handed over, in more than one batch", batches, len(ch.Docs))
	}
	for i, b := range batches[:len(batches)-1] {
		if b < fresh.BatchSize {
			t.Errorf("batch %d of %d documents before the last; want at least %d", i, b, fresh.BatchSize)
		}
	}
	if len(seen) != n+1 || seen[memoryDocID("mem-1800000000-abcd")] != 1 || seen[knowledgePath("entry-0000")] != 1 {
		t.Fatalf("%d distinct documents handed over, want %d", len(seen), n+1)
	}
	for id, times := range seen {
		if times != 1 {
			t.Fatalf("%s handed over %d times", id, times)
		}
	}
	if lastDone != total || total != n+1 || ch.Files != n+1 {
		t.Fatalf("progress ended at %d of %d, %d files read; want all %d", lastDone, total, ch.Files, n+1)
	}

	// The manifest it describes: every file, and a store too large to
	// have every file looked at before each search.
	m := ch.Next
	if m.FileCount() != n || m.EntryFiles() != n+1 {
		t.Fatalf("the manifest records %d files in directories and %d entry files, want %d and %d", m.FileCount(), m.EntryFiles(), n, n+1)
	}
	if fresh.Every(m, fresh.DefaultSweepLimit) || !fresh.Every(m, n) || fresh.Every(m, -1) {
		t.Fatalf("Every: %v with the default limit, %v with %d, %v never; want false, true, false",
			fresh.Every(m, fresh.DefaultSweepLimit), fresh.Every(m, n), n, fresh.Every(m, -1))
	}
	if !fresh.Every(fresh.NewManifest(), 0) {
		t.Fatal("an empty manifest is not swept with a limit of 0")
	}

	// A sink that fails stops the rebuild with its error.
	errFull := errors.New("disk full")
	calls := 0
	if _, err := fresh.CheckAll(s, time.Now().UnixNano(), func([]index.Doc) error { calls++; return errFull }, nil); !errors.Is(err, errFull) || calls != 1 {
		t.Fatalf("a failing sink: %v after %d calls; want its error after the first", err, calls)
	}
}
