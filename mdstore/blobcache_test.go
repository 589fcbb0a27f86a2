package mdstore

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/internal/neardup"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// A write's duplicate check finds every near-duplicate seed 002's rule
// defines (the same category, more than 80% of the keywords shared), and
// the first of them, whether it compares each question with the stored
// learnings' keywords (a change asking about few) or files them all in a
// Duplicates (a change asking about many): both answer as comparing with
// every stored learning does, on the same fixtures.
func TestStoredLearningsFindEveryDuplicate(t *testing.T) {
	t.Parallel()
	vocabulary := strings.Fields("lock index commit merge rebase stash branch tag tree blob object pack ref head fsync rename")
	rng := rand.New(rand.NewPCG(3, 5))
	body := func() string {
		words := make([]string, 3+rng.IntN(12))
		for i := range words {
			words[i] = vocabulary[rng.IntN(len(vocabulary))]
		}
		return strings.Join(words, " ")
	}
	categories := []string{"pitfall", "testing_strategy"}
	// Few creation times, so that the oldest of several duplicates, and
	// the first of equally old ones, is what is asked for.
	var stored []entry.Learning
	for i := range 1000 {
		stored = append(stored, entry.Learning{ID: fmt.Sprintf("l-%04d", i), Category: categories[rng.IntN(2)], Body: body(), Status: "active",
			CreatedAt: fmt.Sprintf("2026-01-0%dT00:00:00Z", 1+rng.IntN(3))})
	}
	var asked []entry.Learning
	for range 400 {
		if rng.IntN(2) == 0 { // a stored one in other words: the same words, another order and case
			l := stored[rng.IntN(len(stored))]
			ws := strings.Fields(l.Body)
			rng.Shuffle(len(ws), func(i, j int) { ws[i], ws[j] = ws[j], ws[i] })
			asked = append(asked, entry.Learning{Category: l.Category, Body: strings.ToUpper(strings.Join(ws, ", "))})
		} else {
			asked = append(asked, entry.Learning{Category: categories[rng.IntN(2)], Body: body()})
		}
	}
	scan := &StoredLearnings{loaded: true}
	for _, l := range stored {
		scan.stored = append(scan.stored, catalog.ByBlob[entry.Learning]{V: l, Words: neardup.Words(l.Body)})
	}
	oldestFirst := append([]entry.Learning{}, stored...)
	entry.SortLearnings(oldestFirst)
	var askedBodies []string
	for _, l := range asked {
		askedBodies = append(askedBodies, l.Body)
	}
	filed := &StoredLearnings{loaded: true, live: entry.NewLiveLearnings(stored, askedBodies)}
	found := 0
	for _, q := range asked {
		want := ""
		for _, l := range oldestFirst {
			if l.Category == q.Category && neardup.Near(neardup.KeywordSet(q.Body), neardup.KeywordSet(l.Body)) {
				want = l.ID
				break
			}
		}
		if want != "" {
			found++
		}
		if got, _ := scan.DuplicateOf(q.Category, q.Body); got.ID != want {
			t.Fatalf("comparing keywords: duplicateOf(%q, %q) = %q, want %q", q.Category, q.Body, got.ID, want)
		}
		if got, _ := filed.DuplicateOf(q.Category, q.Body); got.ID != want {
			t.Fatalf("filed: duplicateOf(%q, %q) = %q, want %q", q.Category, q.Body, got.ID, want)
		}
	}
	if found < 100 || found == len(asked) {
		t.Fatalf("%d of %d questions have a duplicate: the fixtures test too little", found, len(asked))
	}
}

