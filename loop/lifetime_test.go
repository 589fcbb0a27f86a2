package loop

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/history"
	"lore/prompt"
)

// mappedRegions counts this process's memory mappings (Linux).
func mappedRegions(t *testing.T) int {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps: the mappings cannot be counted here")
	}
	return strings.Count(string(data), "\n")
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestAStoreALongLivedProcessHolds: a process (the MCP server) opens a
// store, primes, shows and closes it a thousand times: its mappings and
// its heap stay flat, and what it kept from an early store — read
// through the caches — reads as it was after that store is closed and its
// cache files are removed.
func TestAStoreALongLivedProcessHolds(t *testing.T) {
	repo := loretest.NewRepo(t)
	repo.Populate(30)
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf(".agent/knowledge/topic-%02d.md", i)] = fmt.Sprintf("---\ntitle: \"Topic %d\"\ntags: [\"cache\", \"t%d\"]\n---\n\nThe cache of topic %d is warmed first.\n", i, i, i)
		files[fmt.Sprintf(".agent/learnings/l-%06x.md", i)] = fmt.Sprintf("---\nid: l-%06x\ncategory: pitfall\ntags: [\"cache\"]\ncreated_at: \"2026-01-01T00:00:%02dZ\"\n---\n\nWarm the cache of module %d before timing it.\n", i, i, i)
		files[fmt.Sprintf(".agent/journal/run-0000abcd/%04d.md", i+1)] = fmt.Sprintf("---\nrun_id: run-0000abcd\niteration: %d\ntask_id: \"T-%d\"\noutcome: done\ncreated_at: \"2026-01-01T00:%02d:00Z\"\n---\n\nWarmed cache %d.\n", i+1, i, i, i)
	}
	repo.Commit("a store", files)
	repo.Git("gc", "-q") // packs, which the store maps to read objects
	// Past every file's mtime: their stamps are settled, and the caches trusted.
	clock := time.Date(2100, 2, 1, 0, 0, 0, 0, time.UTC)
	opts := OpenOptions{Dir: repo.Dir, Store: mdstore.Options{Now: func() time.Time { return clock }, Getenv: repo.Getenv}}

	round := func() (prompt.Context, Shown, []entry.JournalEntry) {
		s, err := Open(opts, Discard)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		pr, err := Prime(s, nil, PrimeRequest{Task: prompt.Task{Title: "warm the cache"}}, Discard)
		if err != nil {
			t.Fatal(err)
		}
		sh, err := Show(s, "", "topic-07", Discard)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := history.Versions(s, "topic-01"); err != nil { // a read of git's objects: the packs
			t.Fatal(err)
		}
		return pr.Context(), sh, pr.Input.Journal
	}
	round() // the first in the clone: it writes the caches
	kept, shown, journal := round()
	want := kept.Markdown()
	if !strings.Contains(want, "The cache of topic") || len(journal) == 0 {
		t.Fatalf("the first prime:\n%s", want)
	}
	const warmup, rounds = 100, 1000
	var regions int
	var heap uint64
	for i := range rounds {
		if i == warmup {
			regions, heap = mappedRegions(t), heapInUse()
		}
		round()
	}
	if got := mappedRegions(t); got > regions+8 {
		t.Errorf("%d rounds mapped %d more regions (%d -> %d): a closed store leaves its mappings", rounds-warmup, got-regions, regions, got)
	}
	if got := heapInUse(); got > heap+8<<20 {
		t.Errorf("the heap grew by %d KiB over %d rounds", (got-heap)>>10, rounds-warmup)
	}
	// What the first store gave is intact after it was closed and its
	// cache files were replaced.
	os.RemoveAll(repo.Path(".git/lore"))
	round()
	if kept.Markdown() != want || shown.Knowledge.Body != "The cache of topic 7 is warmed first." {
		t.Errorf("what was kept from a closed store changed:\n%s\n%+v", kept.Markdown(), shown.Knowledge)
	}
	for _, j := range journal {
		if !strings.HasPrefix(j.Notes, "Warmed cache ") || !strings.HasPrefix(j.Path, entry.JournalDir+"/run-0000abcd/") {
			t.Fatalf("a journal entry kept from a closed store: %+v", j)
		}
	}
}
