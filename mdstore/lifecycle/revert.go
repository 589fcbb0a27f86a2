package lifecycle

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"
)

// lore revert RUN/NNNN undoes what one iteration of a loop wrote to the
// store, entry by entry, as one commit. What the iteration wrote is read
// from git's history, along HEAD's first parents:
//
//   - its ingest commits: those whose trailers name its run and iteration
//     (Run-Id, Iteration; an iteration recorded again has more than one);
//   - for an iteration after the first, lore's own commits made while it
//     ran: those after the ingest commit of the run's previous iteration
//     and before the iteration's last ingest commit, whose subject starts
//     "lore: ", that carry a Lore-Kind trailer and no Run-Id (an agent's
//     lore add, lore knowledge add, lore learning add, lore edit). The
//     first iteration of a run has only its ingest commits: nothing says
//     when it began.
//
// A commit made by hand (no "lore: " subject) is never undone. Each entry
// those commits changed — a memory (by id), a knowledge entry, a
// learning, a skill, a journal entry (by file), an entry's citations (its
// rows of citations.md) — is put back as it was before the first of them
// that changed it: one they added is removed, one they changed or
// deleted comes back. The iteration's own journal entry is kept, and its
// reverted_at set. Other files (config.yaml, .gitignore) are left as
// they are.
//
// The revert is refused when a commit after the iteration's first change
// of an entry that is not one of its own (a later iteration, a lore edit,
// an edit by hand, a merge) changed the same entry: putting it back would
// lose that change.

// RevertPlan is what reverting one iteration would do. PlanRevert makes
// it, changing nothing; Apply commits it.
type RevertPlan struct {
	Key       string           `json:"key"` // the iteration's journal entry, "<run>/<name>"
	RunID     string           `json:"run_id"`
	Iteration int              `json:"iteration"`
	Path      string           `json:"path"`    // its journal file
	Commits   []RevertedCommit `json:"commits"` // undone, oldest first
	Entries   []RevertedEntry  `json:"entries"` // put back, in the order the commits first changed them
	head      gitx.Hash        // HEAD when the plan was made
	edits     []mdstore.Edit   // one per entry, in Entries' order
}

// RevertedCommit is a commit of the iteration that a revert undoes.
type RevertedCommit struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
}

// RevertedEntry is an entry a revert puts back.
type RevertedEntry struct {
	// Kind is the entry's kind; "citations" for an entry's rows of
	// citations.md (ID is then the entry's key there).
	Kind entry.Kind `json:"kind"`
	ID   string     `json:"id"`
	Path string     `json:"path"` // the store file that holds it
	// Action is what the revert does: "removed" (the iteration added it),
	// "restored" (the iteration deleted it), "put back" (it changed it).
	Action string `json:"action"`
}

// KindCitations names an entry's rows of citations.md in a RevertedEntry.
const KindCitations entry.Kind = "citations"

// Name is how a message names the entry: a memory's id, or its kind and id.
func (e RevertedEntry) Name() string {
	if e.Kind == entry.KindMemory {
		return e.ID
	}
	if e.Kind == KindCitations {
		return "the citations of " + e.ID
	}
	return string(e.Kind) + " " + e.ID
}

// RevertConflictError is a revert refused: a commit after the iteration
// changed one of the entries it wrote.
type RevertConflictError struct {
	Key     string // the iteration
	Entry   string // the entry's Name
	Commit  string // the later commit, in full
	Subject string
}

func (e *RevertConflictError) Error() string {
	return fmt.Sprintf("lore revert %s: %s was changed after the iteration by %s %q; revert that change first, or edit by hand",
		e.Key, e.Entry, e.Commit[:min(7, len(e.Commit))], e.Subject)
}

// ErrAlreadyReverted is a revert of an iteration whose journal entry has
// its reverted_at.
var ErrAlreadyReverted = errors.New("the iteration was already reverted")

// commitLog is one commit along HEAD's first parents.
type commitLog struct {
	gitx.Version
	trailers gitx.Trailers
}

// PlanRevert decides what reverting iteration key ("<run>/<NNNN>" or the
// journal entry's key) undoes; it changes nothing.
func PlanRevert(s *mdstore.Store, key string) (*RevertPlan, error) {
	if s.Repo() == nil {
		return nil, errors.New("lore revert reads git's history: the store is not in a git repository")
	}
	je, err := s.JournalEntry(key)
	if err != nil {
		return nil, err
	}
	plan := &RevertPlan{Key: je.Key(), RunID: je.RunID, Iteration: je.Iteration, Path: je.Path}
	if je.RevertedAt != "" {
		return nil, fmt.Errorf("lore revert %s: %w, at %s", plan.Key, ErrAlreadyReverted, je.RevertedAt)
	}
	head, err := s.Repo().HeadCommit()
	if err != nil {
		return nil, err
	}
	plan.head = head
	window, ours, err := iterationCommits(s, head, je)
	if err != nil {
		return nil, err
	}
	if len(ours) == 0 {
		return nil, fmt.Errorf("lore revert %s: no commit of the branch recorded the iteration (an ingest commit with its Run-Id and Iteration trailers)", plan.Key)
	}
	changes := newEntryChanges(s, plan.Path)
	// window is newest first; the iteration's commits are undone from its
	// oldest, and each entry put back as the first of them found it.
	first := map[string]int{} // an entry → the index in window of the first commit of ours that changed it
	var was []entryState
	for i := len(window) - 1; i >= 0; i-- {
		c := window[i]
		if !ours[c.Commit] {
			continue
		}
		plan.Commits = append(plan.Commits, RevertedCommit{Commit: c.Commit.String(), Subject: c.Subject})
		found, err := changes.of(c.Version)
		if err != nil {
			return nil, err
		}
		for _, ch := range found {
			if _, seen := first[ch.name]; !seen {
				first[ch.name] = i
				plan.Entries = append(plan.Entries, ch.entry)
				was = append(was, ch.was)
			}
		}
	}
	// An entry another commit changed after the iteration first did is
	// refused, naming the earliest such commit.
	for i := len(window) - 1; i >= 0; i-- {
		c := window[i]
		if ours[c.Commit] {
			continue
		}
		found, err := changes.of(c.Version)
		if err != nil {
			return nil, err
		}
		for _, ch := range found {
			if at, ok := first[ch.name]; ok && i < at {
				return nil, &RevertConflictError{Key: plan.Key, Entry: ch.entry.Name(), Commit: c.Commit.String(), Subject: c.Subject}
			}
		}
	}
	// Each entry as HEAD has it (the iteration's last commit left it so),
	// and the edit that puts it back; one the iteration left as it found
	// it (added, then removed) is no change.
	now, err := changes.now(plan.Entries)
	if err != nil {
		return nil, err
	}
	var kept []RevertedEntry
	for i, e := range plan.Entries {
		if edit, action, ok := undo(e, was[i], now[i]); ok {
			e.Action = action
			kept = append(kept, e)
			plan.edits = append(plan.edits, edit)
		}
	}
	plan.Entries = kept
	return plan, nil
}

