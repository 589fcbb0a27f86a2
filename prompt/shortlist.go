package prompt

import (
	"slices"
	"time"

	"lore/mdstore/catalog"
	"lore/mdstore/entry"
	"lore/strategy"
)

// Shortlist is what a prime for a task reads of a catalog, chosen from its
// heads in two steps so that the first runs while the search index is
// asked: NewShortlist ranks every knowledge entry and learning by its head
// (as candidates of the ranking, relevance aside) and chooses the journal
// entries a prime may show whatever their relevance; With adds the
// journal entries relevance makes relevant, and reads the journal
// entries chosen. Prime reads whole, of the knowledge and learnings, only
// those its sections examine, and gives the same context from the
// shortlist as from every entry.
type Shortlist struct {
	c *catalog.Catalog
	t Task
	// knowledge and learnings are the candidates of the catalog's
	// knowledge entries and learnings (of the statuses shown).
	knowledge, learnings []candidate
	// journal are the places of the journal entries chosen so far,
	// ascending.
	journal []int
	// scored are the other runs' journal entries that only their score
	// brings in (rankJournal), of which a prime shows at most
	// RelevantJournal: With keeps the best.
	scored []scoredHead
}

// Chosen is a catalog's knowledge and learnings as prime ranks them: the
// candidate each one's head makes, and the catalog to read it whole from
// when a section examines it (Shortlist.With, Input.Chosen).
type Chosen struct {
	c                    *catalog.Catalog
	knowledge, learnings []candidate
}

// candidates are ch's knowledge and learnings; none without ch.
func (ch *Chosen) candidates() (knowledge, learnings []candidate) {
	if ch == nil {
		return nil, nil
	}
	return ch.knowledge, ch.learnings
}

// reader reads ch's entries whole; nil without ch.
func (ch *Chosen) reader() *wholeEntries {
	if ch == nil {
		return nil
	}
	return &wholeEntries{catalog: ch.c}
}

// wholeEntries reads whole the knowledge entries and learnings a prime
// examines, each once: from Input's lists, or from the catalog their
// candidates were made from (by their places).
type wholeEntries struct {
	input   catalog.Entries
	catalog *catalog.Catalog
	// The entries read, by place; reads counts them (a test counts the
	// work a prime does).
	knowledgeRead map[int]*entry.Knowledge
	learningsRead map[int]*entry.Learning
	reads         int
}

// knowledge is the knowledge entry at place; nil when it cannot be read
// (its cached record is damaged and its file gone).
func (w *wholeEntries) knowledge(place int) *entry.Knowledge {
	return readOnce(w, place, &w.knowledgeRead, w.input.Knowledge, (*catalog.Catalog).Knowledge)
}

// learning is the learning at place; nil when it cannot be read.
func (w *wholeEntries) learning(place int) *entry.Learning {
	return readOnce(w, place, &w.learningsRead, w.input.Learnings, (*catalog.Catalog).Learnings)
}

func readOnce[T any](w *wholeEntries, place int, read *map[int]*T, input []T, fromCatalog func(*catalog.Catalog, []int) []T) *T {
	if e, ok := (*read)[place]; ok {
		return e
	}
	if *read == nil {
		*read = map[int]*T{}
	}
	var e *T
	if w.catalog == nil {
		e = &input[place]
	} else if got := fromCatalog(w.catalog, []int{place}); len(got) == 1 {
		e = &got[0]
	}
	(*read)[place] = e
	w.reads++
	return e
}

// scoredHead is a journal entry as rankJournal orders it: its place, what
// it matches of the task, its rank (its score once its relevance is
// known, the files it shares with the latest iteration's, its time), and
// its path (its key in the relevance).
type scoredHead struct {
	rank
	place int
	match journalMatch
	path  string
}

// better says whether a comes before b in rankJournal's order (best).
func (a *scoredHead) better(b *scoredHead) bool { return a.compare(&b.rank) < 0 }

