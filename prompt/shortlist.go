package prompt

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"lore/mdstore/catalog"
	"lore/mdstore/entry"
	"lore/strategy"
)

// Shortlist is what a prime for a task reads of a catalog, chosen from its
// heads in two steps so that the first runs while the search index is
// asked: NewShortlist ranks the knowledge entries and learnings whose
// tags score (every one without a task) by their heads, relevance aside,
// and chooses the journal entries a prime may show whatever their
// relevance; With adds the entries relevance alone brings in, and reads
// the journal entries chosen. Prime reads whole, of the knowledge and
// learnings, only those its sections examine, and gives the same context
// from the shortlist as from every entry.
type Shortlist struct {
	c  *catalog.Catalog
	t  Task
	kw keywords
	// knowledge and learnings are the candidates of the catalog's
	// knowledge entries and learnings (of the statuses shown), in the
	// order of their places: with a task, those whose tags score (With
	// adds those relevance alone brings in), without one every one; and
	// their keys sorted as they rank without relevance.
	knowledge, learnings             []candidate
	knowledgeSorted, learningsSorted []rankKey
	// journal are the places of the journal entries chosen so far,
	// ascending, and journalRead those entries when read already.
	journal     []int
	journalRead []entry.JournalEntry
	// best are the other runs' journal entries that only their score
	// brings in (rankJournal), of which a prime shows at most
	// RelevantJournal: the best RelevantJournal by their score without
	// relevance, and any as good as the last of them, best first.
	best []scoredHead
}

