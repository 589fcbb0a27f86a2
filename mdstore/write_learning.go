package mdstore

import (
	"errors"
	"time"
)

// learningPlan is the decision for one learning.
type learningPlan struct {
	decided   bool
	entry     Learning
	duplicate bool // an existing learning already says this: entry is it
}

// planLearning checks for a near-duplicate, gives a new learning its id
// and registers the edit.
func planLearning(tx *storeTx, s *Store, in NewLearning, now time.Time, plan *learningPlan) error {
	if !plan.decided {
		existing, _, err := loadLearnings(tx)
		if err != nil {
			return err
		}
		if dup, ok := findNearDuplicateLearning(existing, in.Category, in.Body); ok {
			*plan = learningPlan{decided: true, entry: dup, duplicate: true}
			return nil
		}
		taken := map[string]bool{}
		for _, l := range existing {
			taken[l.ID] = true
		}
		id, err := newLearningID(s.random, func(id string) bool {
			if taken[id] {
				return true
			}
			// A malformed file still holds its id, and so does one on
			// disk only.
			exists, _ := tx.exists(LearningPath(id))
			return exists
		})
		if err != nil {
			return err
		}
		l := Learning{ID: id, Category: in.Category, Tags: in.Tags, Task: in.Task, CreatedAt: now.UTC().Format(time.RFC3339),
			Status: in.Status, Kind: in.Kind, TaskType: in.TaskType, SourceRuns: in.Runs, Body: in.Body, Path: LearningPath(id)}
		*plan = learningPlan{decided: true, entry: l}
	}
	if plan.duplicate {
		return nil
	}
	l := plan.entry
	tx.apply(storeEdit{Path: l.Path, Op: opPut, Content: string(RenderLearning(l))})
	return nil
}

// AddLearning stores a learning, unless a near-duplicate (same category,
// more than 80% of the words in common) exists: then that one is returned
// with duplicate set and nothing is written.
func (s *Store) AddLearning(in NewLearning) (l Learning, duplicate bool, res *WriteResult, err error) {
	if in, err = in.normalize(&secretCheck{}); err != nil {
		return Learning{}, false, nil, err
	}
	now := s.now()
	var plan learningPlan
	res, err = s.write(func(tx *storeTx) error {
		if err := planLearning(tx, s, in, now, &plan); err != nil {
			return err
		}
		tx.message(commitMessage("lore: add learning "+plan.entry.ID, plan.entry.Body,
			"Lore-Id", plan.entry.ID, "Lore-Kind", "learning"))
		return nil
	})
	if err != nil {
		return Learning{}, false, nil, err
	}
	return plan.entry, plan.duplicate, res, nil
}

// DeleteLearning removes a learning's file, as one commit.
func (s *Store) DeleteLearning(id string) (Learning, *WriteResult, error) {
	l, err := s.Learning(id)
	var fe *FileError
	if err != nil && !errors.As(err, &fe) {
		return Learning{}, nil, err
	}
	res, err := s.removeFile(LearningPath(id), KindLearning, id, l.Body)
	return l, res, err
}
