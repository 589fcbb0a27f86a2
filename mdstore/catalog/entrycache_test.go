package catalog_test

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"lore/internal/fsx"
	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// Entries through the cache are what the loaders read from the files,
// whatever happened to the files since the cache was written.
func TestEntriesCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
	clock := loretest.NewSettleClock(t, fsx.RacyWindow)
	s, c, err := openStore(t, dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, title := range []string{"Alpha notes", "Beta notes", "Gamma notes"} {
		k, _, _, err := s.AddKnowledge(entry.NewKnowledge{Title: title, Body: "About " + title + ".", Tags: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, k.Slug)
	}
	// Learnings are named at random: the order of their paths is not the
	// order Entries returns them in, which the cache must keep.
	for _, body := range []string{"Retry flaky network tests once.", "Vendor the parser generator.", "Pin the linter's version.",
		"Run the migrations before the seeds.", "Keep fixtures under testdata.", "Close the response body."} {
		if _, _, _, err := s.AddLearning(entry.NewLearning{Category: "pattern", Tags: []string{"t"}, Body: body, Runs: []string{"r1"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "r1", Outcome: "failed", TaskID: "t-1", Model: "opus", FilesModified: []string{"a.go"},
		DurationSecs: 12.5, Failure: &entry.Failure{WhatTried: "x", WhyFailed: "y", RelevantFiles: []string{"b.go"}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "r1", Outcome: "done", Notes: "fine"}); err != nil {
		t.Fatal(err)
	}
	// Written by hand: a file whose name sorts last and whose title sorts
	// first, so that the order of paths is not the order Entries returns.
	os.WriteFile(filepath.Join(dir, entry.Dir, "knowledge", "zz-by-hand.md"), []byte("---\ntitle: Aardvark by hand\ntags: [x]\n---\nBody.\n"), 0o644)
	check := func(when string) {
		t.Helper()
		entriesAsReadOneByOne(t, s, c, when)
	}
	check("first read")
	clock.Settle(t) // past the racy window: the next read uses the cache
	check("written")
	check("from the cache")
	served(t, c, slugs[0], true)

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
	s.AddKnowledge(entry.NewKnowledge{Title: "Delta notes", Body: "New.", Tags: []string{"y"}})
	check("after changes")
	served(t, c, slugs[0], false) // changed less than the racy window ago: read again
	clock.Settle(t)
	check("after changes, cached")
	served(t, c, slugs[0], true)
	served(t, c, slugs[1], true)

	// A new run's directory, a learning deleted: directories whose stamp
	// changed are listed again.
	if _, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "r2", Outcome: "done", Notes: "second run"}); err != nil {
		t.Fatal(err)
	}
	learnings, _, _ := s.Learnings()
	os.Remove(filepath.Join(dir, filepath.FromSlash(learnings[0].Path)))
	check("new run, learning deleted")
	clock.Settle(t)
	check("new run, learning deleted, cached")
	os.RemoveAll(filepath.Join(dir, ".agent/journal/r2"))
	check("run removed")

	// A damaged cache is read as empty and rewritten.
	os.WriteFile(filepath.Join(s.StateDir(), "entries.cache"), []byte("LORECACH\x01\x05garbage"), 0o644)
	check("damaged cache")
	clock.Settle(t)
	check("rewritten")
}

// The cache encodes every field of the entry types and of their heads by
// hand: a field added to one of them must be added to the cache, with
// cacheVersion bumped.
func TestEntriesCacheCoversEveryField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		v      any
		fields int
	}{{entry.Knowledge{}, 9}, {entry.Source{}, 2}, {entry.Learning{}, 15}, {entry.JournalEntry{}, 17}, {entry.Failure{}, 6}, {catalog.Head{}, 17}} {
		if n := reflect.TypeOf(c.v).NumField(); n != c.fields {
			t.Errorf("%T has %d fields, the cache encodes %d: encode the new ones in writeEntryCache and readEntryCache and bump cacheVersion", c.v, n, c.fields)
		}
	}
}