// Writes decide from the learnings and knowledge HEAD has, through the
// blob cache: what git changes (a commit by C git editing a learning in
// place, a file removed) is what the next write sees; a damaged cache, or
// none, changes no decision; a store written as files only (commit: none)
// reads every file.
func TestBlobCacheDecidesAsReadingEveryFile(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	opts := testOptions(t.TempDir())
	opts.Random = nil // ids for many learnings
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	add := func(category, body string) (entry.Learning, bool) {
		t.Helper()
		l, dup, _, err := s.AddLearning(entry.NewLearning{Category: category, Tags: []string{"t"}, Body: body, Runs: []string{"r1"}})
		if err != nil {
			t.Fatal(err)
		}
		return l, dup
	}
	first, _ := add("pitfall", "The index lock must be taken before the objects are written.")
	add("pitfall", "Flaky tests come from shared temp directories between packages.")
	if _, err := os.Stat(filepath.Join(s.StateDir(), "blobs-learnings.cache")); err == nil {
		t.Fatal("two learnings made the cache rewrite itself: it waits for rewriteAfter misses")
	}
	filler := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
	for i := range catalog.RewriteAfter + 1 {
		if _, dup := add("tool_usage", "Filler "+filler[i%20]+" "+filler[(i/20+i+3)%20]+" "+filler[(i*7+1)%20]+" number"); dup {
			t.Fatalf("filler %d is a duplicate", i)
		}
	}
	cache := filepath.Join(s.StateDir(), "blobs-learnings.cache")
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("after %d new learnings there is no cache: %v", catalog.RewriteAfter+3, err)
	}
	if l, dup := add("pitfall", "the INDEX lock must be taken before the objects are written"); !dup || l.ID != first.ID {
		t.Fatalf("from the cache: %v %v, want a duplicate of %s", l.ID, dup, first.ID)
	}

	// C git rewrites the learning: the cache holds the old blob.
	p := filepath.Join(dir, filepath.FromSlash(first.Path))
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "The index lock must be taken before the objects are written.",
		"Pack files are verified with their index before any ref moves.", 1)), 0o644)
	git("commit", "-q", "-am", "edit a learning")
	if _, dup := add("pitfall", "The index lock must be taken before the objects are written."); dup {
		t.Fatal("the old text is still taken for a duplicate after git changed the learning")
	}
	if l, dup := add("pitfall", "pack files are verified with their index before any ref moves"); !dup || l.ID != first.ID {
		t.Fatalf("the learning as git has it now: %v %v", l.ID, dup)
	}

	// A damaged cache is no cache.
	os.WriteFile(cache, []byte("LOREBLOB\x01\x04\x05garbage"), 0o644)
	if l, dup := add("pitfall", "Pack files are verified with their index before any ref moves!"); !dup || l.ID != first.ID {
		t.Fatalf("with a damaged cache: %v %v", l.ID, dup)
	}

	// Files only: every file is read, the cache is not consulted.
	os.Remove(cache)
	os.WriteFile(filepath.Join(dir, ".agent", "config.yaml"), []byte("commit: none\n"), 0o644)
	if s, err = Open(dir, opts); err != nil {
		t.Fatal(err)
	}
	if l, dup := add("pitfall", "Flaky tests come from shared temp directories between packages"); !dup || l.Body == "" {
		t.Fatalf("files only: %v %v", l.ID, dup)
	}
	if _, err := os.Stat(cache); err == nil {
		t.Fatal("a store written as files only made a blob cache")
	}
}

// fillerStore is a store in a new git repository, with ids for many
// learnings, holding n learnings ("fillers") that duplicate none of one
// another, returned in the order they were added.
func fillerStore(t *testing.T, n int) (s *Store, dir string, git func(...string) string, fillers []entry.Learning) {
	t.Helper()
	dir, git = gitRepo(t)
	opts := testOptions(t.TempDir())
	opts.Random = nil
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango")
	for i := range n {
		l, dup, _, err := s.AddLearning(entry.NewLearning{Category: "tool_usage", Tags: []string{"t"}, Runs: []string{"r1"},
			Body: "Filler " + words[i%20] + " " + words[(i/20+i+3)%20] + " " + words[(i*7+1)%20] + " number"})
		if err != nil || dup {
			t.Fatalf("filler %d: %v %v", i, dup, err)
		}
		fillers = append(fillers, l)
	}
	return s, dir, git, fillers
}

