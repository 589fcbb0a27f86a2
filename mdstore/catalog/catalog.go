package catalog

import (
	"slices"
	"unicode/utf8"

	"lore/mdstore/entry"
)

// Head is what a choice among entries reads of each one before it reads
// the few it chose whole (Catalog): the fields prime ranks and measures
// entries by. KnowledgeHead, LearningHead and JournalHead make it from an
// entry, for the entries cache and for entries read whole alike.
type Head struct {
	Path string
	// Knowledge and learnings.
	Tags []string
	// When the entry was written (every kind) and last updated
	// (knowledge).
	CreatedAt, UpdatedAt string
	// Knowledge: its title, and how many characters (runes, an invalid
	// byte one) its body holds.
	Title     string
	BodyChars int
	// Learnings: the status, and seed 004's kind, task type, confidence
	// and success rate (0 when not given, as seed 004's relevance counts
	// them).
	Status, SupersededBy    string
	Kind, TaskType          string
	Confidence, SuccessRate float64
	// Journal entries.
	RunID, TaskID, FeatureID string
	Iteration                int
	FilesModified            []string
}

// KnowledgeHead is the head of a knowledge entry.
func KnowledgeHead(k *entry.Knowledge) Head {
	return Head{Path: k.Path, Tags: k.Tags, CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt, Title: k.Title, BodyChars: utf8.RuneCountInString(k.Body)}
}

// LearningHead is the head of a learning.
func LearningHead(l *entry.Learning) Head {
	return Head{Path: l.Path, Tags: l.Tags, CreatedAt: l.CreatedAt, Status: l.Status, SupersededBy: l.SupersededBy,
		Kind: l.Kind, TaskType: l.TaskType, Confidence: valueOr0(l.Confidence), SuccessRate: valueOr0(l.SuccessRate)}
}

// JournalHead is the head of a journal entry.
func JournalHead(j *entry.JournalEntry) Head {
	return Head{Path: j.Path, CreatedAt: j.CreatedAt, RunID: j.RunID, TaskID: j.TaskID, FeatureID: j.FeatureID, Iteration: j.Iteration, FilesModified: j.FilesModified}
}