// A file that does not parse is cached with its warning: the warning is
// said on every read, the file is not read again and the cache not
// rewritten until the file changes (a large store's cache is tens of
// megabytes), and the fixed file is read.
func TestEntriesCacheKeepsWarnings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, entry.Dir, "knowledge"), 0o755)
	clock := loretest.NewSettleClock(t, fsx.RacyWindow)
	s, c, err := openStore(t, dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, entry.Dir, "knowledge", "broken.md")
	os.WriteFile(broken, []byte("---\ntitle: [unclosed\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(dir, entry.Dir, "knowledge", "empty.md"), nil, 0o644)
	clock.Settle(t)
	cache := filepath.Join(s.StateDir(), "entries.cache")
	var written os.FileInfo
	for i := range 3 {
		_, ws, err := c.Entries()
		if err != nil || len(ws) != 2 || ws[0].Path != ".agent/knowledge/broken.md" || ws[0].Line != 2 || ws[1].Path != ".agent/knowledge/empty.md" {
			t.Fatalf("read %d: %v %v", i, ws, err)
		}
		fi, err := os.Stat(cache)
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			written = fi
		} else if i == 2 && !os.SameFile(fi, written) {
			t.Fatal("the cache was rewritten though no file changed")
		}
	}
	os.WriteFile(broken, []byte("---\ntitle: Fixed\ntags: [a]\n---\nbody\n"), 0o644)
	clock.Settle(t)
	e, ws, err := c.Entries()
	if err != nil || len(ws) != 1 || len(e.Knowledge) != 1 || e.Knowledge[0].Title != "Fixed" {
		t.Fatalf("after the fix: %+v %v %v", e.Knowledge, ws, err)
	}
}

// served checks whether the knowledge entry slug is served from the cache:
// the cache file is rewritten with the entry's body changed (its stamps
// kept), so a read that uses the cache returns that body, and a read of the
// file returns the file's.
func served(t *testing.T, c *catalog.Cache, slug string, want bool) {
	t.Helper()
	if !c.Doctor(slug, "FROM THE CACHE") {
		t.Fatal("no cache to doctor")
	}
	os.Remove(c.DeltaPath())
	got, _, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range got.Knowledge {
		if k.Slug == slug && (k.Body == "FROM THE CACHE") != want {
			t.Fatalf("%s: served from the cache %v, want %v", slug, !want, want)
		}
	}
	// The doctored cache must not serve later reads: a new one is written
	// from the files.
	os.Remove(filepath.Join(c.StateDir(), "entries.cache"))
	if _, _, err := c.Entries(); err != nil {
		t.Fatal(err)
	}
}