// TestAChangedFileCostsOneParse: a learning changed since the cache was
// written is parsed again, and the cache still answers for the files after
// it. (The walk once stopped at the changed file's record, so that every
// later file was parsed again and the cache rewritten: 1.6 s for a
// knowledge add at 100k entries after an update of one entry.)
func TestAChangedFileCostsOneParse(t *testing.T) {
	t.Parallel()
	s, dir, git, fillers := fillerStore(t, catalog.RewriteAfter+9)
	var paths []string
	for _, l := range fillers {
		paths = append(paths, l.Path)
	}
	// A cache of every learning: made again by the next write.
	cache := filepath.Join(s.StateDir(), "blobs-learnings.cache")
	os.Remove(cache)
	if _, dup, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"t"}, Body: "Something new, about otters."}); err != nil || dup {
		t.Fatalf("add: %v %v", dup, err)
	}
	before, err := os.Stat(cache)
	if err != nil {
		t.Fatalf("no cache after %d learnings: %v", len(paths), err)
	}
	// C git changes the learning whose record comes first.
	slices.Sort(paths)
	p := filepath.Join(dir, filepath.FromSlash(paths[0]))
	data, _ := os.ReadFile(p)
	os.WriteFile(p, append(data, "Changed by hand.\n"...), 0o644)
	git("commit", "-q", "-am", "edit a learning")
	if _, dup, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"t"}, Body: "Something new entirely, about zebras."}); err != nil || dup {
		t.Fatalf("add: %v %v", dup, err)
	}
	after, err := os.Stat(cache)
	if err != nil || !os.SameFile(before, after) {
		t.Fatalf("one changed learning of %d made the write rewrite the cache (%v): the cache stopped answering after it", len(paths), err)
	}
}

// TestReadAheadIsUsedOnlyForTheTreeItRead: a learning add reads the stored
// learnings before it takes the lock; under the lock it uses them when
// HEAD's learnings are still the ones read, and reads again when a commit
// came in between.
func TestReadAheadIsUsedOnlyForTheTreeItRead(t *testing.T) {
	s, dir, git, fillers := fillerStore(t, catalog.RewriteAfter+2)
	first := fillers[0]
	add := func(body string) (entry.Learning, bool) {
		t.Helper()
		l, dup, _, err := s.AddLearning(entry.NewLearning{Category: "tool_usage", Tags: []string{"t"}, Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return l, dup
	}
	cache := filepath.Join(s.StateDir(), "blobs-learnings.cache")
	defer func() { afterReadAhead = nil }()

	// Nothing changed: what was read ahead is used. Were the learnings
	// read again under the lock, the cache removed here would be written
	// again (every learning a miss).
	afterReadAhead = func() {
		if len(s.ahead) != 1 {
			t.Errorf("read ahead: %d directories, want the learnings", len(s.ahead))
		}
		os.Remove(cache)
	}
	if _, dup := add("Something new entirely, about otters."); dup {
		t.Fatal("a new learning is a duplicate")
	}
	if _, err := os.Stat(cache); err == nil {
		t.Fatal("the learnings were read again under the lock although HEAD's were the ones read ahead")
	}

	// C git rewrites a learning between the read-ahead and the lock: the
	// write decides from the learning as committed.
	afterReadAhead = func() {
		p := filepath.Join(dir, filepath.FromSlash(first.Path))
		data, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(data), first.Body, "Pack files are verified with their index before any ref moves.", 1)), 0o644)
		git("commit", "-q", "-am", "edit a learning")
	}
	if l, dup := add("pack files are verified with their index before any ref moves"); !dup || l.ID != first.ID {
		t.Fatalf("after a commit between the read-ahead and the lock: %s %v, want a duplicate of %s as committed", l.ID, dup, first.ID)
	}
}
