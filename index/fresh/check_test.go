package fresh_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/mdstore/entry"
)

func TestHandEditsAreSeen(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		k := r.addKnowledge("Release checklist", "Tag, build, publish.", "release")
		m := r.addMemory("the release script needs a clean tree")
		ch := r.rebuild()
		wantChanges(t, "the first build", ch, []string{k.Slug, m.ID}, nil)
		if got := mentioning(ch.Docs, "gondola"); len(got) != 0 {
			t.Fatalf("before any edit %v mention the gondola", got)
		}

		// memories.md is watched whatever the store's size.
		r.write(entry.MemoriesPath, strings.Replace(r.read(entry.MemoriesPath), "clean tree", "clean tree and a gondola", 1))
		ch = r.expect("a memory edited by hand", []string{m.ID}, nil)
		if d := doc(t, ch.Docs, m.ID); d.Content != "the release script needs a clean tree and a gondola" || d.ID != memoryDocID(m.ID) {
			t.Fatalf("the edited memory's document: %+v", d)
		}

		// A new file, written by hand, changes its directory.
		r.write(knowledgePath("cable-cars"), knowledgeFile("Gondola lifts", "Cable cars."))
		ch = r.expect("a new file written by hand", []string{"cable-cars"}, nil)
		if d := doc(t, ch.Docs, "cable-cars"); d.Title != "Gondola lifts" || d.ID != knowledgePath("cable-cars") {
			t.Fatalf("the new file's document: %+v", d)
		}

		// An editor that saves by renaming a new file over the old one.
		r.saveAs(knowledgePath(k.Slug), strings.Replace(r.read(knowledgePath(k.Slug)), "publish", "publish the gondola", 1))
		ch = r.expect("a rename-save", []string{k.Slug}, nil)
		if d := doc(t, ch.Docs, k.Slug); !strings.Contains(d.Content, "publish the gondola") {
			t.Fatalf("after a rename-save the document says %q", d.Content)
		}

		// Rewritten in place (same inode, same directory): seen in a small
		// store, where every file is stat'ed before each search. A large
		// store sees it on rebuild (documented).
		r.write(knowledgePath("cable-cars"), knowledgeFile("Chair lifts", "Open chairs."))
		if sweep >= 0 {
			ch = r.expect("an in-place edit", []string{"cable-cars"}, nil)
		} else {
			ch = r.rebuild()
			wantChanges(t, "a rebuild after an in-place edit", ch, []string{k.Slug, m.ID, "cable-cars"}, nil)
		}
		if d := doc(t, ch.Docs, "cable-cars"); d.Title != "Chair lifts" || d.Content != "Open chairs." {
			t.Fatalf("after an in-place edit: %+v", d)
		}
		if got := mentioning(ch.Docs, "gondola"); slices.Contains(got, "cable-cars") || sweep < 0 && len(got) != 2 {
			t.Fatalf("after an in-place edit %v mention the gondola; want two entries, not the cable cars", got)
		}

		// Deleted by hand.
		if err := os.Remove(r.path(knowledgePath("cable-cars"))); err != nil {
			t.Fatal(err)
		}
		r.expect("a file deleted by hand", nil, []string{knowledgePath("cable-cars")})
	})
}

// A pull is seen in a small store, where every file is stat'ed, and in a
// large one, where only directories are: git rewrites a file by removing
// it and creating it again, which often gives it back its inode number,
// so there the stat git keeps in its index is what tells.
func TestPullIsSeen(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		keep := r.addKnowledge("Kept entry", "Nothing about airships.", "misc")
		gone := r.addKnowledge("Doomed entry", "The balloon pops.", "misc")
		var edited []string
		for i := 0; i < 20; i++ {
			edited = append(edited, r.addKnowledge(fmt.Sprintf("Entry %02d", i), "Plain words.", "misc").Slug)
		}
		all := append([]string{keep.Slug, gone.Slug}, edited...)
		ch := r.rebuild()
		wantChanges(t, "the first build", ch, all, nil)
		if got := mentioning(ch.Docs, "balloon"); !slices.Equal(got, []string{gone.Slug}) {
			t.Fatalf("before the pull %v mention the balloon, want the doomed entry", got)
		}

		// A second clone adds, edits and deletes, and pushes; the first pulls.
		other := filepath.Join(t.TempDir(), "other")
		r.Git("clone", "-q", r.Dir, other)
		r.GitIn(other, "config", "user.name", "Other Person")
		r.GitIn(other, "config", "user.email", "other@example.com")
		r.Git("config", "receive.denyCurrentBranch", "ignore")
		writeIn := func(p, content string) {
			if err := os.WriteFile(filepath.Join(other, filepath.FromSlash(p)), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		writeIn(knowledgePath("balloon-rides"), knowledgeFile("Balloon rides", "Hot air."))
		writeIn(knowledgePath(keep.Slug), knowledgeFile("Kept entry", "Now about a balloon."))
		if err := os.Remove(filepath.Join(other, filepath.FromSlash(knowledgePath(gone.Slug)))); err != nil {
			t.Fatal(err)
		}
		for _, slug := range edited {
			data, err := os.ReadFile(filepath.Join(other, filepath.FromSlash(knowledgePath(slug))))
			if err != nil {
				t.Fatal(err)
			}
			writeIn(knowledgePath(slug), string(data)+"A dirigible.\n")
		}
		r.GitIn(other, "add", "-A")
		r.GitIn(other, "commit", "-q", "-m", "balloons")
		r.GitIn(other, "push", "-q", "origin", "HEAD:incoming")
		r.Git("merge", "-q", "--ff-only", "incoming")

		// The edited entries that mention the dirigible, balloon-rides and
		// the kept entry are indexed again; the doomed one is dropped.
		ch = r.expect("after the pull", append([]string{"balloon-rides", keep.Slug}, edited...), []string{knowledgePath(gone.Slug)})
		if got, want := mentioning(ch.Docs, "balloon"), sorted([]string{"balloon-rides", keep.Slug}); !slices.Equal(got, want) {
			t.Fatalf("after the pull %v mention the balloon, want %v", got, want)
		}
		if got := mentioning(ch.Docs, "dirigible"); !slices.Equal(got, sorted(edited)) {
			t.Fatalf("after the pull %v mention the dirigible, want the %d edited entries", got, len(edited))
		}

		// git restoring files without moving HEAD (a checkout of paths,
		// a stash) is seen too. The checkout brings back the old entries,
		// the doomed one among them; balloon-rides, which the old commit
		// lacks, stays.
		r.Git("checkout", "-q", "HEAD~1", "--", ".agent/knowledge")
		ch = r.expect("after checking out the old entries", append([]string{keep.Slug, gone.Slug}, edited...), nil)
		if got := mentioning(ch.Docs, "dirigible"); len(got) != 0 {
			t.Fatalf("after checking out the old entries %v still mention the dirigible", got)
		}
		if got := mentioning(ch.Docs, "balloon"); !slices.Equal(got, []string{gone.Slug}) {
			t.Fatalf("after checking out the old entries %v mention the balloon, want the doomed entry", got)
		}
		r.Git("stash", "-q")
		ch = r.expect("after git stash", append([]string{keep.Slug}, edited...), []string{knowledgePath(gone.Slug)})
		if got := mentioning(ch.Docs, "dirigible"); !slices.Equal(got, sorted(edited)) {
			t.Fatalf("after git stash %v mention the dirigible, want the %d edited entries", got, len(edited))
		}
		if st := r.status(); !st.Empty() || st.Changed != 0 {
			t.Fatalf("status after the checks: %s; want fresh", describe(st))
		}
	})
}
