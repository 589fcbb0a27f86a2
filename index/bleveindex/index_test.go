package bleveindex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/fsx"
	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// testRepo is a lore store in a real git repository (C git, through
// loretest), with the index under test.
type testRepo struct {
	*loretest.Repo
	t     *testing.T
	store *mdstore.Store
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	r := &testRepo{Repo: loretest.NewRepo(t), t: t}
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Init(false); err != nil {
		t.Fatal(err)
	}
	r.store = s
	return r
}

func (r *testRepo) index(opts Options) *Index {
	opts.GitIndex, opts.Prefix = r.store.GitIndex()
	return New(r.Dir, index.Dir(r.store), opts)
}

func (r *testRepo) addMemory(content string, tags ...string) entry.Memory {
	r.t.Helper()
	m, _, err := r.store.AddMemory(mdstore.NewMemory{Type: entry.Pattern, Content: content, Tags: tags})
	if err != nil {
		r.t.Fatal(err)
	}
	return m
}

func (r *testRepo) addKnowledge(title, body string, tags ...string) entry.Knowledge {
	r.t.Helper()
	k, _, _, err := r.store.AddKnowledge(entry.NewKnowledge{Title: title, Body: body, Tags: tags})
	if err != nil {
		r.t.Fatal(err)
	}
	return k
}

// ids searches and returns the entry ids of the hits.
func ids(t *testing.T, ix *Index, text string) []string {
	t.Helper()
	res, _, err := ix.Search(index.Query{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.EntryID)
	}
	return out
}

func wantIDs(t *testing.T, got []string, want ...string) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("hits %v, want %v", got, want)
	}
}

