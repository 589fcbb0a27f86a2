package mdstore

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// A stale index: git's index holds a store file as it was before a
// commit of lore's, while HEAD and the worktree hold that commit's
// version. A git command that rewrote the index as lore committed leaves
// it — git stash read the index before lore's commit and wrote it back
// after, or a git merge begun before the commit failed to move the branch
// after it and left its index — and so does a lore killed between moving
// the branch and writing the index. The person's next plain git commit
// would commit the index as it is, and drop what lore's commit wrote: an
// acknowledged memory, an iteration.
//
// It is told from a person's change by three things at once: the
// worktree holds HEAD's version (a person edits the worktree), the index
// holds exactly a version the file had before some of its last commits
// (a hand edit holds new bytes; a hand deletion of a memory in a pull
// request is a new version too), and those commits are all lore's
// (behindLore). lore's next command puts HEAD's version back in the
// index for the files its recent commits wrote (RepairStaleStaged); a
// lore write that edits such a file does not carry the stale version
// into the index it leaves (gitx.Options.StaleIndex), where it would no
// longer be an old version but a new one; and lore validate --staged —
// the pre-commit hook — refuses a commit that would drop them, naming
// git restore --staged, which repairs it without lore.

// StaleStaged is a store file git's index holds as it was before lore's
// Commit (whose subject is Subject), while HEAD and the worktree hold
// that commit's version.
type StaleStaged struct {
	Path    string `json:"path"` // store path
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
}

// StaleStaged finds every stale store file in git's index (the one
// GIT_INDEX_FILE names for a pre-commit hook).
func (s *Store) StaleStaged() ([]StaleStaged, error) {
	if s.repo == nil {
		return nil, nil
	}
	changes, err := s.repo.StagedChanges(s.GitPath(entry.Dir))
	if err != nil {
		return nil, err
	}
	return s.staleOf(changes)
}

// RepairStaleStaged puts HEAD's version back in git's index for the
// store files lore's recent commits wrote that the index holds as they
// were before (see above), and returns them. While git is in the middle
// of an operation it changes nothing: the index is the operation's, and
// the pre-commit hook refuses the commit that would conclude it with a
// stale file.
func (s *Store) RepairStaleStaged() ([]StaleStaged, error) {
	if s.repo == nil || s.repo.OperationInProgress() != "" || s.config.Commit != config.CommitAuto {
		return nil, nil
	}
	release, free := s.holdForWrite()
	defer release()
	if !free {
		return nil, nil // lore sync's git commands own the index
	}
	paths := s.recentlyCommitted()
	if len(paths) == 0 {
		return nil, nil
	}
	changes, err := s.repo.StagedChangesOf(paths)
	if err != nil || len(changes) == 0 {
		return nil, err
	}
	stale, err := s.staleOf(changes)
	if err != nil || len(stale) == 0 {
		return nil, err
	}
	fixed, _, err := s.restage(stale)
	return fixed, err
}

// restage puts HEAD's version of the stale files back in git's index,
// and returns those it did.
func (s *Store) restage(stale []StaleStaged) ([]StaleStaged, []string, error) {
	var gitPaths []string
	for _, st := range stale {
		gitPaths = append(gitPaths, s.GitPath(st.Path))
	}
	restaged, err := s.repo.RestageHead(gitPaths, s.config.LockTimeout)
	if err != nil {
		return nil, nil, err
	}
	var out []StaleStaged
	for _, st := range stale {
		if slices.Contains(restaged, s.GitPath(st.Path)) {
			out = append(out, st)
		}
	}
	return out, nil, nil
}

// staleOf keeps the changes that are stale store files.
func (s *Store) staleOf(changes []gitx.StagedChange) ([]StaleStaged, error) {
	var out []StaleStaged
	for _, c := range changes {
		wt, ok, err := s.repo.WorktreeBlob(c.Path, 1<<62)
		if err != nil {
			return nil, err
		}
		if !ok || wt != c.Head {
			continue // the worktree is not HEAD's: a person's change
		}
		lore, err := s.behindLore(c.Path, c.Index, c.Head)
		if err != nil {
			return nil, err
		}
		if lore == nil {
			continue // the index holds another version: a person's
		}
		out = append(out, StaleStaged{Path: s.storePath(c.Path), Commit: lore.Commit.String(), Subject: lore.Subject})
	}
	return out, nil
}

// staleDepth is how many of a file's versions behindLore looks back: a
// git command that held the index while lore committed this many times
// over the same file is not expected.
const staleDepth = 64

// behindLore returns the oldest of the lore commits that git path p's
// staged version (index) lacks, when index is a version the file had
// before a run of lore's commits and nothing but lore's commits changed
// the file since (HEAD holding head); else nil: the index holds a
// version of the person's. A stash that held the index across several of
// lore's commits leaves one several versions back.
func (s *Store) behindLore(p string, index, head gitx.Hash) (*gitx.Version, error) {
	var found *gitx.Version
	n := 0
	err := s.repo.History(p, func(v gitx.Version) bool {
		if (n == 0 && v.Blob != head) || !strings.HasPrefix(v.Subject, "lore: ") {
			return false
		}
		if v.Before == index {
			found = &v
			return false
		}
		n++
		return n < staleDepth
	})
	return found, err
}