// A store larger than SweepLimit stats only what may have changed: the
// files of a directory whose stat changed, and those git wrote. A file
// rewritten in place by hand is served from the cache until git sees it
// (git add) or the cache is dropped (lore index rebuild); a commit or
// checkout git makes is seen.
func TestEntriesCacheLargeStore(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"", "project/sub"} {
		t.Run("store at /"+sub, func(t *testing.T) {
			top, git := gitRepo(t)
			dir := filepath.Join(top, filepath.FromSlash(sub))
			os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
			clock := loretest.NewSettleClock(t, fsx.RacyWindow)
			s, c, err := openStore(t, dir, clock)
			if err != nil {
				t.Fatal(err)
			}
			c.SetSweepLimit(-1) // never stat every file
			var slugs []string
			for _, title := range []string{"Alpha notes", "Beta notes"} {
				k, _, _, err := s.AddKnowledge(entry.NewKnowledge{Title: title, Body: "About " + title + ".", Tags: []string{"x"}})
				if err != nil {
					t.Fatal(err)
				}
				slugs = append(slugs, k.Slug)
			}
			body := func(slug string) string {
				t.Helper()
				got, _, err := c.Entries()
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range got.Knowledge {
					if k.Slug == slug {
						return k.Body
					}
				}
				t.Fatalf("no %s in %+v", slug, got.Knowledge)
				return ""
			}
			settle := func() {
				clock.Settle(t)
				body(slugs[0]) // the cache records what is now settled
			}
			settle()
			served(t, c, slugs[0], true)

			// In place, by hand: the directory's stat is the same.
			rel := filepath.ToSlash(filepath.Join(sub, entry.Dir, "knowledge", slugs[0]+".md"))
			p := filepath.Join(top, filepath.FromSlash(rel))
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), "About Alpha notes.", "Edited by hand.", 1)), 0o644)
			clock.Settle(t)
			if got := body(slugs[0]); got != "About Alpha notes." {
				t.Fatalf("an in-place edit in a large store is seen only once git sees it; read %q", got)
			}
			git("add", rel)
			if got := body(slugs[0]); got != "Edited by hand." {
				t.Fatalf("after git add: %q", got)
			}
			git("commit", "-q", "-m", "edit")
			settle()
			served(t, c, slugs[0], true)

			// git writes the old version back (unlink and create: the
			// inode number is often the one just freed).
			git("checkout", "HEAD~1", "--", rel)
			if got := body(slugs[0]); got != "About Alpha notes." {
				t.Fatalf("after git checkout: %q", got)
			}
			settle()

			// A commit outside the store changes git's index and nothing
			// here: the other entry is still served from the cache.
			os.WriteFile(filepath.Join(top, "README.md"), []byte("# q\n"), 0o644)
			git("commit", "-q", "-am", "readme")
			served(t, c, slugs[1], true)

			// By hand again, then lore index rebuild drops the cache.
			settle()
			os.WriteFile(p, []byte(strings.Replace(string(data), "About Alpha notes.", "Second edit.", 1)), 0o644)
			clock.Settle(t)
			if got := body(slugs[0]); got != "About Alpha notes." {
				t.Fatalf("the second in-place edit: %q", got)
			}
			if err := c.DropEntryCache(); err != nil {
				t.Fatal(err)
			}
			if got := body(slugs[0]); got != "Second edit." {
				t.Fatalf("after the cache was dropped: %q", got)
			}
			settle()

			// The directory changes (a file created by hand) while one
			// file is edited in place and another replaced by a rename:
			// the new file and the replaced one are read, the file still
			// under its inode is as the cache has it — as in a directory
			// that did not change — without a stat of each file.
			os.WriteFile(p, []byte(strings.Replace(string(data), "About Alpha notes.", "Third edit.", 1)), 0o644)
			other := filepath.Join(filepath.Dir(p), slugs[1]+".md")
			otherData, _ := os.ReadFile(other)
			os.WriteFile(other+".new", []byte(strings.Replace(string(otherData), "About Beta notes.", "Renamed over.", 1)), 0o644)
			if err := os.Rename(other+".new", other); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(filepath.Dir(p), "gamma.md"), []byte("---\ntitle: Gamma\ntags: [x]\n---\n\nBy hand.\n"), 0o644)
			clock.Settle(t)
			if got := body("gamma"); got != "By hand." {
				t.Fatalf("the file created by hand: %q", got)
			}
			if got := body(slugs[1]); got != "Renamed over." {
				t.Fatalf("the file replaced by a rename: %q", got)
			}
			if got := body(slugs[0]); got != "Second edit." {
				t.Fatalf("the file edited in place in a changed directory: %q, want the cache's", got)
			}
		})
	}
}