// Chosen is a catalog's knowledge and learnings as prime ranks them: the
// candidate each one's head makes, and the catalog to read it whole from
// when a section examines it (Shortlist.With, Input.Chosen).
type Chosen struct {
	c                    *catalog.Catalog
	knowledge, learnings candidates
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

// scoredHead is a journal entry as rankJournal orders it, relevance
// aside: its place and its rank.
type scoredHead struct {
	rank
	place int
}

// keepBest adds h to best (sorted best first) when it is among the n
// best of those offered, or as good as the n-th.
func keepBest(best []scoredHead, h scoredHead, n int) []scoredHead {
	if len(best) >= n && h.compare(&best[n-1].rank) > 0 {
		return best
	}
	at := len(best)
	for at > 0 && h.compare(&best[at-1].rank) < 0 {
		at--
	}
	best = slices.Insert(best, at, h)
	keep := n
	for keep < len(best) && best[keep].compare(&best[n-1].rank) == 0 {
		keep++
	}
	return best[:min(keep, len(best))]
}

// NewShortlist makes the candidates of the knowledge entries and the
// learnings of the statuses shown in c whose tags score for task t (every
// one without a task), primed at now (Input.Now), ranked without
// relevance (prime adds it), and chooses the journal
// entries a prime for t may show whatever their relevance: those the Run
// Journal, Previous Attempts and the loop status look at — the task's run
// (with no run, the latest's and those of strategy.RunWindow), the task's
// attempts, the latest entry, and the other runs' entries rankJournal
// scores (of those only the best, in With).
func NewShortlist(c *catalog.Catalog, t Task, now time.Time) *Shortlist {
	sl := &Shortlist{c: c, t: t}
	// The latest journal entry (the first in Entries' order of those
	// created last, as latest finds it), then the entries to read.
	last, latest, latestAt := -1, catalog.Head{}, moment{}
	c.Heads(entry.KindJournal, func(i int, h *catalog.Head) {
		at := momentOf(h.CreatedAt)
		if last < 0 || at.after(latestAt) || !latestAt.after(at) && catalog.CompareJournalHeads(h, &latest) < 0 {
			last, latestAt = i, at
			latest = catalog.Head{Path: h.Path, RunID: h.RunID, Iteration: h.Iteration, CreatedAt: h.CreatedAt,
				FilesModified: append(latest.FilesModified[:0], h.FilesModified...)}
		}
	})
	run, window, windowed := t.Run, moment{}, false
	if run == "" && last >= 0 {
		run, windowed = latest.RunID, true
		window = momentOf(entry.ParseTimestamp(latest.CreatedAt).Add(-strategy.RunWindow).UTC().Format(time.RFC3339))
	}
	// The task's words and files and the latest iteration's: all the
	// journal's score, the knowledge's and their tie-breaker need.
	files := taskKeywords(t, nil, []entry.JournalEntry{{CreatedAt: latest.CreatedAt, FilesModified: latest.FilesModified}})
	// The knowledge on another core, while the journal and the learnings
	// are walked here.
	var knowledge sync.WaitGroup
	var textTags tagWeights
	knowledge.Go(func() {
		sl.knowledge = make([]candidate, 0, c.Len(entry.KindKnowledge))
		kk := files
		if t.Given() {
			kk.textTags = files.weighTextTags(c.Len(entry.KindKnowledge), func(fn func(tags []string)) {
				c.Heads(entry.KindKnowledge, func(_ int, h *catalog.Head) { fn(h.Tags) })
			})
			textTags = kk.textTags
		}
		c.Heads(entry.KindKnowledge, func(i int, h *catalog.Head) {
			if k := kk.knowledgeCandidate(i, h, t); !t.Given() || k.tags > 0 {
				sl.knowledge = append(sl.knowledge, k)
			}
		})
		// Sorted now, while the search index is asked: relevance lifts a
		// few hundred, which prime sorts and merges in.
		sl.knowledgeSorted = knowledgeOrder(t).sorted([2][]candidate{sl.knowledge}, nil, nil)
	})
	c.Heads(entry.KindJournal, func(i int, h *catalog.Head) {
		keep := i == last || h.RunID == run || t.ID != "" && h.TaskID == t.ID
		at, timed := moment{}, false
		if !keep && windowed {
			at, timed = momentOf(h.CreatedAt), true
			keep = !window.after(at)
		}
		if keep {
			sl.journal = append(sl.journal, i)
		} else if m, tie := files.journalMatch(h.TaskID, h.FeatureID, h.FilesModified, t); m.score(0) > 0 {
			if !timed {
				at = momentOf(h.CreatedAt)
			}
			sl.best = keepBest(sl.best, scoredHead{rank{score: m.score(0), tie: tie, time: at}, i}, RelevantJournal)
		}
	})
	// The keywords a prime ranks by: the task's, its attempts' error
	// categories (which only learnings' tags are matched with) and the
	// latest iteration's files.
	kw := files
	if t.Given() {
		sl.journalRead = c.Journal(sl.journal)
		kw = taskKeywords(t, strategy.Attempts(sl.journalRead, t.ID), sl.journalRead)
	}
	if t.Given() {
		kw.learningTags = kw.weighLearningTags(c.Len(entry.KindLearning), func(fn func(tags []string)) {
			c.Heads(entry.KindLearning, func(_ int, h *catalog.Head) { fn(h.Tags) })
		})
	}
	sl.kw = kw
	sl.learnings = make([]candidate, 0, c.Len(entry.KindLearning))
	c.Heads(entry.KindLearning, func(i int, h *catalog.Head) {
		if l, ok := kw.learningCandidate(i, h, t); ok && (!t.Given() || l.tags > 0) {
			sl.learnings = append(sl.learnings, l)
		}
	})
	sl.learningsSorted = learningsOrder(t, now).sorted([2][]candidate{sl.learnings}, nil, nil)
	knowledge.Wait()
	sl.kw.textTags = textTags
	return sl
}

// relevant is what relevance rel does to the candidates of the knowledge
// (0) and learnings (1): the places in the shortlist's lists of those it
// lifts, and the candidates of those it alone brings in.
func (sl *Shortlist) relevant(rel map[string]float64) (lifted [2][]int32, more [2][]candidate) {
	lists := [2][]candidate{sl.knowledge, sl.learnings}
	for p, r := range rel {
		k := slices.Index([]entry.Kind{entry.KindKnowledge, entry.KindLearning}, entry.KindOf(p))
		if r == 0 || k < 0 {
			continue
		}
		kind, i, ok := sl.c.Find(p)
		if !ok {
			continue
		}
		if at, found := slices.BinarySearchFunc(lists[k], int32(i), func(c candidate, place int32) int { return cmp.Compare(c.place, place) }); found {
			lifted[k] = append(lifted[k], int32(at))
			continue
		}
		if r < 0 {
			continue
		}
		h, ok := sl.c.Head(kind, i)
		if !ok {
			continue
		}
		if k == 0 {
			more[k] = append(more[k], sl.kw.knowledgeCandidate(i, &h, sl.t))
		} else if l, ok := sl.kw.learningCandidate(i, &h, sl.t); ok {
			more[k] = append(more[k], l)
		}
	}
	return lifted, more
}

// With returns the journal entries chosen and those rel (the relevance
// Prime will be given) makes relevant, read whole in the order Entries
// returns them, and the candidates of the knowledge and learnings, with
// those rel alone brings in.
//
// Of the other runs' entries that only their score brings in, the Run
// Journal shows the first RelevantJournal in rankJournal's order, passing
// over those Previous Attempts showed (the task's, chosen already). One
// that relevance does not lift scores what it scores without it, and
// those relevance lifts are read anyway: so the best RelevantJournal
// without relevance, and any as good as the last of them, are all it
// needs of the others (five better than an entry stay better with
// relevance added).
func (sl *Shortlist) With(rel map[string]float64) ([]entry.JournalEntry, *Chosen) {
	var more []int // the places relevance adds, and the best by their score
	for p, r := range rel {
		if r <= 0 || entry.KindOf(p) != entry.KindJournal {
			continue
		}
		if _, i, ok := sl.c.Find(p); ok {
			more = append(more, i)
		}
	}
	for _, h := range sl.best {
		more = append(more, h.place)
	}
	slices.Sort(more)
	more = slices.Compact(more)
	lifted, brought := sl.relevant(rel)
	ch := &Chosen{c: sl.c,
		knowledge: candidates{[2][]candidate{sl.knowledge, brought[0]}, sl.knowledgeSorted, lifted[0]},
		learnings: candidates{[2][]candidate{sl.learnings, brought[1]}, sl.learningsSorted, lifted[1]}}
	if sl.journalRead == nil {
		return sl.c.Journal(union(sl.journal, more)), ch
	}
	// The others read, and merged with those read already in the order
	// Entries gives them.
	var others []int
	for _, i := range more {
		if _, chosen := slices.BinarySearch(sl.journal, i); !chosen {
			others = append(others, i)
		}
	}
	read := sl.c.Journal(others)
	journal := make([]entry.JournalEntry, 0, len(sl.journalRead)+len(read))
	for a, b := sl.journalRead, read; len(a)+len(b) > 0; {
		if len(b) == 0 || len(a) > 0 && entry.CompareJournal(&a[0], &b[0]) < 0 {
			journal, a = append(journal, a[0]), a[1:]
		} else {
			journal, b = append(journal, b[0]), b[1:]
		}
	}
	return journal, ch
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