func valueOr0(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// Catalog is the store's knowledge, learnings and journal: each entry's
// head (Heads), in the order Entries returns the entries, and an entry
// read whole only when asked for (Knowledge, Learnings, Journal). Read
// through an unchanged entries cache, it decodes nothing else: prime with
// a task reads a few hundred of a large store's entries. Heads, Head and
// Len only read what the Catalog holds: any goroutine may call them,
// while others do; Find, Knowledge, Learnings, Journal and All are for
// one goroutine at a time.
type Catalog struct {
	// The entries whole, when they were read rather than mapped.
	whole *Entries
	// Otherwise the mapped cache their records are decoded from, and
	// the store to read a file from if a record does not decode.
	cache *entryCache
	store *Cache
	// The place of each file's entry, made by the first Find of a
	// Catalog read whole.
	paths map[string]int
}

// catalogKinds are the kinds a Catalog holds, in the cache's order.
var catalogKinds = [3]entry.Kind{entry.KindKnowledge, entry.KindLearning, entry.KindJournal}

// Heads calls each with the head of every entry of kind and its place; h
// is the caller's only during the call. The heads come in the order
// Entries returns the entries unless the cache holds a delta, whose
// entries come after the others.
func (c *Catalog) Heads(kind entry.Kind, each func(i int, h *Head)) {
	if c.whole == nil {
		for k, ck := range catalogKinds {
			if ck == kind {
				c.cache.eachHead(k, each)
			}
		}
		return
	}
	switch kind {
	case entry.KindKnowledge:
		for i := range c.whole.Knowledge {
			h := KnowledgeHead(&c.whole.Knowledge[i])
			each(i, &h)
		}
	case entry.KindLearning:
		for i := range c.whole.Learnings {
			h := LearningHead(&c.whole.Learnings[i])
			each(i, &h)
		}
	case entry.KindJournal:
		for i := range c.whole.Journal {
			h := JournalHead(&c.whole.Journal[i])
			each(i, &h)
		}
	}
}

// Head is the head of the entry of kind at place i (of Heads); false when
// there is none.
func (c *Catalog) Head(kind entry.Kind, i int) (Head, bool) {
	var h Head
	switch {
	case c.whole == nil:
		for k, ck := range catalogKinds {
			if ck == kind {
				return h, c.cache.head(k, i, &h)
			}
		}
	case kind == entry.KindKnowledge && i >= 0 && i < len(c.whole.Knowledge):
		return KnowledgeHead(&c.whole.Knowledge[i]), true
	case kind == entry.KindLearning && i >= 0 && i < len(c.whole.Learnings):
		return LearningHead(&c.whole.Learnings[i]), true
	case kind == entry.KindJournal && i >= 0 && i < len(c.whole.Journal):
		return JournalHead(&c.whole.Journal[i]), true
	}
	return h, false
}

// Len is how many entries of kind c holds: how many heads Heads walks.
func (c *Catalog) Len(kind entry.Kind) int {
	for k, ck := range catalogKinds {
		if ck != kind {
			continue
		}
		if c.whole == nil {
			return c.cache.len(k)
		}
		return [3]int{len(c.whole.Knowledge), len(c.whole.Learnings), len(c.whole.Journal)}[k]
	}
	return 0
}

// Find says where the entry of file p is among the heads of its kind.
func (c *Catalog) Find(p string) (kind entry.Kind, i int, ok bool) {
	kind = entry.KindOf(p)
	if c.whole != nil {
		if c.paths == nil {
			c.paths = map[string]int{}
			for _, k := range catalogKinds {
				c.Heads(k, func(i int, h *Head) { c.paths[h.Path] = i })
			}
		}
		i, ok = c.paths[p]
		return kind, i, ok
	}
	for k, ck := range catalogKinds {
		if ck == kind {
			i, ok = c.cache.find(k, p)
			return kind, i, ok
		}
	}
	return kind, 0, false
}

// Knowledge returns the knowledge entries at the given places (of
// Heads), in the order Entries returns them.
func (c *Catalog) Knowledge(at []int) []entry.Knowledge {
	return pick(c, at, entry.KindKnowledge, func(e *Entries) []entry.Knowledge { return e.Knowledge }, (*entryCache).knowledgeAt)
}

// Learnings returns the learnings at the given places.
func (c *Catalog) Learnings(at []int) []entry.Learning {
	return pick(c, at, entry.KindLearning, func(e *Entries) []entry.Learning { return e.Learnings }, (*entryCache).learningAt)
}

// Journal returns the journal entries at the given places.
func (c *Catalog) Journal(at []int) []entry.JournalEntry {
	return pick(c, at, entry.KindJournal, func(e *Entries) []entry.JournalEntry { return e.Journal }, (*entryCache).journalAt)
}

// All returns every entry, in the order Entries returns them.
func (c *Catalog) All() Entries {
	if c.whole != nil {
		return *c.whole
	}
	return Entries{
		Knowledge: c.Knowledge(c.cache.places(0)),
		Learnings: c.Learnings(c.cache.places(1)),
		Journal:   c.Journal(c.cache.places(2)),
	}
}

// pick decodes the records at the given places of kind, in the order
// Entries returns them: the places' own when ascending, unless a delta's
// entries follow its base's; one that does not decode (a damaged cache)
// is read from its file, and the cache is dropped so that the next read
// writes it again.
func pick[T any](c *Catalog, at []int, kind entry.Kind, whole func(*Entries) []T, decode func(*entryCache, int) (T, bool)) []T {
	out := make([]T, 0, len(at))
	if c.whole != nil {
		all := whole(c.whole)
		for _, i := range at {
			out = append(out, all[i])
		}
		return out
	}
	var damaged []int
	for _, i := range at {
		if e, ok := decode(c.cache, i); ok {
			out = append(out, e)
		} else {
			damaged = append(damaged, i)
		}
	}
	if len(damaged) == 0 {
		if c.cache.base != nil || !slices.IsSorted(at) {
			sortAs(out)
		}
		return out
	}
	// Read from their files: the heads give the paths.
	c.store.DropEntryCache()
	paths := map[int]string{}
	c.Heads(kind, func(i int, h *Head) {
		if slices.Contains(damaged, i) {
			paths[i] = h.Path
		}
	})
	out = out[:0]
	for _, i := range at {
		e, ok := decode(c.cache, i)
		if !ok {
			if e, ok = readEntryFile[T](c.store, paths[i]); !ok {
				continue
			}
		}
		out = append(out, e)
	}
	sortAs(out)
	return out
}

// sortAs sorts entries of one kind in the order Entries returns them.
func sortAs[T any](es []T) {
	switch es := any(es).(type) {
	case []entry.Knowledge:
		entry.SortKnowledge(es)
	case []entry.Learning:
		entry.SortLearnings(es)
	case []entry.JournalEntry:
		entry.SortJournal(es)
	}
}

// readEntryFile reads the entry of file p, of the type its kind has.
func readEntryFile[T any](s *Cache, p string) (T, bool) {
	var zero T
	data, ok, err := s.files.Read(p)
	if err != nil || !ok {
		return zero, false
	}
	fe, ws := entry.ParseFile(p, data)
	if len(ws) > 0 {
		return zero, false
	}
	var e any
	switch {
	case fe.Knowledge != nil:
		e = *fe.Knowledge
	case fe.Learning != nil:
		e = *fe.Learning
	case fe.Journal != nil:
		e = *fe.Journal
	}
	t, ok := e.(T)
	return t, ok
}

// wholeCatalog is a Catalog of entries read whole.
func wholeCatalog(e *Entries) *Catalog { return &Catalog{whole: e} }

// CompareJournalHeads orders the heads of two journal entries as Entries
// orders the entries.
func CompareJournalHeads(a, b *Head) int {
	return entry.CompareJournal(&entry.JournalEntry{RunID: a.RunID, Iteration: a.Iteration, CreatedAt: a.CreatedAt, Path: a.Path},
		&entry.JournalEntry{RunID: b.RunID, Iteration: b.Iteration, CreatedAt: b.CreatedAt, Path: b.Path})
}

// Shown is Learning.Shown for a learning's head.
func (h *Head) Shown() bool { return entry.ShownLearning(h.Status, h.SupersededBy) }

// State is Learning.State for a learning's head.
func (h *Head) State() string { return entry.LearningState(h.Status, h.SupersededBy) }
