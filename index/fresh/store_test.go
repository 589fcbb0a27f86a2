package fresh_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/fsx"
	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// storeRepo is a lore store in a real git repository, and the manifest of
// an index of it: each check reads the manifest, checks the store against
// it and writes it back, as bleveindex does before every search.
type storeRepo struct {
	*loretest.Repo
	t        *testing.T
	root     string // the store root, holding .agent/
	store    *mdstore.Store
	fs       fresh.Store
	manifest string
	sweep    int // the sweep limit fresh.Every decides with
	// clock is the clock of every check and rebuild: it stands still
	// until settle moves it past the racy window of what was written.
	clock *loretest.SettleClock
}

// newStoreRepo makes a repository with an initialised store at the top
// of its worktree.
func newStoreRepo(t *testing.T, sweep int) *storeRepo {
	t.Helper()
	return newStoreRepoIn(t, sweep, "")
}

// newStoreRepoIn makes a repository with an initialised store in its
// subdirectory sub ("" for the top).
func newStoreRepoIn(t *testing.T, sweep int, sub string) *storeRepo {
	t.Helper()
	repo := loretest.NewRepo(t)
	r := &storeRepo{Repo: repo, t: t, root: repo.Path(sub), sweep: sweep,
		manifest: filepath.Join(t.TempDir(), "gen-test.manifest"), clock: loretest.NewSettleClock(t, fsx.RacyWindow)}
	if err := os.MkdirAll(r.root, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := mdstore.Open(r.root, mdstore.Options{Getenv: repo.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Init(false); err != nil {
		t.Fatal(err)
	}
	r.store = s
	gitIndex, prefix := s.GitIndex()
	if gitIndex == "" || prefix != filepath.ToSlash(sub) {
		t.Fatalf("store in %q: git index %q, prefix %q", sub, gitIndex, prefix)
	}
	r.fs = fresh.Store{Root: r.root, GitIndex: gitIndex, Prefix: prefix}
	return r
}

// path is the absolute path of store path p.
func (r *storeRepo) path(p string) string { return filepath.Join(r.root, filepath.FromSlash(p)) }

// write writes store file p by hand, in place, making its directories.
func (r *storeRepo) write(p, content string) { r.At(r.root).Write(p, content) }

// read reads store file p.
func (r *storeRepo) read(p string) string { return r.At(r.root).Read(p) }

// saveAs replaces store file p the way many editors save: a new file
// renamed over the old one.
func (r *storeRepo) saveAs(p, content string) {
	r.t.Helper()
	if err := os.WriteFile(r.path(p)+".tmp", []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
	if err := os.Rename(r.path(p)+".tmp", r.path(p)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *storeRepo) addMemory(content string, tags ...string) entry.Memory {
	r.t.Helper()
	m, _, err := r.store.AddMemory(mdstore.NewMemory{Type: entry.Pattern, Content: content, Tags: tags})
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func (r *storeRepo) addKnowledge(title, body string, tags ...string) entry.Knowledge {
	r.t.Helper()
	k, _, _, err := r.store.AddKnowledge(entry.NewKnowledge{Title: title, Body: body, Tags: tags})
	if err != nil {
		r.t.Fatal(err)
	}
	return k
}

// rebuild reads every entry file of the store, as a rebuild does, and
// writes the manifest it describes; once the files have settled, a check
// finds nothing to do.
func (r *storeRepo) rebuild() *fresh.Changes {
	r.t.Helper()
	ch := r.rebuildAt(r.clock.Now().UnixNano())
	r.settle()
	if again := r.check(); !again.Empty() {
		r.t.Fatalf("checked after a rebuild: %s; want nothing", describe(again))
	}
	return ch
}

// rebuildAt reads every entry file with the clock at now and writes the
// manifest.
func (r *storeRepo) rebuildAt(now int64) *fresh.Changes {
	r.t.Helper()
	ch, err := fresh.CheckAll(r.fs, now, nil, nil)
	if err != nil {
		r.t.Fatalf("rebuild: %v", err)
	}
	if err := fresh.WriteManifest(r.manifest, ch.Next); err != nil {
		r.t.Fatal(err)
	}
	return ch
}

// check checks the store against the manifest now.
func (r *storeRepo) check() *fresh.Changes {
	r.t.Helper()
	return r.checkAt(r.clock.Now().UnixNano())
}

// checkAt checks the store against the manifest with the clock at now,
// sweeping every file when the sweep limit says so, and writes the
// manifest back when the check changed it.
func (r *storeRepo) checkAt(now int64) *fresh.Changes {
	r.t.Helper()
	m, err := fresh.ReadManifest(r.manifest)
	if err != nil {
		r.t.Fatalf("read manifest: %v", err)
	}
	defer m.Close()
	ch, err := fresh.Check(r.fs, m, fresh.Every(m, r.sweep), now)
	if err != nil {
		r.t.Fatalf("check: %v", err)
	}
	if ch.Touched {
		if err := fresh.WriteManifest(r.manifest, ch.Next); err != nil {
			r.t.Fatal(err)
		}
	}
	return ch
}

// status checks every file against the manifest without writing it back,
// as `lore index status` does: whether the index is fresh.
func (r *storeRepo) status() *fresh.Changes {
	r.t.Helper()
	m, err := fresh.ReadManifest(r.manifest)
	if err != nil {
		r.t.Fatalf("read manifest: %v", err)
	}
	defer m.Close()
	ch, err := fresh.Check(r.fs, m, true, r.clock.Now().UnixNano())
	if err != nil {
		r.t.Fatalf("status check: %v", err)
	}
	return ch
}

// expect checks the store and wants exactly the documents of entries
// docs (by EntryID) to be (re)indexed and the document IDs remove to be
// dropped; then checks again and wants nothing, since nothing changed
// meanwhile.
func (r *storeRepo) expect(what string, docs, remove []string) *fresh.Changes {
	r.t.Helper()
	ch := r.check()
	wantChanges(r.t, what, ch, docs, remove)
	r.settle()
	if again := r.check(); !again.Empty() {
		r.t.Fatalf("%s, checked again: %s; want nothing", what, describe(again))
	}
	return ch
}

// settle puts everything written so far behind the racy window (see
// fsx.Stamp.Settled) by moving the clock of the checks past it, so that
// the next check trusts the stamps it records: the changes a test makes
// next are then found the way they are in a store left alone for a
// while, not merely because its files were written a moment before. (A
// file's change time cannot be set back: the clock is moved instead, and
// to no further than the file system's next tick, so that what changes
// afterwards is as new to the check as it is.)
func (r *storeRepo) settle() { r.clock.Settle(r.t) }

// wantChanges wants exactly the documents of entries docs (by EntryID)
// and the removals remove, in any order.
func wantChanges(t *testing.T, what string, ch *fresh.Changes, docs, remove []string) {
	t.Helper()
	if got, want := sorted(entryIDs(ch.Docs)), sorted(docs); !slices.Equal(got, want) {
		t.Fatalf("%s: documents of %q, want %q (%s)", what, got, want, describe(ch))
	}
	if got, want := sorted(ch.Remove), sorted(remove); !slices.Equal(got, want) {
		t.Fatalf("%s: removes %q, want %q (%s)", what, got, want, describe(ch))
	}
}

func entryIDs(docs []index.Doc) []string {
	out := []string{}
	for _, d := range docs {
		out = append(out, d.EntryID)
	}
	return out
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

func describe(ch *fresh.Changes) string {
	return fmt.Sprintf("documents %q, removals %q, %d files read, %d changed, touched %v", entryIDs(ch.Docs), ch.Remove, ch.Files, ch.Changed, ch.Touched)
}

// doc is the document of entry id among docs.
func doc(t *testing.T, docs []index.Doc, id string) index.Doc {
	t.Helper()
	for _, d := range docs {
		if d.EntryID == id {
			return d
		}
	}
	t.Fatalf("no document of %s among %q", id, entryIDs(docs))
	return index.Doc{}
}

// mentioning is the entries among docs whose title or text mention word
// (in any case), sorted: what a search for word would find among them.
func mentioning(docs []index.Doc, word string) []string {
	out := []string{}
	for _, d := range docs {
		if strings.Contains(strings.ToLower(d.Title+"\n"+d.Content), strings.ToLower(word)) {
			out = append(out, d.EntryID)
		}
	}
	return sorted(out)
}

// knowledgeFile is a knowledge entry as written by hand.
func knowledgeFile(title, body string) string {
	return "---\ntitle: \"" + title + "\"\ntags: [\"misc\"]\n---\n\n" + body + "\n"
}

// memoryDocID is the document ID of memory id: "<path>#<id>".
func memoryDocID(id string) string { return entry.MemoriesPath + "#" + id }

// knowledgePath is the store path of knowledge entry slug.
func knowledgePath(slug string) string { return entry.KnowledgeDir + "/" + slug + ".md" }

// sweeps runs fn for a store small enough to have every file looked at,
// and for one that only looks at its directories, memories.md and
// skills (and what git rewrote).
func sweeps(t *testing.T, fn func(t *testing.T, sweep int)) {
	for _, sweep := range []int{fresh.DefaultSweepLimit, -1} {
		t.Run(fmt.Sprintf("sweep=%d", sweep), func(t *testing.T) {
			t.Parallel()
			fn(t, sweep)
		})
	}
}
