package mdstore

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"lore/sigils"
)

// normalize checks a journal entry to record: no secret in any field
// (check), a known outcome and difficulty, a run id that can name a
// directory. An empty RunID means the current run (started if there is
// none); Iteration 0 means the next one.
func (in JournalEntry) normalize(check *secretCheck) (JournalEntry, error) {
	err := check.texts(textField{"run_id", &in.RunID}, textField{"task_id", &in.TaskID}, textField{"feature_id", &in.FeatureID},
		textField{"outcome", &in.Outcome}, textField{"model", &in.Model}, textField{"next_model", &in.NextModel},
		textField{"difficulty", &in.Difficulty}, textField{"notes", &in.Notes})
	if err == nil {
		err = check.list("files_modified", &in.FilesModified)
	}
	if err == nil && in.Failure != nil {
		f := *in.Failure // the caller's stays as it was
		in.Failure = &f
		err = check.texts(textField{"what_tried", &f.WhatTried}, textField{"why_failed", &f.WhyFailed},
			textField{"error_category", &f.ErrorCategory}, textField{"stack_trace", &f.StackTrace},
			textField{"retry_suggestion", &f.RetrySuggestion})
		if err == nil {
			err = check.list("relevant_files", &f.RelevantFiles)
		}
	}
	if err != nil {
		return in, err
	}
	if in.Outcome == "" {
		in.Outcome = "blocked"
	}
	if !contains(Outcomes, in.Outcome) {
		return in, &InputError{Field: "outcome", Msg: fmt.Sprintf("outcome %q must be one of %s", in.Outcome, strings.Join(Outcomes, ", "))}
	}
	if in.Difficulty != "" && !contains(sigils.Difficulties, in.Difficulty) {
		return in, &InputError{Field: "difficulty", Msg: fmt.Sprintf("difficulty %q must be one of %s", in.Difficulty, strings.Join(sigils.Difficulties, ", "))}
	}
	if in.RunID != "" && !ValidRunID(in.RunID) {
		return in, &InputError{Field: "run", Msg: fmt.Sprintf("run id %q may only hold lowercase letters, digits, '.', '_' and '-'", in.RunID)}
	}
	if !(in.DurationSecs >= 0) || !(in.CostUSD >= 0) || math.IsInf(in.DurationSecs, 0) || math.IsInf(in.CostUSD, 0) || in.Iteration < 0 { // NaN is not >= 0
		return in, &InputError{Field: "journal", Msg: "duration and cost must be finite numbers of 0 or more, and iteration cannot be negative"}
	}
	if in.FilesModified == nil {
		in.FilesModified = []string{}
	}
	in.Notes = strings.TrimSpace(strings.ReplaceAll(in.Notes, "\r\n", "\n"))
	return in, nil
}

// journalPlan is the decision for one journal entry.
type journalPlan struct {
	decided  bool
	entry    JournalEntry
	replaced bool // an entry for this run and iteration existed
}

// planJournal fills in the run, the iteration and the file, and registers
// the edit. A new iteration gets a file of its own (JournalPath, with a
// new tag). One given by number that the run already has replaces it,
// keeping its creation time, so recording an iteration twice changes
// nothing; where two branches recorded that number, the one it is the
// same as, else a file of its own.
func planJournal(tx *storeTx, s *Store, in JournalEntry, now time.Time, plan *journalPlan) error {
	if !plan.decided {
		e := in
		e.Path = ""
		if e.RunID == "" {
			run, _, err := s.currentOrNewRun()
			if err != nil {
				return err
			}
			e.RunID = run
		}
		files, err := runFiles(tx, e.RunID)
		if err != nil {
			return err
		}
		if e.Iteration == 0 {
			e.Iteration = 1
			for _, f := range files {
				e.Iteration = max(e.Iteration, f.iteration+1)
			}
		}
		e.CreatedAt = now.UTC().Format(time.RFC3339)
		var same []JournalEntry
		for _, f := range files {
			if f.iteration != e.Iteration {
				continue
			}
			p := JournalDir + "/" + e.RunID + "/" + f.name
			data, ok, err := tx.read(p)
			if err != nil {
				return err
			}
			if old, err := parseJournal(data, p); ok && err == nil {
				same = append(same, old)
			}
		}
		for _, old := range same {
			replace := len(same) == 1
			if !replace {
				again := e
				again.CreatedAt, again.Path = old.CreatedAt, old.Path
				replace = string(RenderJournal(again)) == string(RenderJournal(old))
			}
			if replace {
				e.Path, plan.replaced = old.Path, true
				if old.CreatedAt != "" {
					e.CreatedAt = old.CreatedAt
				}
				break
			}
		}
		if e.Path == "" {
			tag, err := newID(s.random, "", JournalTagBytes, func(tag string) bool {
				exists, _ := tx.exists(JournalPath(e.RunID, e.Iteration, tag)) // committed, or left on disk
				return exists
			}, "no free name for iteration "+strconv.Itoa(e.Iteration)+" of run "+e.RunID)
			if err != nil {
				return err
			}
			e.Path = JournalPath(e.RunID, e.Iteration, tag)
		}
		plan.entry, plan.decided = e, true
	}
	e := plan.entry
	tx.apply(storeEdit{Path: e.Path, Op: opPut, Content: string(RenderJournal(e))})
	return nil
}

// runFile is an iteration's file in a run's directory, as JournalFileName
// reads its name.
type runFile struct {
	name      string
	iteration int
}

// runFiles lists the iterations' files of run (others are left out).
func runFiles(r fileReader, run string) ([]runFile, error) {
	entries, err := r.readDir(JournalDir + "/" + run)
	if err != nil {
		return nil, err
	}
	var out []runFile
	for _, e := range entries {
		if n, _, ok := JournalFileName(e.Name()); ok {
			out = append(out, runFile{e.Name(), n})
		}
	}
	return out, nil
}

// AddJournal records one iteration, as one commit.
func (s *Store) AddJournal(in JournalEntry) (JournalEntry, bool, *WriteResult, error) {
	in, err := in.normalize(&secretCheck{})
	if err != nil {
		return JournalEntry{}, false, nil, err
	}
	now := s.now()
	var plan journalPlan
	res, err := s.write(func(tx *storeTx) error {
		if err := planJournal(tx, s, in, now, &plan); err != nil {
			return err
		}
		e := plan.entry
		tx.message(commitMessage("lore: add journal "+e.Key()+" ("+e.Outcome+")", e.Notes, journalTrailers(e, "journal")...))
		return nil
	})
	if err != nil {
		return JournalEntry{}, false, nil, err
	}
	return plan.entry, plan.replaced, res, nil
}

func journalTrailers(e JournalEntry, kind string) []string {
	t := []string{"Lore-Id", e.Key(), "Lore-Kind", kind, "Run-Id", e.RunID, "Iteration", strconv.Itoa(e.Iteration)}
	if e.TaskID != "" {
		t = append(t, "Task-Id", e.TaskID)
	}
	return t
}
