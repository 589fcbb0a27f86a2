package mdstore

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"lore/internal/fsx"
)

// Entries through the cache are what the loaders read from the files,
// whatever happened to the files since the cache was written.
func TestEntriesCache(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Dir), 0o755)
	s, err := Open(dir, realClock(t))
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, title := range []string{"Alpha notes", "Beta notes", "Gamma notes"} {
		k, _, _, err := s.AddKnowledge(NewKnowledge{Title: title, Body: "About " + title + ".", Tags: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		slugs = append(slugs, k.Slug)
	}
	// Learnings are named at random: the order of their paths is not the
	// order Entries returns them in, which the cache must keep.
	for _, body := range []string{"Retry flaky network tests once.", "Vendor the parser generator.", "Pin the linter's version.",
		"Run the migrations before the seeds.", "Keep fixtures under testdata.", "Close the response body."} {
		if _, _, _, err := s.AddLearning(NewLearning{Category: "pattern", Tags: []string{"t"}, Body: body, Runs: []string{"r1"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := s.AddJournal(JournalEntry{RunID: "r1", Outcome: "failed", TaskID: "t-1", Model: "opus", FilesModified: []string{"a.go"},
		DurationSecs: 12.5, Failure: &Failure{WhatTried: "x", WhyFailed: "y", RelevantFiles: []string{"b.go"}}}); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.AddJournal(JournalEntry{RunID: "r1", Outcome: "done", Notes: "fine"}); err != nil {
		t.Fatal(err)
	}
	// Written by hand: a file whose name sorts last and whose title sorts
	// first, so that the order of paths is not the order Entries returns.
	os.WriteFile(filepath.Join(dir, Dir, "knowledge", "zz-by-hand.md"), []byte("---\ntitle: Aardvark by hand\ntags: [x]\n---\nBody.\n"), 0o644)
	check := func(when string) {
		t.Helper()
		got, ws, err := s.Entries()
		if err != nil || len(ws) != 0 {
			t.Fatalf("%s: %v %v", when, ws, err)
		}
		var want Entries
		want.Knowledge, _, _ = s.Knowledge()
		want.Learnings, _, _ = s.Learnings()
		want.Journal, _, _ = s.Journal()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\ngot  %+v\nwant %+v", when, got, want)
		}
	}
	check("first read")
	time.Sleep(60 * time.Millisecond) // past the racy window: the next read uses the cache
	check("written")
	check("from the cache")
	served(t, s, slugs[0], true)

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
	s.AddKnowledge(NewKnowledge{Title: "Delta notes", Body: "New.", Tags: []string{"y"}})
	check("after changes")
	served(t, s, slugs[0], false) // changed less than the racy window ago: read again
	time.Sleep(60 * time.Millisecond)
	check("after changes, cached")
	served(t, s, slugs[0], true)
	served(t, s, slugs[1], true)

	// A new run's directory, a learning deleted: directories whose stamp
	// changed are listed again.
	if _, _, _, err := s.AddJournal(JournalEntry{RunID: "r2", Outcome: "done", Notes: "second run"}); err != nil {
		t.Fatal(err)
	}
	learnings, _, _ := s.Learnings()
	os.Remove(filepath.Join(dir, filepath.FromSlash(learnings[0].Path)))
	check("new run, learning deleted")
	time.Sleep(60 * time.Millisecond)
	check("new run, learning deleted, cached")
	os.RemoveAll(filepath.Join(dir, ".agent/journal/r2"))
	check("run removed")

	// A damaged cache is read as empty and rewritten.
	os.WriteFile(filepath.Join(s.StateDir(), "entries.cache"), []byte("LORECACH\x01\x05garbage"), 0o644)
	check("damaged cache")
	time.Sleep(60 * time.Millisecond)
	check("rewritten")
}

// The cache encodes every field of the entry types by hand: a field added
// to one of them must be added to the cache, with cacheVersion bumped.
func TestEntriesCacheCoversEveryField(t *testing.T) {
	for _, c := range []struct {
		v      any
		fields int
	}{{Knowledge{}, 9}, {Source{}, 2}, {Learning{}, 14}, {JournalEntry{}, 15}, {Failure{}, 6}} {
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
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Dir, "knowledge"), 0o755)
	s, err := Open(dir, realClock(t))
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, Dir, "knowledge", "broken.md")
	os.WriteFile(broken, []byte("---\ntitle: [unclosed\n---\nbody\n"), 0o644)
	os.WriteFile(filepath.Join(dir, Dir, "knowledge", "empty.md"), nil, 0o644)
	time.Sleep(60 * time.Millisecond)
	cache := filepath.Join(s.StateDir(), "entries.cache")
	var written os.FileInfo
	for i := range 3 {
		_, ws, err := s.Entries()
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
	time.Sleep(60 * time.Millisecond)
	e, ws, err := s.Entries()
	if err != nil || len(ws) != 1 || len(e.Knowledge) != 1 || e.Knowledge[0].Title != "Fixed" {
		t.Fatalf("after the fix: %+v %v %v", e.Knowledge, ws, err)
	}
}

// realClock gives a store the real clock: the cache trusts a file's stamp
// only once the file is older than the racy window, by the clock the file
// system stamps files with.
func realClock(t *testing.T) Options {
	opts := testOptions(t.TempDir())
	opts.Now, opts.Random = time.Now, rand.Reader
	return opts
}

// served checks whether the knowledge entry slug is served from the cache:
// the cache file is rewritten with the entry's body changed (its stamps
// kept), so a read that uses the cache returns that body, and a read of the
// file returns the file's.
func served(t *testing.T, s *Store, slug string, want bool) {
	t.Helper()
	path := filepath.Join(s.StateDir(), "entries.cache")
	c := readEntryCache(path)
	if len(c.paths) == 0 {
		t.Fatal("no cache to doctor")
	}
	l := listing{dirs: c.dirs, dirStamps: c.dirStamps, unchanged: true}
	var out Entries
	var stamps []fsx.Stamp
	for i, p := range c.paths {
		l.paths = append(l.paths, p)
		stamps = append(stamps, c.stamps[i])
		switch c.kinds[i] {
		case 'k':
			k := c.k[c.index[i]]
			if k.Slug == slug {
				k.Body = "FROM THE CACHE"
			}
			out.Knowledge = append(out.Knowledge, k)
		case 'l':
			out.Learnings = append(out.Learnings, c.l[c.index[i]])
		case 'j':
			out.Journal = append(out.Journal, c.j[c.index[i]])
		}
	}
	warnings := make([]*Warning, len(c.paths))
	for i := range c.paths {
		if c.kinds[i] == 'w' {
			warnings[i] = &c.w[c.index[i]]
		}
	}
	if err := writeEntryCache(path, l, stamps, out, warnings); err != nil {
		t.Fatal(err)
	}
	got, _, err := s.Entries()
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
	os.Remove(path)
	if _, _, err := s.Entries(); err != nil {
		t.Fatal(err)
	}
}

// A store larger than SweepLimit stats only what may have changed: the
// files of a directory whose stat changed, and those git wrote. A file
// rewritten in place by hand is served from the cache until git sees it
// (git add) or the cache is dropped (lore index rebuild); a commit or
// checkout git makes is seen.
func TestEntriesCacheLargeStore(t *testing.T) {
	for _, sub := range []string{"", "project/sub"} {
		t.Run("store at /"+sub, func(t *testing.T) {
			top, git := gitRepo(t)
			dir := filepath.Join(top, filepath.FromSlash(sub))
			os.MkdirAll(filepath.Join(dir, Dir), 0o755)
			s, err := Open(dir, realClock(t))
			if err != nil {
				t.Fatal(err)
			}
			s.sweep = -1 // never stat every file
			var slugs []string
			for _, title := range []string{"Alpha notes", "Beta notes"} {
				k, _, _, err := s.AddKnowledge(NewKnowledge{Title: title, Body: "About " + title + ".", Tags: []string{"x"}})
				if err != nil {
					t.Fatal(err)
				}
				slugs = append(slugs, k.Slug)
			}
			body := func(slug string) string {
				t.Helper()
				got, _, err := s.Entries()
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
				time.Sleep(60 * time.Millisecond)
				body(slugs[0]) // the cache records what is now settled
			}
			settle()
			served(t, s, slugs[0], true)

			// In place, by hand: the directory's stat is the same.
			rel := filepath.ToSlash(filepath.Join(sub, Dir, "knowledge", slugs[0]+".md"))
			p := filepath.Join(top, filepath.FromSlash(rel))
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), "About Alpha notes.", "Edited by hand.", 1)), 0o644)
			time.Sleep(60 * time.Millisecond)
			if got := body(slugs[0]); got != "About Alpha notes." {
				t.Fatalf("an in-place edit in a large store is seen only once git sees it; read %q", got)
			}
			git("add", rel)
			if got := body(slugs[0]); got != "Edited by hand." {
				t.Fatalf("after git add: %q", got)
			}
			git("commit", "-q", "-m", "edit")
			settle()
			served(t, s, slugs[0], true)

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
			served(t, s, slugs[1], true)

			// By hand again, then lore index rebuild drops the cache.
			settle()
			os.WriteFile(p, []byte(strings.Replace(string(data), "About Alpha notes.", "Second edit.", 1)), 0o644)
			time.Sleep(60 * time.Millisecond)
			if got := body(slugs[0]); got != "About Alpha notes." {
				t.Fatalf("the second in-place edit: %q", got)
			}
			if err := s.DropEntryCache(); err != nil {
				t.Fatal(err)
			}
			if got := body(slugs[0]); got != "Second edit." {
				t.Fatalf("after the cache was dropped: %q", got)
			}
		})
	}
}