// A current cache is read through its heads, each record decoded when
// asked for. A record that does not decode is read from its file and the
// cache dropped; damaged heads make the whole cache read as empty.
func TestCatalogReadsWhatItIsAskedFor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
	clock := loretest.NewSettleClock(t, fsx.RacyWindow)
	s, c, err := openStore(t, dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSweepLimit(-1) // never stat every file
	for _, title := range []string{"Alpha notes", "Beta notes", "Gamma notes"} {
		if _, _, _, err := s.AddKnowledge(entry.NewKnowledge{Title: title, Body: "About " + title + ".", Tags: []string{"x", "y"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"t"}, Body: "Close the body.", Runs: []string{"r1"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "r1", Outcome: "done", TaskID: "T-1", FilesModified: []string{"a.go"}, Notes: "fine"}); err != nil {
		t.Fatal(err)
	}
	c.Entries()
	clock.Settle(t)
	want, _, err := c.Entries()
	if err != nil {
		t.Fatal(err)
	}
	cat, _, err := c.Catalog()
	if err != nil {
		t.Fatal(err)
	}
	if cached, _ := cat.Cached(); !cached {
		t.Fatal("a current cache was not read through its heads")
	}
	var heads []catalog.Head
	for _, kind := range catalog.CatalogKinds {
		cat.Heads(kind, func(i int, h *catalog.Head) {
			c := *h
			c.Tags, c.FilesModified = slices.Clone(h.Tags), slices.Clone(h.FilesModified)
			heads = append(heads, c)
		})
	}
	wantHeads := []catalog.Head{}
	for i := range want.Knowledge {
		wantHeads = append(wantHeads, catalog.KnowledgeHead(&want.Knowledge[i]))
	}
	for i := range want.Learnings {
		wantHeads = append(wantHeads, catalog.LearningHead(&want.Learnings[i]))
	}
	for i := range want.Journal {
		wantHeads = append(wantHeads, catalog.JournalHead(&want.Journal[i]))
	}
	if !reflect.DeepEqual(heads, wantHeads) {
		t.Fatalf("heads\n%+v\nwant\n%+v", heads, wantHeads)
	}
	if got := cat.Knowledge([]int{2, 0}); !reflect.DeepEqual(got, []entry.Knowledge{want.Knowledge[0], want.Knowledge[2]}) { // in Entries' order
		t.Fatalf("picked %+v", got)
	}

	// A damaged record: the second knowledge entry's.
	path := filepath.Join(s.StateDir(), "entries.cache")
	data, _ := os.ReadFile(path)
	data[catalog.RecordAt(path, 1)] = 0xff // a string's length beyond the record
	os.WriteFile(path, data, 0o644)
	cat, _, err = c.Catalog()
	if cached, _ := cat.Cached(); err != nil || !cached {
		t.Fatalf("the damaged record made the cache unreadable: %v", err)
	}
	if got := cat.All(); !reflect.DeepEqual(got, want) {
		t.Fatalf("read with a damaged record\n%+v\nwant\n%+v", got, want)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("the damaged cache was kept")
	}

	// Damaged heads: the cache reads as empty, and the files are read.
	c.Entries()
	clock.Settle(t)
	c.Entries()
	data, _ = os.ReadFile(path)
	if !catalog.Readable(path) {
		t.Fatal("no cache written")
	}
	data[catalog.HeadsAt(path, 1)+3] ^= 1
	os.WriteFile(path, data, 0o644)
	if catalog.Readable(path) {
		t.Fatal("damaged heads were read")
	}
	if got, _, err := c.Entries(); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read with damaged heads %+v %v", got, err)
	}
}

// memories.md is read through the memories cache while its stamp is the
// one cached: the same memories and warnings, from the cache, and a
// changed file is read again.
func TestMemoriesCache(t *testing.T) {
	if n := reflect.TypeOf(entry.Memory{}).NumField(); n != 6 {
		t.Fatalf("Memory has %d fields, the memories cache encodes 6: encode the new ones and bump memCacheVersion", n)
	}
	defer func(size int64) { *catalog.MemCacheMinSize = size }(*catalog.MemCacheMinSize)
	*catalog.MemCacheMinSize = 0
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
	clock := loretest.NewSettleClock(t, fsx.RacyWindow)
	_, c, err := openStore(t, dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, filepath.FromSlash(entry.MemoriesPath))
	text := "# Memories\n\n## Patterns\n\n### mem-1700000000-ab12\n> Keep the parser pure.\n<!-- tags: parser, style | created: 2026-01-02 -->\n\n" +
		"### mem-bad\n> An invalid id.\n<!-- tags: x | created: 2026-01-02 -->\n\n## Fixes\n\n### mem-1700000001-cd34\n> Retry once.\n<!-- tags: net | created: 2026-01-03 -->\n"
	os.WriteFile(file, []byte(text), 0o644)
	want, wantWs, err := c.Memories()
	if err != nil || len(want) != 2 || len(wantWs) == 0 {
		t.Fatalf("%+v %v %v", want, wantWs, err)
	}
	clock.Settle(t)
	c.Memories() // past the racy window: cached
	ms, ws, ok := c.CachedMemories()
	if !ok || !reflect.DeepEqual(ms, want) || !reflect.DeepEqual(ws, wantWs) {
		t.Fatalf("cached %v:\n%+v %+v\nwant\n%+v %+v", ok, ms, ws, want, wantWs)
	}
	if got, gotWs, _ := c.Memories(); !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotWs, wantWs) {
		t.Fatalf("through the cache %+v %+v", got, gotWs)
	}
	// Changed in place, the same size: the stamp differs.
	os.WriteFile(file, []byte(strings.Replace(text, "Retry once.", "Retry twice", 1)), 0o644)
	if got, _, _ := c.Memories(); len(got) != 2 || got[1].Content != "Retry twice" {
		t.Fatalf("after a change %+v", got)
	}
	// A file smaller than memCacheMinSize is not cached.
	*catalog.MemCacheMinSize = int64(len(text)) + 1
	os.Remove(c.MemoriesCachePath())
	c.Memories()
	clock.Settle(t)
	c.Memories()
	if _, err := os.Stat(c.MemoriesCachePath()); !os.IsNotExist(err) {
		t.Fatal("a small memories.md was cached")
	}
	*catalog.MemCacheMinSize = 0
	// Replaced by a link: nothing is read, and a warning says why.
	os.Remove(file)
	os.Symlink(filepath.Join(dir, "elsewhere.md"), file)
	if got, ws, _ := c.Memories(); len(got) != 0 || len(ws) != 1 {
		t.Fatalf("through a link %+v %v", got, ws)
	}
}