// Apply reverts the iteration as one commit: every entry put back, the
// journal entry's reverted_at set (from the store's clock), a Reverts
// trailer for each commit undone. HEAD must be where the plan was made.
func (plan *RevertPlan) Apply(s *mdstore.Store) (*mdstore.WriteResult, error) {
	head, err := s.Repo().HeadCommit()
	if err != nil {
		return nil, err
	}
	if head != plan.head {
		return nil, fmt.Errorf("lore revert %s: the branch moved since the revert was planned; run it again", plan.Key)
	}
	at := s.Now().UTC().Format(time.RFC3339)
	return s.Write(func(tx *mdstore.Tx) error {
		body := make([]string, 0, len(plan.Entries))
		for i, e := range plan.Entries {
			tx.Apply(plan.edits[i])
			body = append(body, "- "+e.Name()+": "+e.Action)
		}
		tx.Apply(mdstore.Edit{Path: plan.Path, Op: mdstore.OpFields, Fields: []entry.FrontmatterField{{Key: "reverted_at", Value: yamlfm.Quote(at)}}})
		trailers := []string{"Lore-Id", plan.Key, "Lore-Kind", "revert", "Run-Id", plan.RunID, "Iteration", strconv.Itoa(plan.Iteration)}
		for _, c := range plan.Commits {
			trailers = append(trailers, "Reverts", c.Commit)
		}
		tx.SetMessage(mdstore.CommitMessage(fmt.Sprintf("lore: revert %s/%04d", plan.RunID, plan.Iteration), strings.Join(body, "\n"), trailers...))
		return nil
	})
}

// iterationCommits walks HEAD's first parents back to the commit before
// the iteration's first, newest first, and marks the iteration's own.
func iterationCommits(s *mdstore.Store, head gitx.Hash, je entry.JournalEntry) ([]commitLog, map[gitx.Hash]bool, error) {
	run, n := je.RunID, strconv.Itoa(je.Iteration)
	// No commit of the iteration is older than a day before its entry was
	// made (as history's walk of a memory): a walk for a run's first
	// iteration ends there rather than at the root.
	var cutoff time.Time
	if t := entry.ParseTimestamp(je.CreatedAt); !t.IsZero() {
		cutoff = t.Add(-24 * time.Hour)
	}
	var window []commitLog
	ours := map[gitx.Hash]bool{}
	lastIngest, previous := -1, false // the iteration's newest ingest commit in window; the run's previous iteration found
	err := s.Repo().FirstParents(head, func(v gitx.Version) bool {
		c := commitLog{Version: v, trailers: gitx.ParseTrailers(v.Message)}
		if lastIngest >= 0 && !cutoff.IsZero() && v.When.Before(cutoff) {
			return false
		}
		t := c.trailers
		ingest := strings.HasPrefix(v.Subject, "lore: ") && t.Last("Run-Id") != "" && (t.Last("Lore-Kind") == "ingest" || t.Last("Lore-Kind") == "journal")
		switch {
		case ingest && t.Last("Run-Id") == run && t.Last("Iteration") == n && (t.Last("Lore-Id") == "" || t.Last("Lore-Id") == je.Key()):
			ours[v.Commit] = true
			if lastIngest < 0 {
				lastIngest = len(window)
			}
		case ingest && t.Last("Run-Id") == run && lastIngest >= 0 && earlierIteration(t.Last("Iteration"), je.Iteration):
			previous = true
			return false // the run's previous iteration: the window ends
		}
		window = append(window, c)
		return true
	})
	if err != nil || lastIngest < 0 {
		return nil, nil, err
	}
	if !previous {
		// The run's first iteration (or the first this branch has): its
		// ingest commits alone, and the window ends at the oldest.
		end := len(window)
		for end > 0 && !ours[window[end-1].Commit] {
			end--
		}
		return window[:end], ours, nil
	}
	// lore's own commits between the previous iteration and this one's
	// last ingest commit were made during it.
	for _, c := range window[lastIngest+1:] {
		t := c.trailers
		if strings.HasPrefix(c.Subject, "lore: ") && t.Last("Lore-Kind") != "" && t.Last("Lore-Kind") != "revert" && t.Last("Run-Id") == "" {
			ours[c.Commit] = true
		}
	}
	return window, ours, nil
}

// earlierIteration says whether an Iteration trailer names an iteration
// before n.
func earlierIteration(trailer string, n int) bool {
	i, err := strconv.Atoi(trailer)
	return err == nil && i < n
}