func TestFirstSearchBuildsTheIndex(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	m := r.addMemory("scorch blocks every other opener while one process writes", "bleve")
	ix := r.index(Options{})
	res, rep, err := ix.Search(index.Query{Text: "opener"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Rebuilt || rep.Reason != "there was no index" {
		t.Errorf("report %+v, want a rebuild because there was no index", rep)
	}
	if len(res.Hits) != 1 || res.Hits[0].EntryID != m.ID || res.Hits[0].Kind != entry.KindMemory {
		t.Fatalf("hits %+v", res.Hits)
	}
	if !strings.Contains(res.Hits[0].Snippet, "opener") {
		t.Errorf("snippet %q does not show the match", res.Hits[0].Snippet)
	}
	if out := r.Git("status", "--porcelain"); out != "" {
		t.Errorf("the index is not under the worktree: git status says\n%s", out)
	}
	// Nothing changed: the next search indexes nothing. (It may read
	// memories.md again: a file written within the racy window is.)
	_, rep, err = ix.Search(index.Query{Text: "opener"})
	if err != nil || rep.Indexed != 0 || rep.Rebuilt {
		t.Fatalf("second search: report %+v, err %v", rep, err)
	}
}

func TestLoreWritesAreSeen(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	ix := r.index(Options{})
	wantIDs(t, ids(t, ix, "zeppelin"))
	m := r.addMemory("a zeppelin floats over the build farm")
	wantIDs(t, ids(t, ix, "zeppelin"), m.ID)
	k := r.addKnowledge("Zeppelin maintenance", "Check the gas bags weekly.", "airships")
	wantIDs(t, ids(t, ix, "zeppelin"), k.Slug, m.ID)
	if _, _, err := r.store.DeleteMemory(m.ID); err != nil {
		t.Fatal(err)
	}
	wantIDs(t, ids(t, ix, "zeppelin"), k.Slug)
}

// A search that finds changes answers once the changed entries it can
// find are searchable, then indexes the others: what it answered is what
// the index answers once it holds everything.
func TestSearchAnswersBeforeIndexingTheRest(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	var slugs []string
	for i := 0; i < 30; i++ {
		slugs = append(slugs, r.addKnowledge(fmt.Sprintf("Note %02d", i), "Plain words.", "misc").Slug)
	}
	ix := r.index(Options{SweepLimit: -1})
	wantIDs(t, ids(t, ix, "gondola"))
	for i, slug := range slugs {
		word := "cablecar"
		if i%5 == 0 {
			word = "gondola" // six of thirty can be hits
		} else if i%5 == 1 {
			word = "Gondloa" // six more, two edits from the query
		}
		p := filepath.Join(r.Dir, ".agent/knowledge", slug+".md")
		data, _ := os.ReadFile(p)
		os.WriteFile(p+".tmp", append(data, "About the "+word+".\n"...), 0o644)
		os.Rename(p+".tmp", p)
	}
	// A typo that no entry holds, found fuzzily in both spellings.
	var early []string
	var earlyAnswer string
	res, rep, err := ix.SearchThen(index.Query{Text: "gondoal"}, func(res index.Result, rep index.Report) {
		for _, h := range res.Hits {
			early = append(early, h.EntryID)
		}
		earlyAnswer = answer(res)
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Indexed != 30 {
		t.Fatalf("report %+v, want 30 entries indexed", rep)
	}
	if len(early) != 12 || len(res.Hits) != 12 {
		t.Fatalf("answered %v early and %d hits in the end, want 12 of each", early, len(res.Hits))
	}
	later, rep, err := ix.Search(index.Query{Text: "gondoal"})
	if err != nil || rep.Indexed != 0 {
		t.Fatalf("second search: report %+v, %v; want nothing left to index", rep, err)
	}
	// The same hits with the same scores: the entries indexed after the
	// answer counted among the store's (index.Scorer weighs a word by
	// how many of them hold it).
	if got := answer(later); got != earlyAnswer {
		t.Fatalf("answered early:\n%s\nonce everything was indexed:\n%s", earlyAnswer, got)
	}
	if got := ids(t, ix, "cablecar"); len(got) != 18 {
		t.Fatalf("%d entries about the cable car, want 18 (indexed after the answer)", len(got))
	}
}

// A large store's first search is answered by scanning the files before
// the index is built; a small store's index is built first. Either way
// the index then answers as the scan did.
func TestLargeStoreFirstSearchScansThenBuilds(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	for i := 0; i < 12; i++ {
		word := "plain"
		if i%4 == 0 {
			word = "funicular"
		}
		r.addKnowledge(fmt.Sprintf("Note %02d", i), "About the "+word+" railway.", "misc")
	}
	for _, c := range []struct {
		sweep    int
		building bool
	}{{sweep: 5, building: true}, {sweep: 100, building: false}} {
		os.RemoveAll(index.Dir(r.store))
		ix := r.index(Options{SweepLimit: c.sweep})
		var early []string
		var earlyRep index.Report
		res, rep, err := ix.SearchThen(index.Query{Text: "funicular"}, func(res index.Result, rep index.Report) {
			earlyRep = rep
			for _, h := range res.Hits {
				early = append(early, h.EntryID)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Rebuilt {
			t.Errorf("sweep limit %d: report %+v, want the index built", c.sweep, rep)
		}
		if got := earlyRep.Building != ""; got != c.building {
			t.Errorf("sweep limit %d: answered with %+v; want it answered by scanning while the index is built: %v", c.sweep, earlyRep, c.building)
		}
		if c.building && earlyRep.Building != "there was no index" {
			t.Errorf("building because %q", earlyRep.Building)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.EntryID)
		}
		if c.building {
			wantIDs(t, got, early...)
		} else if early != nil {
			t.Errorf("sweep limit %d: answered %v before the index was built", c.sweep, early)
		}
		if len(got) != 3 {
			t.Fatalf("sweep limit %d: hits %v, want 3", c.sweep, got)
		}
		later := ids(t, ix, "funicular")
		sort.Strings(later)
		sort.Strings(got)
		wantIDs(t, later, got...)
	}
}

// A merge replaces segments; the writer removes them once the seal no
// longer holds them, so the index's size on disk is what it holds.
func TestReplacedSegmentsAreRemoved(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	// A rebuild indexes fresh.BatchSize documents at a time, a segment
	// each, and merges them into one.
	n := 2*fresh.BatchSize + 10
	for i := range n {
		r.Write(fmt.Sprintf(".agent/knowledge/note-%04d.md", i), fmt.Sprintf("---\ntitle: Note %d\ntags: [bus]\n---\n\nThe trolleybus line, stop %d.\n", i, i))
	}
	ix := r.index(Options{})
	if rep, err := ix.Rebuild("asked for"); err != nil || rep.Indexed != n {
		t.Fatalf("rebuild: %+v, %v; want %d entries indexed", rep, err, n)
	}
	d := fresh.Dir(index.Dir(r.store))
	gen, err := d.Current()
	if err != nil {
		t.Fatal(err)
	}
	seal, err := fresh.ReadSeal(d.Seal(gen))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(d.Generation(gen))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk, sealed []string
	for _, e := range entries {
		onDisk = append(onDisk, e.Name())
	}
	for _, f := range seal.Files {
		sealed = append(sealed, f.Name)
	}
	sort.Strings(sealed)
	if fmt.Sprint(onDisk) != fmt.Sprint(sealed) {
		t.Errorf("generation holds %v, the seal %v", onDisk, sealed)
	}
}

func TestAnotherProcessUpdatesTheIndex(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	ix1 := r.index(Options{})
	ix2 := r.index(Options{})
	wantIDs(t, ids(t, ix1, "walrus"))
	m := r.addMemory("a walrus in the pipeline")
	wantIDs(t, ids(t, ix2, "walrus"), m.ID) // ix2 brings the index up to date
	res, rep, err := ix1.Search(index.Query{Text: "walrus"})
	if err != nil || rep.Indexed != 0 || len(res.Hits) != 1 {
		t.Fatalf("ix1 after ix2's update: report %+v, hits %d, err %v", rep, len(res.Hits), err)
	}
}

func TestDamagedIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	m := r.addMemory("an otter holds the lock")
	dir := index.Dir(r.store)
	for name, damage := range map[string]func(gen string){
		"current": func(string) { os.WriteFile(filepath.Join(dir, "current"), []byte("garbage"), 0o644) },
		"format": func(gen string) {
			os.WriteFile(filepath.Join(dir, "current"), []byte("lore-index 999 "+gen+"\n"), 0o644)
		},
		"manifest": func(gen string) { os.WriteFile(filepath.Join(dir, gen+".manifest"), []byte("LOREMAN1 short"), 0o644) },
		"root":     func(gen string) { os.WriteFile(filepath.Join(dir, gen, "root.bolt"), []byte("not a bolt file"), 0o644) },
		"missing":  func(gen string) { os.RemoveAll(filepath.Join(dir, gen)) },
	} {
		t.Run(name, func(t *testing.T) {
			ix := r.index(Options{})
			wantIDs(t, ids(t, ix, "otter"), m.ID)
			gen, err := ix.dir.Current()
			if err != nil {
				t.Fatal(err)
			}
			damage(gen)
			res, rep, err := ix.Search(index.Query{Text: "otter"})
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Rebuilt {
				t.Errorf("report %+v: not rebuilt", rep)
			}
			if len(res.Hits) != 1 {
				t.Errorf("hits %+v", res.Hits)
			}
		})
	}
}

func TestBusyIndexDoesNotHang(t *testing.T) {
	r := newTestRepo(t)
	r.addMemory("a heron waits")
	ix := r.index(Options{Timeout: 100 * time.Millisecond})
	ids(t, ix, "heron")
	gen, _ := ix.dir.Current()

	// Another process holds the index open for writing, as bolt sees it
	// (the lock a writer takes on root.bolt), after this one checked it.
	unlock, err := fsx.Lock(filepath.Join(index.Dir(r.store), gen, "root.bolt"), true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _, err = ix.Search(index.Query{Text: "heron"})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("search on a busy index: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("search waited %v on a busy index with a 100ms timeout", d)
	}
	unlock()

	// Another lore process holds it open for writing, as lore's writers
	// do: with the write lock, the seal removed.
	wrote := make(chan struct{})
	release := make(chan struct{})
	go ix.dir.Locked(ix.opts.Timeout, func() error {
		w, _, err := ix.openChecked(gen, check{writable: true})
		if err != nil {
			t.Error(err)
		} else {
			defer w.Close()
		}
		close(wrote)
		<-release
		return nil
	})
	<-wrote
	start = time.Now()
	_, _, err = ix.Search(index.Query{Text: "heron"})
	close(release)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("search while another writes: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("search waited %v", d)
	}

	// Another process is updating: the write lock is taken.
	r.addMemory("a heron flies")
	held, updated := make(chan struct{}), make(chan struct{})
	go ix.dir.Locked(time.Second, func() error { close(held); <-updated; return nil })
	<-held
	start = time.Now()
	_, _, err = ix.Search(index.Query{Text: "heron"})
	close(updated)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("search while another updates: %v, want ErrBusy", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("search waited %v", d)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.addMemory("a kestrel hovers")
	r.addKnowledge("Kestrels", "Small falcons.", "birds")
	ix := r.index(Options{})
	st, err := ix.Status()
	if err != nil || st.Problem != "there was no index" {
		t.Fatalf("status before any search: %+v, %v", st, err)
	}
	if _, err := ix.Refresh(); err != nil {
		t.Fatal(err)
	}
	st, err = ix.Status()
	if err != nil || !st.Fresh || st.Documents != 2 || st.Files != 2 || !st.EveryFile {
		t.Fatalf("status after a refresh: %+v, %v", st, err)
	}
	r.Write(".agent/knowledge/kestrels.md", "---\ntitle: \"Kestrels\"\ntags: [\"birds\"]\n---\n\nHovering falcons.\n")
	st, err = ix.Status()
	if err != nil || st.Fresh || st.StaleFiles != 1 {
		t.Fatalf("status after a hand edit: %+v, %v", st, err)
	}
}

func TestConcurrentSearchesAfterAChange(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	ids(t, r.index(Options{}), "anything")
	m := r.addMemory("an osprey dives")
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() {
			res, _, err := r.index(Options{Timeout: 5 * time.Second}).Search(index.Query{Text: "osprey"})
			if err == nil && (len(res.Hits) != 1 || res.Hits[0].EntryID != m.ID) {
				err = fmt.Errorf("hits %+v", res.Hits)
			}
			errs <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	st, err := r.index(Options{}).Status()
	if err != nil || !st.Fresh || st.Documents != 1 {
		t.Fatalf("status after concurrent searches: %+v, %v", st, err)
	}
}

// Editing many files of two large directories at once: both directories
// are read again (side by side), every change is seen, and the search
// that indexes them answers from the updated index.
func TestManyFilesOfTwoDirectoriesChanged(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	words := strings.Fields("apples bricks cables dials engines forks gears hinges inks jars kilns levers")
	var knowledge []string
	for i, w := range words {
		knowledge = append(knowledge, r.addKnowledge("Notes on "+w, fmt.Sprintf("Entry %d.", i), "misc").Slug)
	}
	var learnings []string
	for i, w := range words {
		l, _, _, err := r.store.AddLearning(entry.NewLearning{Category: "pattern", Tags: []string{"misc"}, Body: fmt.Sprintf("Learning %d about %s.", i, w)})
		if err != nil {
			t.Fatal(err)
		}
		learnings = append(learnings, l.ID)
	}
	ix := r.index(Options{SweepLimit: -1})
	wantIDs(t, ids(t, ix, "zeppelin"))

	saveAs := func(p string) {
		full := filepath.Join(r.Dir, p)
		data, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(full+".tmp", append(data, "A zeppelin.\n"...), 0o644)
		if err := os.Rename(full+".tmp", full); err != nil {
			t.Fatal(err)
		}
	}
	var want []string
	for _, slug := range knowledge[:10] {
		saveAs(".agent/knowledge/" + slug + ".md")
		want = append(want, slug)
	}
	for _, id := range learnings[:10] {
		saveAs(".agent/learnings/" + id + ".md")
		want = append(want, id)
	}
	os.Remove(filepath.Join(r.Dir, ".agent/knowledge", knowledge[11]+".md"))
	os.Remove(filepath.Join(r.Dir, ".agent/learnings", learnings[11]+".md"))

	res, rep, err := ix.Search(index.Query{Text: "zeppelin"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Indexed != 20 || rep.Removed != 2 {
		t.Fatalf("report %+v, want 20 indexed and 2 removed", rep)
	}
	var got []string
	for _, h := range res.Hits {
		got = append(got, h.EntryID)
	}
	sort.Strings(got)
	sort.Strings(want)
	wantIDs(t, got, want...)
	wantIDs(t, ids(t, ix, "11")) // both deleted entries are gone
	if len(knowledge) != 12 || len(learnings) != 12 {
		t.Fatalf("%d knowledge entries and %d learnings, want 12 of each", len(knowledge), len(learnings))
	}
	if rep, err := ix.Refresh(); err != nil || rep.Indexed+rep.Removed != 0 {
		t.Fatalf("second refresh: %+v, %v; want nothing to do", rep, err)
	}
	if st, err := ix.Status(); err != nil || !st.Fresh || st.Documents != 22 {
		t.Fatalf("status %+v, %v; want fresh with 22 documents", st, err)
	}
}