// After a change, the cache writes only what changed since it was
// written whole, as a delta over it (entries.delta): reads through the
// delta give what the files hold, a later change carries the delta's
// entries into the next, more than deltaLimit entries write the cache
// whole again, and a delta over a cache since replaced is not used.
func TestEntriesDelta(t *testing.T) {
	defer func(n int) { *catalog.DeltaMin = n }(*catalog.DeltaMin)
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
	clock := loretest.NewSettleClock(t, fsx.RacyWindow)
	s, c, err := openStore(t, dir, clock)
	if err != nil {
		t.Fatal(err)
	}
	c.SetSweepLimit(-1) // never stat every file
	var slugs []string
	for _, title := range []string{"Alpha notes", "Beta notes", "Gamma notes", "Epsilon notes"} {
		k, _, _, err := s.AddKnowledge(entry.NewKnowledge{Title: title, Body: "About " + title + ".", Tags: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, k.Slug)
	}
	for _, body := range []string{"Retry flaky network tests once.", "Vendor the parser generator.", "Pin the linter's version."} {
		if _, _, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"t"}, Body: body, Runs: []string{"r1"}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, notes := range []string{"first", "second"} {
		if _, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "r1", Outcome: "done", Notes: notes}); err != nil {
			t.Fatal(err)
		}
	}
	cache, delta := filepath.Join(s.StateDir(), "entries.cache"), filepath.Join(s.StateDir(), "entries.delta")
	settle := func() {
		t.Helper()
		c.Entries()
		clock.Settle(t)
		c.Entries()
	}
	check := func(when string) {
		t.Helper()
		want := entriesAsReadOneByOne(t, s, c, when)
		cat, _, err := c.Catalog()
		if err != nil {
			t.Fatal(err)
		}
		if all := cat.All(); !reflect.DeepEqual(all, want) {
			t.Fatalf("%s, the catalog:\ngot  %+v\nwant %+v", when, all, want)
		}
		// Each head walked is the head at its place, and none is at a
		// place walked over (a base's record no file has).
		for _, kind := range catalog.CatalogKinds {
			walked, last := 0, -1
			cat.Heads(kind, func(i int, h *catalog.Head) {
				walked++
				for gap := last + 1; gap < i; gap++ {
					if _, ok := cat.Head(kind, gap); ok {
						t.Errorf("%s: a %s head at %d, which Heads walks over", when, kind, gap)
					}
				}
				last = i
				if at, ok := cat.Head(kind, i); !ok || !reflect.DeepEqual(at, *h) {
					t.Errorf("%s: the %s head at %d is %+v, %v; Heads walks %+v", when, kind, i, at, ok, *h)
				}
			})
			if n := cat.Len(kind); n != walked {
				t.Errorf("%s: %d %s heads, Len says %d", when, walked, kind, n)
			}
		}
	}
	settle()
	check("written whole")
	base, err := os.Stat(cache)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(delta); !os.IsNotExist(err) {
		t.Fatal("a delta before any change")
	}

	// Renamed over, deleted, added.
	p := filepath.Join(dir, ".agent/knowledge", slugs[0]+".md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p+".tmp", append(data, "More.\n"...), 0o644)
	os.Rename(p+".tmp", p)
	learnings, _, _ := s.Learnings()
	os.Remove(filepath.Join(dir, filepath.FromSlash(learnings[1].Path)))
	added, _, _, err := s.AddKnowledge(entry.NewKnowledge{Title: "Delta notes", Body: "New.", Tags: []string{"y"}})
	if err != nil {
		t.Fatal(err)
	}
	settle()
	check("through a delta")
	if fi, err := os.Stat(cache); err != nil || !os.SameFile(fi, base) {
		t.Fatal("the cache was written whole for three changes")
	}
	if _, err := os.Stat(delta); err != nil {
		t.Fatal("no delta")
	}
	cat, _, _ := c.Catalog()
	if cached, over := cat.Cached(); !cached || !over {
		t.Fatal("an unchanged store is not read through its delta")
	}
	old, _ := os.ReadFile(delta)

	// The delta's own entry changed, a journal entry of the cache's
	// deleted: the new delta carries the rest.
	ap := filepath.Join(dir, filepath.FromSlash(added.Path))
	data, _ = os.ReadFile(ap)
	os.WriteFile(ap+".tmp", append(data, "Changed.\n"...), 0o644)
	os.Rename(ap+".tmp", ap)
	journal, _, _ := s.Journal()
	os.Remove(filepath.Join(dir, filepath.FromSlash(journal[0].Path)))
	settle()
	check("through a second delta")
	if fi, _ := os.Stat(cache); !os.SameFile(fi, base) {
		t.Fatal("the cache was written whole for two more changes")
	}

	// More changes than a delta holds: written whole, the delta gone.
	*catalog.DeltaMin = 1
	if _, _, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"u"}, Body: "Close the body.", Runs: []string{"r1"}}); err != nil {
		t.Fatal(err)
	}
	settle()
	check("written whole again")
	if fi, _ := os.Stat(cache); os.SameFile(fi, base) {
		t.Fatal("the cache was not written whole")
	}
	if _, err := os.Stat(delta); !os.IsNotExist(err) {
		t.Fatal("the delta was kept")
	}

	// A delta over the cache before is not read.
	os.WriteFile(delta, old, 0o644)
	if c.ReadsOverDelta() {
		t.Fatal("a delta over a replaced cache was read")
	}
	check("a stale delta")
}