// NewShortlist makes the candidates of every knowledge entry and every
// learning of the statuses shown in c for task t, relevance aside
// (rankKnowledge and rankLearnings add it), and chooses the journal
// entries a prime for t may show whatever their relevance: those the Run
// Journal, Previous Attempts and the loop status look at — the task's run
// (with no run, the latest's and those of strategy.RunWindow), the task's
// attempts, the latest entry, and the other runs' entries rankJournal
// scores (of those only the best, in With).
func NewShortlist(c *catalog.Catalog, t Task) *Shortlist {
	sl := &Shortlist{c: c, t: t}
	// The latest journal entry (the first in Entries' order of those
	// created last, as latest finds it), then the entries to read.
	last, latest, latestAt := -1, catalog.Head{}, moment{}
	c.Heads(entry.KindJournal, func(i int, h *catalog.Head) {
		at := momentOf(h.CreatedAt)
		if last < 0 || at.after(latestAt) || !latestAt.after(at) && catalog.CompareJournalHeads(h, &latest) < 0 {
			last, latest, latestAt = i, *h, at
			latest.FilesModified = slices.Clone(h.FilesModified)
		}
	})
	run, window := t.Run, moment{}
	if run == "" && last >= 0 {
		run = latest.RunID
		window = momentOf(entry.ParseTimestamp(latest.CreatedAt).Add(-strategy.RunWindow).UTC().Format(time.RFC3339))
	}
	// The task's files and the latest iteration's: all the journal's
	// score and its tie-breaker need.
	files := taskKeywords(t, nil, []entry.JournalEntry{{CreatedAt: latest.CreatedAt, FilesModified: latest.FilesModified}})
	c.Heads(entry.KindJournal, func(i int, h *catalog.Head) {
		keep := i == last || h.RunID == run || t.ID != "" && h.TaskID == t.ID
		at := moment{}
		if !keep && window.text != "" {
			at = momentOf(h.CreatedAt)
			keep = !window.after(at)
		}
		if keep {
			sl.journal = append(sl.journal, i)
		} else if m, tie := files.journalMatch(h.TaskID, h.FeatureID, h.FilesModified, t); m.score(0) > 0 {
			if at.text == "" {
				at = momentOf(h.CreatedAt)
			}
			sl.scored = append(sl.scored, scoredHead{rank: rank{tie: tie, time: at}, place: i, match: m, path: h.Path})
		}
	})
	// The keywords a prime ranks by: the task's, its attempts' error
	// categories and the latest iteration's files.
	kw := files
	if t.Given() {
		journal := c.Journal(sl.journal)
		kw = taskKeywords(t, strategy.Attempts(journal, t.ID), journal)
	}
	sl.knowledge = make([]candidate, 0, c.Len(entry.KindKnowledge))
	sl.learnings = make([]candidate, 0, c.Len(entry.KindLearning))
	c.Heads(entry.KindKnowledge, func(i int, h *catalog.Head) {
		sl.knowledge = append(sl.knowledge, kw.knowledgeCandidate(i, h, t))
	})
	c.Heads(entry.KindLearning, func(i int, h *catalog.Head) {
		if l, ok := kw.learningCandidate(i, h, t); ok {
			sl.learnings = append(sl.learnings, l)
		}
	})
	return sl
}

// With returns the journal entries chosen and those rel (the relevance
// Prime will be given) makes relevant, read whole in the order Entries
// returns them, and the knowledge and learnings as prime ranks them.
func (sl *Shortlist) With(rel map[string]float64) ([]entry.JournalEntry, *Chosen) {
	var more []int // the places relevance adds
	for p, r := range rel {
		if r <= 0 || entry.KindOf(p) != entry.KindJournal {
			continue
		}
		if _, i, ok := sl.c.Find(p); ok {
			more = append(more, i)
		}
	}
	slices.Sort(more)
	journal := union(union(sl.journal, more), sl.bestScored(rel))
	return sl.c.Journal(journal), &Chosen{c: sl.c, knowledge: sl.knowledge, learnings: sl.learnings}
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
