package mdstore

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"lore/internal/words"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// journalPlan is the decision for one journal entry.
type journalPlan struct {
	decided  bool
	entry    entry.JournalEntry
	replaced bool // an entry for this run and iteration existed
	// unchanged: the entry is recorded already, word for word; nothing
	// is written.
	unchanged bool
	// byContent, set by the caller: an entry without an iteration that
	// says word for word what the run's last one says is that one (an
	// ingest retried), not a new iteration.
	byContent bool
}

// planJournal fills in the run, the iteration and the file, and registers
// the edit. A new iteration gets a file of its own (JournalPath, with a
// new tag). One given by number that the run already has replaces it,
// keeping its creation time, so recording an iteration twice changes
// nothing; where two branches recorded that number, the one it is the
// same as, else a file of its own.
func planJournal(tx *Tx, s *Store, in entry.JournalEntry, now time.Time, plan *journalPlan) error {
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
		e.CreatedAt = now.UTC().Format(time.RFC3339)
		if e.Iteration == 0 && plan.byContent {
			last := 0
			for _, f := range files {
				last = max(last, f.iteration)
			}
			// The same iteration recorded again (an orchestrator retrying
			// an ingest) is the run's last one, word for word.
			again, err := sameAsIteration(tx, e, files, last)
			if err != nil {
				return err
			}
			if again != nil {
				*plan = journalPlan{entry: *again, replaced: true, decided: true, unchanged: true}
				return nil
			}
			e.Iteration = last + 1
		}
		if e.Iteration == 0 {
			e.Iteration = 1
			for _, f := range files {
				e.Iteration = max(e.Iteration, f.iteration+1)
			}
		}
		var same []entry.JournalEntry
		for _, f := range files {
			if f.iteration != e.Iteration {
				continue
			}
			p := entry.JournalDir + "/" + e.RunID + "/" + f.name
			data, ok, err := tx.Read(p)
			if err != nil {
				return err
			}
			if old, err := entry.ParseJournal(data, p); ok && err == nil {
				same = append(same, old)
			}
		}
		for _, old := range same {
			replace := len(same) == 1
			if !replace {
				again := e
				again.CreatedAt, again.Path = old.CreatedAt, old.Path
				replace = string(entry.RenderJournal(again)) == string(entry.RenderJournal(old))
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
			tag, err := entry.NewID(s.random, "", entry.JournalTagBytes, func(tag string) bool {
				exists, _ := tx.Exists(entry.JournalPath(e.RunID, e.Iteration, tag)) // committed, or left on disk
				return exists
			}, "no free name for iteration "+strconv.Itoa(e.Iteration)+" of run "+e.RunID)
			if err != nil {
				return err
			}
			e.Path = entry.JournalPath(e.RunID, e.Iteration, tag)
		}
		plan.entry, plan.decided = e, true
	}
	if plan.unchanged {
		return nil
	}
	e := plan.entry
	tx.Apply(Edit{Path: e.Path, Op: OpPut, Content: string(entry.RenderJournal(e))})
	return nil
}

// sameAsIteration returns the run's entry numbered iteration that records
// exactly what e does — e's content, whatever its number, file and time —
// or nil.
func sameAsIteration(tx *Tx, e entry.JournalEntry, files []runFile, iteration int) (*entry.JournalEntry, error) {
	for _, f := range files {
		if f.iteration != iteration || iteration == 0 {
			continue
		}
		p := entry.JournalDir + "/" + e.RunID + "/" + f.name
		data, ok, err := tx.Read(p)
		if err != nil {
			return nil, err
		}
		old, err := entry.ParseJournal(data, p)
		if !ok || err != nil {
			continue
		}
		mine := e
		mine.Iteration, mine.CreatedAt, mine.Path = old.Iteration, old.CreatedAt, old.Path
		if string(entry.RenderJournal(mine)) == string(entry.RenderJournal(old)) {
			return &old, nil
		}
	}
	return nil, nil
}

// runFile is an iteration's file in a run's directory, as JournalFileName
// reads its name.
type runFile struct {
	name      string
	iteration int
}

// runFiles lists the iterations' files of run (others are left out).
func runFiles(r catalog.Reader, run string) ([]runFile, error) {
	entries, err := r.ReadDir(entry.JournalDir + "/" + run)
	if err != nil {
		return nil, err
	}
	var out []runFile
	for _, e := range entries {
		if n, _, ok := entry.JournalFileName(e.Name()); ok {
			out = append(out, runFile{e.Name(), n})
		}
	}
	return out, nil
}

// AddJournal records one iteration, as one commit.
func (s *Store) AddJournal(in entry.JournalEntry) (entry.JournalEntry, bool, *WriteResult, error) {
	in, err := in.Normalize(&entry.SecretCheck{})
	if err == nil {
		in.FilesModified, err = s.repoFiles(in.FilesModified)
	}
	if err != nil {
		return entry.JournalEntry{}, false, nil, err
	}
	if _, unknown := s.checkNextModel(in.NextModel); unknown != "" {
		return entry.JournalEntry{}, false, nil, &entry.InputError{Field: "next-model", Msg: fmt.Sprintf("--next-model %s is not one of the models in %s (%s)",
			strconv.Quote(words.Shorten(in.NextModel, 40)), entry.ConfigPath, strings.Join(s.models(), ", "))}
	}
	now := s.now()
	var plan journalPlan
	res, err := s.Write(func(tx *Tx) error {
		if err := planJournal(tx, s, in, now, &plan); err != nil {
			return err
		}
		e := plan.entry
		tx.SetMessage(CommitMessage("lore: add journal "+e.Key()+" ("+e.Outcome+")", e.Notes, journalTrailers(e, "journal")...))
		return nil
	})
	if err != nil {
		return entry.JournalEntry{}, false, nil, err
	}
	return plan.entry, plan.replaced, res, nil
}

func journalTrailers(e entry.JournalEntry, kind string) []string {
	t := []string{"Lore-Id", e.Key(), "Lore-Kind", kind, "Run-Id", e.RunID, "Iteration", strconv.Itoa(e.Iteration)}
	if e.TaskID != "" {
		t = append(t, "Task-Id", e.TaskID)
	}
	return t
}