// entriesAsReadOneByOne checks that Entries, read through the cache, is
// what reading each kind on its own finds, with no warning, and returns it.
func entriesAsReadOneByOne(t *testing.T, s *mdstore.Store, c *catalog.Cache, when string) catalog.Entries {
	t.Helper()
	got, ws, err := c.Entries()
	if err != nil || len(ws) != 0 {
		t.Fatalf("%s: %v %v", when, ws, err)
	}
	var want catalog.Entries
	want.Knowledge, _, _ = s.Knowledge()
	want.Learnings, _, _ = s.Learnings()
	want.Journal, _, _ = s.Journal()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s:\ngot  %+v\nwant %+v", when, got, want)
	}
	return got
}

// gitRepo is a repository with one commit, and C git in it.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	return r.Dir, r.Git
}

// openStore opens the store at dir, and the caches over it read as the
// store reads them, with clock, which the test moves past the racy window
// (clock.Settle) instead of waiting it out: the cache trusts a file's
// stamp only once the file is older than the window by the store's clock.
func openStore(t *testing.T, dir string, clock *loretest.SettleClock) (*mdstore.Store, *catalog.Cache, error) {
	home := t.TempDir()
	s, err := mdstore.Open(dir, mdstore.Options{Now: clock.Now, Random: rand.Reader,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}})
	if err != nil {
		return nil, nil, err
	}
	gitIndex, prefix := s.GitIndex()
	c := catalog.NewCache(catalog.NewWorktree(s.Root(), false), s.StateDir(), gitIndex, prefix, clock.Now)
	t.Cleanup(c.Close)
	return s, c, nil
}
