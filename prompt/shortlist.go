package prompt

import (
	"slices"
	"time"

	"lore/mdstore/catalog"
	"lore/mdstore/entry"
	"lore/strategy"
)

// Shortlist is the entries a prime for a task may show, chosen from a
// catalog's heads in two steps so that the first runs while the search
// index is asked: NewShortlist chooses by everything but full-text
// relevance, With adds the entries relevance alone makes relevant.
// Without a task, every knowledge entry and learning, and the journal
// entries the Run Journal and the loop status look at. Prime gives the
// same context from the shortlist as from every entry, and a large
// store's entries are read whole only when chosen.
type Shortlist struct {
	c *catalog.Catalog
	t Task
	// The places of the entries chosen so far, of each kind (knowledge,
	// learnings, journal), ascending.
	chosen [3][]int
	// scored are the other runs' journal entries that only their score
	// brings in (rankJournal), of which a prime shows at most
	// RelevantJournal: With keeps the best.
	scored []scoredHead
}

// scoredHead is a journal entry as rankJournal orders it: its place, what
// it matches of the task, its score once its relevance is known, the
// files it shares with the latest iteration's, its time, and its path
// (its key in the relevance).
type scoredHead struct {
	place int
	match journalMatch
	score float64
	tie   int
	time  moment
	path  string
}

// better says whether a comes before b in rankJournal's order (best):
// more relevant, then sharing more of the latest iteration's files,
// then newer.
func (a *scoredHead) better(b *scoredHead) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.tie != b.tie {
		return a.tie > b.tie
	}
	return a.time.after(b.time)
}

// shortlistKinds are the kinds of Shortlist.chosen.
var shortlistKinds = [3]entry.Kind{entry.KindKnowledge, entry.KindLearning, entry.KindJournal}

// NewShortlist chooses from c the entries a prime for task t may show
// whatever their relevance: the knowledge and learnings whose tags score
// (rankKnowledge, rankLearnings), and the journal entries the Run
// Journal, Previous Attempts and the loop status look at — the task's run
// (with no run, the latest's and those of strategy.RunWindow), the task's
// attempts, the latest entry, and the other runs' entries rankJournal
// scores (of those only the best, in With). Without a task, every
// knowledge entry and every learning of the statuses shown, and those
// journal entries.
func NewShortlist(c *catalog.Catalog, t Task) *Shortlist {
	sl := &Shortlist{c: c, t: t}
	// The latest journal entry (the first in Entries' order of those
	// created last, as latest finds it), then the entries to read.
	last, latest := -1, catalog.Head{}
	c.Heads(entry.KindJournal, func(i int, h *catalog.Head) {
		if last < 0 || newer(h.CreatedAt, latest.CreatedAt) ||
			!newer(latest.CreatedAt, h.CreatedAt) && catalog.CompareJournalHeads(h, &latest) < 0 {
			last, latest = i, *h
			latest.FilesModified = slices.Clone(h.FilesModified)
		}
	})
	run, window := t.Run, ""
	if run == "" && last >= 0 {
		run = latest.RunID
		window = entry.ParseTimestamp(latest.CreatedAt).Add(-strategy.RunWindow).UTC().Format(time.RFC3339)
	}
	// The task's files and the latest iteration's: all the journal's
	// score and its tie-breaker need.
	files := taskKeywords(t, nil, []entry.JournalEntry{{CreatedAt: latest.CreatedAt, FilesModified: latest.FilesModified}})
	c.Heads(entry.KindJournal, func(i int, h *catalog.Head) {
		keep := i == last || h.RunID == run || t.ID != "" && h.TaskID == t.ID
		if !keep && window != "" {
			keep = !newer(window, h.CreatedAt)
		}
		if keep {
			sl.chosen[2] = append(sl.chosen[2], i)
		} else if m, tie := files.journalMatch(h.TaskID, h.FeatureID, h.FilesModified, t); m.score(0) > 0 {
			sl.scored = append(sl.scored, scoredHead{place: i, match: m, tie: tie, time: momentOf(h.CreatedAt), path: h.Path})
		}
	})
	if !t.Given() {
		c.Heads(entry.KindKnowledge, func(i int, h *catalog.Head) { sl.chosen[0] = append(sl.chosen[0], i) })
		c.Heads(entry.KindLearning, func(i int, h *catalog.Head) {
			if entry.Wanted(t.Statuses, h.State()) {
				sl.chosen[1] = append(sl.chosen[1], i)
			}
		})
		return sl
	}
	journal := c.Journal(sl.chosen[2])
	kw := taskKeywords(t, strategy.Attempts(journal, t.ID), journal)
	c.Heads(entry.KindKnowledge, func(i int, h *catalog.Head) {
		if kw.knowledgeScore(h.Tags, t, 0) > 0 {
			sl.chosen[0] = append(sl.chosen[0], i)
		}
	})
	c.Heads(entry.KindLearning, func(i int, h *catalog.Head) {
		if entry.Wanted(t.Statuses, h.State()) && kw.learningScore(h.Tags, 0) > 0 {
			sl.chosen[1] = append(sl.chosen[1], i)
		}
	})
	return sl
}

// With returns the entries chosen, and those rel (the relevance Prime will
// be given) makes relevant, in the order Entries returns them.
func (sl *Shortlist) With(rel map[string]float64) catalog.Entries {
	var more [3][]int // the places relevance adds (an inactive learning among them is left out by the ranking)
	for p, r := range rel {
		if r <= 0 {
			continue
		}
		if kind, i, ok := sl.c.Find(p); ok {
			k := slices.Index(shortlistKinds[:], kind)
			more[k] = append(more[k], i)
		}
	}
	var all [3][]int
	for k := range all {
		slices.Sort(more[k])
		all[k] = union(sl.chosen[k], more[k])
	}
	all[2] = union(all[2], sl.bestScored(rel))
	return catalog.Entries{Knowledge: sl.c.Knowledge(all[0]), Learnings: sl.c.Learnings(all[1]), Journal: sl.c.Journal(all[2])}
}

// bestScored is the places, ascending, of the journal entries brought in
// by their score alone that a prime with relevance rel may show. The Run
// Journal takes the first RelevantJournal of the other runs' entries in
// rankJournal's order, passing over those Previous Attempts showed (the
// task's, chosen already, as are all the others it may pass over): at
// most RelevantJournal of these, the best. So the best n of them, and
// any as good as the n-th (rankJournal breaks such ties by the entries'
// order), are all it needs.
func (sl *Shortlist) bestScored(rel map[string]float64) []int {
	const n = RelevantJournal
	var best []scoredHead // the n best so far, best first
	for _, h := range sl.scored {
		h.score = h.match.score(rel[h.path]) // as rankJournal adds it up
		if len(best) == n && !h.better(&best[n-1]) {
			continue
		}
		at := len(best)
		for at > 0 && h.better(&best[at-1]) {
			at--
		}
		best = slices.Insert(best, at, h)[:min(len(best)+1, n)]
	}
	var out []int
	for _, h := range sl.scored {
		h.score = h.match.score(rel[h.path])
		if len(best) < n || !best[n-1].better(&h) {
			out = append(out, h.place)
		}
	}
	return out
}

// union merges two ascending lists of places, each place once.
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	for i, j := 0, 0; i < len(a) || j < len(b); {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default: // in both
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
