package mdstore

import (
	"errors"
	"slices"
	"strings"
	"time"

	"lore/internal/neardup"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// learningPlan is the decision for one learning.
type learningPlan struct {
	decided   bool
	entry     entry.Learning
	duplicate bool // an existing learning already says this: entry is it
}

// StoredLearnings is what deciding new learnings reads from the store:
// the learnings a new one may duplicate and the ids taken. It is read
// once per change, however many learnings the change adds (an ingest of
// 10,000 learning sigils reads the store once, not 10,000 times), and
// afresh for each attempt at the change.
//
// A change that asks about a few learnings compares each with the stored
// ones' keywords, which the blob cache keeps (tokenising 25,000 stored
// learnings for one new one was most of a write at 100k entries); one
// that asks about many files them all in a Duplicates, which answers each
// question from the few learnings filed under its words.
type StoredLearnings struct {
	expect []string // the bodies the change will ask about
	loaded bool
	tx     *Tx // what they were read from
	// stored is every learning, as its directory lists them, with its
	// keywords (learningWords).
	stored []catalog.ByBlob[entry.Learning]
	// When the change asks about many: the live learnings, filed, and
	// every id in ids.
	live  *entry.LiveLearnings
	ids   map[string]bool
	added []string // the ids given by this change
}

// fewAsked is how many learnings a change may ask about and still compare
// each with every stored learning's keywords.
const fewAsked = 16

func (st *StoredLearnings) load(tx *Tx) error {
	if st.loaded {
		return nil
	}
	st.tx = tx
	stored, err := tx.learnings()
	if err != nil {
		return err
	}
	st.stored = stored
	if len(st.expect) > fewAsked {
		st.ids = make(map[string]bool, len(stored)+len(st.expect))
		ls := make([]entry.Learning, len(stored))
		for i := range stored {
			st.ids[stored[i].V.ID] = true
			ls[i] = stored[i].V
		}
		st.live = entry.NewLiveLearnings(ls, st.expect)
	}
	st.loaded = true
	return nil
}

// Taken reports whether a stored learning or one of this change has id:
// looked up in ids when the change asks about many, else scanned.
func (st *StoredLearnings) Taken(id string) bool {
	if st.ids != nil {
		return st.ids[id]
	}
	for i := range st.stored {
		if st.stored[i].V.ID == id {
			return true
		}
	}
	return slices.Contains(st.added, id)
}

// newID gives a new learning of this change an id that no stored
// learning, no other of this change and no file has — a malformed file
// still holds its id, and so does one on disk only — and records it.
func (st *StoredLearnings) NewID() (string, error) {
	id, err := entry.NewLearningID(st.tx.random, func(id string) bool {
		if st.Taken(id) {
			return true
		}
		exists, _ := st.tx.Exists(entry.LearningPath(id))
		return exists
	})
	if err == nil {
		st.Add(id)
	}
	return id, err
}

// Add records id as given by this change.
func (st *StoredLearnings) Add(id string) {
	st.added = append(st.added, id)
	if st.ids != nil {
		st.ids[id] = true
	}
}

// DuplicateOf is the oldest active or staged learning that one of this
// category and body nearly duplicates (seed 002: the same category, more
// than 80% of the words shared) — of equally old ones, the first listed —
// and whether there is one. A change that asks about few compares the
// body with every stored learning's keywords, in the order they are
// listed: nothing is sorted or copied.
func (st *StoredLearnings) DuplicateOf(category, body string) (entry.Learning, bool) {
	if st.live != nil {
		return st.live.DuplicateOf(category, body)
	}
	asked := neardup.Ask(body)
	best := -1
	for i := range st.stored {
		l := &st.stored[i].V
		if l.Category == category && entry.IsLive(l) && (best < 0 || entry.CompareLearnings(l, &st.stored[best].V) < 0) &&
			asked.NearDuplicateOf(st.stored[i].Words) {
			best = i
		}
	}
	if best < 0 {
		return entry.Learning{}, false
	}
	return st.stored[best].V, true
}

// planLearning checks for a near-duplicate of an active or staged
// learning, gives a new learning its id and registers the edit.
func planLearning(tx *Tx, s *Store, in entry.NewLearning, now time.Time, plan *learningPlan, stored *StoredLearnings) error {
	if !plan.decided {
		if err := stored.load(tx); err != nil {
			return err
		}
		if dup, ok := stored.DuplicateOf(in.Category, in.Body); ok {
			*plan = learningPlan{decided: true, entry: dup, duplicate: true}
			return nil
		}
		id, err := stored.NewID()
		if err != nil {
			return err
		}
		l := entry.Learning{ID: id, Category: in.Category, Tags: in.Tags, Task: in.Task, CreatedAt: now.UTC().Format(time.RFC3339),
			Status: in.Status, Kind: in.Kind, TaskType: in.TaskType, SourceRuns: in.Runs, Body: in.Body, Path: entry.LearningPath(id)}
		*plan = learningPlan{decided: true, entry: l}
	}
	if plan.duplicate {
		return nil
	}
	l := plan.entry
	tx.Apply(Edit{Path: l.Path, Op: OpPut, Content: string(entry.RenderLearning(l))})
	return nil
}

// AddLearning stores a learning, unless a near-duplicate (same category,
// more than 80% of the words in common) exists: then that one is returned
// with duplicate set and nothing is written.
func (s *Store) AddLearning(in entry.NewLearning, also ...Also) (l entry.Learning, duplicate bool, res *WriteResult, err error) {
	if in, err = in.Normalize(&entry.SecretCheck{}); err != nil {
		return entry.Learning{}, false, nil, err
	}
	now := s.now()
	var plan learningPlan
	defer s.readAhead(entry.LearningsDir)()
	res, err = s.Write(func(tx *Tx) error {
		if err := planLearning(tx, s, in, now, &plan, &StoredLearnings{expect: []string{in.Body}}); err != nil {
			return err
		}
		trailers := []string{"Lore-Id", plan.entry.ID, "Lore-Kind", "learning"}
		if !plan.duplicate { // nothing is written: nothing else is
			if trailers, err = withAlso(tx, plan.entry.ID, also, trailers...); err != nil {
				return err
			}
		}
		tx.SetMessage(CommitMessage("lore: add learning "+plan.entry.ID, plan.entry.Body, trailers...))
		return nil
	})
	if err != nil {
		return entry.Learning{}, false, nil, err
	}
	return plan.entry, plan.duplicate, res, nil
}

// DeleteLearning removes a learning's file, as one commit, which also
// clears the superseded_by of the learnings it had replaced (seed 002:
// the link goes, both learnings stay).
func (s *Store) DeleteLearning(id string) (entry.Learning, *WriteResult, error) {
	l, err := s.Learning(id)
	var fe *entry.FileError
	if err != nil && !errors.As(err, &fe) {
		return entry.Learning{}, nil, err
	}
	res, err := s.Write(func(tx *Tx) error {
		p := entry.LearningPath(id)
		if ok, err := tx.Exists(p); err != nil {
			return err
		} else if !ok {
			return entry.NotFound(entry.KindLearning, id)
		}
		tx.Apply(Edit{Path: p, Op: OpRemove})
		stored, err := tx.learnings()
		if err != nil {
			return err
		}
		var cleared []string
		for i := range stored {
			if o := &stored[i].V; o.SupersededBy == id {
				tx.Apply(Edit{Path: o.Path, Op: OpFields, Fields: []entry.FrontmatterField{{Key: "superseded_by", Value: ""}}})
				cleared = append(cleared, o.ID)
			}
		}
		body := l.Body
		if len(cleared) > 0 {
			body += "\n\nNo longer superseded: " + strings.Join(cleared, ", ") + "."
		}
		tx.SetMessage(CommitMessage("lore: delete learning "+id, body, "Lore-Id", id, "Lore-Kind", string(entry.KindLearning)))
		return nil
	})
	return l, res, err
}
