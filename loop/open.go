package loop

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"lore/hooks"
	"lore/internal/gitx"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// OpenOptions say which store a command works on.
type OpenOptions struct {
	// Dir is where the command runs; Root, when set, is the directory
	// that holds .agent (relative to Dir), else the store is found from
	// Dir (mdstore.Find).
	Dir, Root string
	Store     mdstore.Options
	// LoreBinary is the lore the merge driver is to run, asked only when
	// the driver is registered.
	LoreBinary func() string
	// Bare opens the store and does nothing else (lore validate, which
	// the pre-commit hook runs while git holds index.lock).
	Bare bool
}

// Open opens the store a command works on, and does first what every
// command but lore validate does: it says config.yaml's warnings,
// registers lore's merge driver in a clone that lacks it, and commits the
// changes queued while git was in the middle of an operation.
func Open(opts OpenOptions, r Reporter) (*mdstore.Store, error) {
	var s *mdstore.Store
	var err error
	if opts.Root == "" {
		s, err = mdstore.Find(opts.Dir, opts.Store)
	} else {
		root := opts.Root
		if !filepath.IsAbs(root) {
			root = filepath.Join(opts.Dir, root)
		}
		s, err = mdstore.Open(root, opts.Store)
	}
	if err != nil || opts.Bare {
		return s, err
	}
	r.Warnings(s.Config().Warnings)
	loreBinary := opts.LoreBinary
	if loreBinary == nil {
		loreBinary = func() string { return "" }
	}
	checkMergeDriver(r, s, loreBinary)
	flushPending(r, s)
	repairStaleIndex(r, s)
	return s, nil
}

// repairStaleIndex puts back in git's index what lore's recent commits
// wrote where a git command that raced the commit left the version before
// it — git stash (mdstore.Store.RepairStaleStaged), a merge that began
// before the commit (mdstore.Store.RepairMergeIndex) — which the person's
// next plain git commit would commit, undoing lore's; and says what it
// did.
func repairStaleIndex(r Reporter, s *mdstore.Store) {
	stale, err := s.RepairStaleStaged()
	if err != nil {
		r.Notice("could not check git's index for what a git command raced with lore's commits: " + err.Error())
	}
	merged, err := s.RepairMergeIndex()
	if err != nil {
		r.Notice("could not give the merge in progress back what lore committed after it began: " + err.Error())
	}
	for _, line := range mdstore.Repaired(stale, merged) {
		r.Notice(line)
	}
}

// checkMergeDriver registers lore's merge driver in a clone whose
// configuration lacks it, runs lore by name, or runs a lore that is gone
// (hooks.CheckMergeDriver: a fresh clone has .gitattributes, committed,
// and no driver), and says what it did, or, once, why it could not. lore
// validate, the pre-commit hook, does not come here.
func checkMergeDriver(r Reporter, s *mdstore.Store, loreBinary func() string) {
	lore := ""
	c := hooks.CheckMergeDriver(s, func() string { lore = loreBinary(); return lore })
	runs := lore
	if runs == "" {
		runs = "lore on PATH"
	}
	const did = "registered lore's merge driver in .git/config"
	switch {
	case c.Err != nil:
		r.Notice(fmt.Sprintf("lore's merge driver is not registered in this clone, and could not be: %v; "+
			"until it is, git merges .agent/ files line by line and stops on conflicts in memories.md: run lore init here to register it", c.Err))
	case c.Fix == hooks.DriverAdded:
		r.Notice(did + " (it runs " + runs + "): .gitattributes sends .agent/ files to it, and this clone had none" + conflictsLeft(s))
	case c.Fix == hooks.DriverUpgraded:
		r.Notice(did + " again, to run " + runs + ": it ran lore by name, which git does not find where lore is not on its PATH")
	case c.Fix == hooks.DriverRepaired:
		r.Notice(did + " again, to run " + runs + ": the lore it ran, " + c.Was + ", is gone")
	case c.Fix == hooks.DriverUpdated:
		runs = c.Was
		if runs == "" {
			runs = "lore on PATH"
		}
		r.Notice("updated lore's merge driver in .git/config (it runs " + runs + " as before): where it finds no lore, it now says that lore resolve merges the file entry by entry")
	case c.Fix == hooks.DriverGoRun:
		r.Notice(did + " again, to run " + runs + ": the lore it ran, " + c.Was + ", is a build of go run, which the go command removes or replaces")
	}
}

// conflictsLeft says, for the notice of a driver registered in a fresh
// clone, how many of the store's files git already merged line by line
// and left in conflict, and which command merges them entry by entry.
func conflictsLeft(s *mdstore.Store) string {
	conflicts, err := s.Repo().Conflicts(s.GitPath(entry.Dir))
	if err != nil || len(conflicts) == 0 {
		return ""
	}
	n := len(conflicts)
	return fmt.Sprintf("; git merged .agent/ line by line before it, and left %d %s in conflict: lore resolve merges %s entry by entry",
		n, words.Plural(n, "file", "files"), words.Plural(n, "it", "them"))
}

// flushPending commits, first thing, the changes lore queued while git
// was in the middle of a merge, rebase, cherry-pick, revert or am (or
// could not sign): the command that finds nothing in the way does it. It
// does not wait for a lock another process holds; a write commits them
// before its own change anyway. While the operation goes on it says how
// many are waiting. lore validate, the pre-commit hook, does not come
// here: git holds index.lock while it runs.
func flushPending(r Reporter, s *mdstore.Store) {
	pending := s.Pending()
	if pending == (mdstore.Pending{}) {
		return
	}
	n := pending.Queued
	if pending.Operation != "" {
		the := "the" + strings.TrimPrefix(pending.Operation, "a")
		r.Notice(fmt.Sprintf("%d %s queued: %s is in progress; lore commits %s when %s is over",
			n, words.Plural(n, "change is", "changes are"), pending.Operation, words.Plural(n, "it", "them"), the))
		return
	}
	f, err := s.Flush(false)
	for _, n := range f.Notices {
		r.Notice(n)
	}
	if c := len(f.Committed); c > 0 {
		r.Notice(fmt.Sprintf("committed %d queued %s: %s", c, words.Plural(c, "change", "changes"), strings.Join(f.Committed, "; ")))
	}
	var busy *gitx.LockError
	switch {
	case errors.As(err, &busy) && f.Left == 0:
	case errors.As(err, &busy):
		r.Notice(fmt.Sprintf("%d %s queued; another process holds %s, lore commits %s on its next run",
			f.Left, words.Plural(f.Left, "change is", "changes are"), busy.Path, words.Plural(f.Left, "it", "them")))
	case err != nil:
		r.Notice(fmt.Sprintf("%d %s queued and could not be committed: %v", f.Left, words.Plural(f.Left, "change is", "changes are"), err))
	case f.Left > 0 && f.Operation != "":
		the := "the" + strings.TrimPrefix(f.Operation, "a")
		r.Notice(fmt.Sprintf("%d %s queued: %s is in progress; lore commits %s when %s is over",
			f.Left, words.Plural(f.Left, "change is", "changes are"), f.Operation, words.Plural(f.Left, "it", "them"), the))
	}
}
