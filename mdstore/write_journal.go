package mdstore

import (
	"crypto/sha256"
	"encoding/hex"
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
	replaced bool // an entry for this run and iteration (or ingest key) existed
}

// planJournal fills in the run, the iteration and the file, and registers
// the edit. Every call without an iteration records a new one — one
// invocation, one iteration — unless the entry carries an ingest key
// that an iteration of the run was recorded with: then it is that
// iteration again. A new iteration gets a file of its own (JournalPath;
// its tag is made from the ingest key when there is one, so that the key
// is found by name). One given by number or key that the run already has
// replaces it, keeping its creation time, so recording an iteration twice
// changes nothing; where two branches recorded that number, the one it is
// the same as, else a file of its own.
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
		if e.Iteration == 0 && e.IngestKey != "" {
			old, err := keyedIteration(tx, e.RunID, e.IngestKey, files)
			if err != nil {
				return err
			}
			if old != nil {
				e.Iteration, e.Path, plan.replaced = old.Iteration, old.Path, true
				if old.CreatedAt != "" {
					e.CreatedAt = old.CreatedAt
				}
			}
		}
		if e.Iteration == 0 {
			e.Iteration = 1
			for _, f := range files {
				e.Iteration = max(e.Iteration, f.iteration+1)
			}
		}
		var same []entry.JournalEntry
		for _, f := range files {
			if f.iteration != e.Iteration || e.Path != "" {
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
		if e.Path == "" && e.IngestKey != "" {
			p := entry.JournalPath(e.RunID, e.Iteration, keyTag(e.IngestKey))
			if exists, err := tx.Exists(p); err != nil {
				return err
			} else if !exists {
				e.Path = p
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
	e := plan.entry
	tx.Apply(Edit{Path: e.Path, Op: OpPut, Content: string(entry.RenderJournal(e))})
	return nil
}

// keyTag is the tag of the file of an iteration recorded with an ingest
// key: the first JournalTagBytes of the key's SHA-256, in hex.
func keyTag(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:entry.JournalTagBytes])
}

// keyedIteration returns the run's entry recorded with the ingest key,
// or nil. Only the files whose tag is the key's are read.
func keyedIteration(tx *Tx, run, key string, files []runFile) (*entry.JournalEntry, error) {
	tag := keyTag(key)
	for _, f := range files {
		if _, t, _ := entry.JournalFileName(f.name); t != tag {
			continue
		}
		p := entry.JournalDir + "/" + run + "/" + f.name
		data, ok, err := tx.Read(p)
		if err != nil {
			return nil, err
		}
		old, err := entry.ParseJournal(data, p)
		if ok && err == nil && old.IngestKey == key {
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
	if _, unknown := s.config.CheckNextModel(in.NextModel); unknown != "" {
		return entry.JournalEntry{}, false, nil, &entry.InputError{Field: "next-model", Msg: fmt.Sprintf("--next-model %s is not one of the models in %s (%s)",
			strconv.Quote(words.Shorten(in.NextModel, 40)), entry.ConfigPath, strings.Join(s.config.ModelsOf(), ", "))}
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
