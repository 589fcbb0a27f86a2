package fresh_test

import (
	"os"
	"testing"

	"lore/mdstore/entry"
)

func (r *storeRepo) addJournal(run, notes string) entry.JournalEntry {
	r.t.Helper()
	e, _, _, err := r.store.AddJournal(entry.JournalEntry{RunID: run, Outcome: "done", Notes: notes})
	if err != nil {
		r.t.Fatal(err)
	}
	return e
}

// A journal run is a directory of its own: a new run is found when the
// journal directory changes, and a run removed whole takes its entries
// with it.
func TestJournalRunsComeAndGo(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		a1 := r.addJournal("run-a", "Tried the cache.")
		a2 := r.addJournal("run-a", "Tried it again.")
		b1 := r.addJournal("run-b", "Another run.")
		ch := r.rebuild()
		wantChanges(t, "the first build", ch, []string{a1.Key(), a2.Key(), b1.Key()}, nil)
		if d := doc(t, ch.Docs, a2.Key()); d.ID != a2.Path || d.Run != "run-a" || d.Content != "Tried it again." {
			t.Fatalf("a journal entry's document: %+v", d)
		}

		c1 := r.addJournal("run-c", "A third run.")
		r.expect("a new run", []string{c1.Key()}, nil)
		b2 := r.addJournal("run-b", "Its second iteration.")
		r.expect("an iteration added to a run", []string{b2.Key()}, nil)

		if err := os.RemoveAll(r.path(entry.JournalDir + "/run-a")); err != nil {
			t.Fatal(err)
		}
		r.expect("a run removed whole", nil, []string{a1.Path, a2.Path})

		// A run directory that becomes a file is a run removed.
		if err := os.RemoveAll(r.path(entry.JournalDir + "/run-c")); err != nil {
			t.Fatal(err)
		}
		r.write(entry.JournalDir+"/run-c", "not a run\n")
		r.expect("a run that became a file", nil, []string{c1.Path})

		// The journal removed whole.
		if err := os.RemoveAll(r.path(entry.JournalDir)); err != nil {
			t.Fatal(err)
		}
		r.expect("the journal removed", nil, []string{b1.Path, b2.Path})
	})
}

// An entry file that becomes a directory is an entry removed; so is
// memories.md becoming one.
func TestFileBecomesADirectory(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		k := r.addKnowledge("Soon a folder", "Plain words.", "misc")
		other := r.addKnowledge("Stays a file", "Plain words.", "misc")
		m := r.addMemory("memories.md will be a folder")
		wantChanges(t, "the first build", r.rebuild(), []string{k.Slug, other.Slug, m.ID}, nil)

		if err := os.Remove(r.path(knowledgePath(k.Slug))); err != nil {
			t.Fatal(err)
		}
		r.write(knowledgePath(k.Slug)+"/inside.md", knowledgeFile("Inside", "Not an entry: knowledge has no subfolders."))
		r.expect("a knowledge file that became a directory", nil, []string{knowledgePath(k.Slug)})

		if err := os.Remove(r.path(entry.MemoriesPath)); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(r.path(entry.MemoriesPath), 0o755); err != nil {
			t.Fatal(err)
		}
		r.expect("memories.md that became a directory", nil, []string{memoryDocID(m.ID)})

		// And back.
		if err := os.RemoveAll(r.path(knowledgePath(k.Slug))); err != nil {
			t.Fatal(err)
		}
		r.write(knowledgePath(k.Slug), knowledgeFile("A file again", "Plain words."))
		r.expect("a directory that became a knowledge file", []string{k.Slug}, nil)
	})
}

// The whole store removed drops every document; made again, every entry
// is found.
func TestStoreRemovedAndRestored(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		k := r.addKnowledge("A knowledge entry", "Plain words.", "misc")
		m := r.addMemory("a memory")
		j := r.addJournal("run-a", "An iteration.")
		r.write(".agent/skills/deploy/SKILL.md", skillFile("deploy", "Ship it."))
		r.write(".claude/skills/review/SKILL.md", skillFile("review", "Read it."))
		all := []string{k.Slug, m.ID, j.Key(), "deploy", "review"}
		wantChanges(t, "the first build", r.rebuild(), all, nil)

		if err := os.RemoveAll(r.path(".agent")); err != nil {
			t.Fatal(err)
		}
		r.expect(".agent removed", nil, []string{knowledgePath(k.Slug), memoryDocID(m.ID), j.Path, ".agent/skills/deploy/SKILL.md"})
		if err := os.RemoveAll(r.path(".claude/skills")); err != nil {
			t.Fatal(err)
		}
		r.expect(".claude/skills removed", nil, []string{".claude/skills/review/SKILL.md"})

		r.Git("checkout", "-q", "--", ".agent")
		r.write(".claude/skills/review/SKILL.md", skillFile("review", "Read it."))
		r.write(".agent/skills/deploy/SKILL.md", skillFile("deploy", "Ship it."))
		r.expect("the store restored", all, nil)
	})
}

// A file that no longer reads as an entry is dropped from the index,
// with a warning that names it; mended, it is indexed again.
func TestBrokenEntryIsDroppedWithAWarning(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		k := r.addKnowledge("Fragile", "Plain words.", "misc")
		wantChanges(t, "the first build", r.rebuild(), []string{k.Slug}, nil)

		good := r.read(knowledgePath(k.Slug))
		r.saveAs(knowledgePath(k.Slug), "---\ntitle: [unclosed\n---\n\nBody.\n")
		ch := r.check()
		wantChanges(t, "a knowledge file broken", ch, nil, []string{knowledgePath(k.Slug)})
		if len(ch.Warnings) == 0 || ch.Warnings[0].Path != knowledgePath(k.Slug) {
			t.Fatalf("warnings %+v, want one about %s", ch.Warnings, knowledgePath(k.Slug))
		}
		if again := r.check(); !again.Empty() {
			t.Fatalf("checked again: %s", describe(again))
		}

		r.saveAs(knowledgePath(k.Slug), good)
		r.expect("the file mended", []string{k.Slug}, nil)
	})
}