// storePath is git's path p as a store path.
func (s *Store) storePath(p string) string {
	if s.prefix == "" {
		return p
	}
	return strings.TrimPrefix(p, s.prefix+"/")
}

// recentFile records the store files of lore's last commits in this
// clone, one commit a line: "<commit> <path>\t<path>…".
func (s *Store) recentFile() string { return filepath.Join(s.StateDir(), "recent-commits") }

// recentKept is how many of lore's commits recentFile remembers.
const recentKept = 8

// noteCommitted records the store files commit wrote (best effort: a
// record lost to a concurrent writer only costs the repair of that
// commit's files, which the pre-commit hook still guards).
func (s *Store) noteCommitted(commit string, edits []Edit) {
	var paths []string
	for _, e := range edits {
		if !slices.Contains(paths, e.Path) {
			paths = append(paths, e.Path)
		}
	}
	if len(paths) == 0 {
		return
	}
	lines := s.recentLines()
	lines = append(lines, commit+" "+strings.Join(paths, "\t"))
	if len(lines) > recentKept {
		lines = lines[len(lines)-recentKept:]
	}
	if err := os.MkdirAll(s.StateDir(), 0o755); err == nil {
		fsx.WriteFile(s.recentFile(), []byte(strings.Join(lines, "\n")+"\n"), fsx.Unsynced)
	}
}

func (s *Store) recentLines() []string {
	data, err := os.ReadFile(s.recentFile())
	if err != nil {
		return nil
	}
	var lines []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// recentlyCommitted is the store files of lore's recent commits, as git
// names them.
func (s *Store) recentlyCommitted() []string {
	var out []string
	for _, l := range s.recentLines() {
		_, paths, ok := strings.Cut(l, " ")
		if !ok {
			continue
		}
		for _, p := range strings.Split(paths, "\t") {
			if g := s.GitPath(p); p != "" && !slices.Contains(out, g) {
				out = append(out, g)
			}
		}
	}
	return out
}

// DroppingProblems are what the commit of git's index would drop of
// what lore committed, as lore validate --staged reports it: in a merge,
// the entries a side added that its result lacks (MergeDropProblems);
// otherwise the stale files (StaleProblems).
func (s *Store) DroppingProblems() ([]entry.Problem, error) {
	if s.repo == nil {
		return nil, nil
	}
	if _, merging := s.repo.MergeHead(); merging {
		return s.MergeDropProblems()
	}
	return s.StaleProblems()
}

// StaleProblems are the stale store files of git's index as lore
// validate reports them: errors, for a commit would drop what lore's
// commit wrote.
func (s *Store) StaleProblems() ([]entry.Problem, error) {
	stale, err := s.StaleStaged()
	if err != nil {
		return nil, err
	}
	var out []entry.Problem
	for _, st := range stale {
		out = append(out, entry.Problem{Path: st.Path, Severity: entry.SeverityError, Message: fmt.Sprintf(
			"staged as it was before lore's commit %s (%q): a git command rewrote the index as lore committed, and committing it would undo that commit's change; run git restore --staged %s, then commit again",
			st.Commit[:7], st.Subject, s.GitPath(st.Path))})
	}
	return out, nil
}

// Repaired says what a repair of git's index did: one line for each
// stale file staged again and one for the files a merge got back.
func Repaired(stale []StaleStaged, merged []string) []string {
	var out []string
	for _, f := range stale {
		out = append(out, fmt.Sprintf("git's index held %s as it was before lore's commit %s (a git command rewrote the index as lore committed); lore staged the committed version again", f.Path, f.Commit[:7]))
	}
	if len(merged) > 0 {
		out = append(out, fmt.Sprintf("the merge in progress began before lore committed, and staged %s without what lore's commits wrote; lore merged it in again (worktree and index)", strings.Join(merged, ", ")))
	}
	return out
}

// RepairBeforeCommit is what lore validate --staged (the pre-commit hook)
// repairs before it checks, when the commit is of git's own index — a
// plain git commit, for which git has let go of index.lock and reads the
// index again after the hook: a merge in progress gets back what lore
// committed after it began (RepairMergeIndex); otherwise every stale store
// file is staged as HEAD holds it. git commit -a and git commit <paths>
// commit a temporary index git holds: the hook only checks those.
func (s *Store) RepairBeforeCommit() (stale []StaleStaged, merged []string, err error) {
	if s.repo == nil || !s.repo.CommitsMainIndex() || s.config.Commit != config.CommitAuto {
		return nil, nil, nil
	}
	if _, merging := s.repo.MergeHead(); merging {
		merged, err = s.RepairMergeIndex()
		return nil, merged, err
	}
	if s.repo.OperationInProgress() != "" {
		return nil, nil, nil
	}
	found, err := s.StaleStaged()
	if err != nil || len(found) == 0 {
		return nil, nil, err
	}
	return s.restage(found)
}
