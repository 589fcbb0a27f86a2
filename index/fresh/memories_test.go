package fresh_test

import (
	"os"
	"strings"
	"testing"

	"lore/mdstore/entry"
)

// memories.md holds many entries: a change to it reindexes only the
// memories whose document changed, and a memory gone from it is dropped
// by its document ID, "<path>#<id>".
func TestOnlyChangedMemoriesAreReindexed(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		a := r.addMemory("the build cache lives in /var/cache", "build")
		b := r.addMemory("deploys need the VPN", "ops")
		c := r.addMemory("the linter runs twice", "ci")
		ch := r.rebuild()
		wantChanges(t, "the first build", ch, []string{a.ID, b.ID, c.ID}, nil)
		for _, m := range []entry.Memory{a, b, c} {
			if d := doc(t, ch.Docs, m.ID); d.ID != memoryDocID(m.ID) || d.Path != entry.MemoriesPath || d.Content != m.Content {
				t.Fatalf("memory %s: document %+v", m.ID, d)
			}
		}

		// One memory's text edited by hand.
		r.write(entry.MemoriesPath, strings.Replace(r.read(entry.MemoriesPath), "need the VPN", "need the VPN and a token", 1))
		ch = r.expect("one memory edited", []string{b.ID}, nil)
		if d := doc(t, ch.Docs, b.ID); d.Content != "deploys need the VPN and a token" {
			t.Fatalf("the edited memory's document: %+v", d)
		}

		// Its tags: they are part of the document too.
		r.write(entry.MemoriesPath, strings.Replace(r.read(entry.MemoriesPath), "tags: ci |", "tags: ci, lint |", 1))
		ch = r.expect("one memory's tags edited", []string{c.ID}, nil)
		if d := doc(t, ch.Docs, c.ID); strings.Join(d.Tags, ",") != "ci,lint" {
			t.Fatalf("the retagged memory's document: %+v", d)
		}

		// A memory added by lore, one deleted by lore.
		d := r.addMemory("the staging database is reset nightly", "ops")
		r.expect("a memory added", []string{d.ID}, nil)
		if _, _, err := r.store.DeleteMemory(a.ID); err != nil {
			t.Fatal(err)
		}
		r.expect("a memory deleted", nil, []string{memoryDocID(a.ID)})

		// The file rewritten with the same memories in another order: no
		// document changed.
		text := r.read(entry.MemoriesPath)
		blocks := strings.Split(text, "\n### ")
		if len(blocks) != 4 {
			t.Fatalf("memories.md has %d memory blocks, want 3:\n%s", len(blocks)-1, text)
		}
		blocks[1], blocks[2] = blocks[2], blocks[1]
		r.write(entry.MemoriesPath, strings.Join(blocks, "\n### "))
		r.expect("the memories reordered", nil, nil)
		text = r.read(entry.MemoriesPath)

		// The whole file removed, then written again.
		if err := os.Remove(r.path(entry.MemoriesPath)); err != nil {
			t.Fatal(err)
		}
		r.expect("memories.md removed", nil, []string{memoryDocID(b.ID), memoryDocID(c.ID), memoryDocID(d.ID)})
		r.write(entry.MemoriesPath, text)
		r.expect("memories.md written again", []string{b.ID, c.ID, d.ID}, nil)
	})
}
