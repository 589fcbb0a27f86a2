package fresh_test

import (
	"os"
	"testing"
	"time"

	"lore/mdstore/entry"
)

// A file changed within the racy window before a check may change again
// without its stamp changing (timestamps are coarse): its stamp is not
// trusted, and the next checks look at the file again until it has
// settled. Files that settled are not read again.
func TestRacyFileIsLookedAtAgain(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		k := r.addKnowledge("Racy", "Written just before the check.", "misc")
		calm := r.addKnowledge("Calm", "Written long before.", "misc")
		m := r.addMemory("memories.md is written just before the check too")

		// The checks run on a clock an hour ahead: everything written so
		// far has settled, but for the files whose modification time is
		// set to just before that clock. A large store looks at
		// memories.md before every search, and at the other files only
		// when every file is looked at.
		now := time.Now().Add(time.Hour)
		racy := []string{entry.MemoriesPath}
		if sweep >= 0 {
			racy = append(racy, knowledgePath(k.Slug))
		}
		for _, p := range racy {
			if err := os.Chtimes(r.path(p), now, now.Add(-10*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
		}
		at := func(d time.Duration) int64 { return now.Add(d).UnixNano() }
		ch := r.rebuildAt(at(0))
		wantChanges(t, "the first build", ch, []string{k.Slug, calm.Slug, m.ID}, nil)

		for _, d := range []time.Duration{time.Millisecond, 20 * time.Millisecond} {
			ch = r.checkAt(at(d))
			wantChanges(t, "a check within the racy window", ch, nil, nil)
			if ch.Files != len(racy) || !ch.Touched {
				t.Fatalf("a check %v after the racy write read %d files (touched %v), want the %d racy ones read again", d, ch.Files, ch.Touched, len(racy))
			}
		}
		// Settled now: read once more, and the stamp is trusted from then on.
		if ch = r.checkAt(at(time.Second)); ch.Files != len(racy) || !ch.Empty() {
			t.Fatalf("the first check after the racy window: %s; want the %d racy files read again", describe(ch), len(racy))
		}
		if ch = r.checkAt(at(2 * time.Second)); ch.Files != 0 || ch.Touched || !ch.Empty() {
			t.Fatalf("a check once every file has settled: %s; want nothing read, the manifest untouched", describe(ch))
		}
	})
}
