// Package resolve is lore resolve: the store's files that git left in
// conflict, merged again entry by entry.
//
// git merges lore's files with lore's merge driver only in a clone whose
// configuration registers it; a fresh clone that merges before any lore
// command ran there (or a driver that found no lore) merges memories.md
// line by line, and two branches that both added memories conflict. As
// long as the conflict is not concluded, git's index still holds the
// three versions of each such file (stage 1 the base, 2 ours, 3 theirs):
// PlanResolve merges them with the merge driver's engine (package
// mdstore/merge), and Plan.Apply writes the result over git's and stages
// it, as git add would, so that git commit (or the operation's
// --continue) concludes. A file the engine cannot settle either (the same
// entry changed differently on both sides) stays in conflict, its
// markers narrowed to the entries in question; a file whose markers a
// person has already taken out is theirs, and left alone. Like git
// checkout --merge, it replaces a conflicted file's text, edits to it
// included. The index is written through gitx (Repo.Resolve), under
// index.lock; the merged text is not checked for secrets, as the merge
// driver's is not: both sides were committed already, and the
// pre-commit hook judges the commit that concludes the merge.
package resolve

import (
	"bytes"
	"errors"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/merge"
)

// Action is what Apply does to a conflicted file.
type Action string

const (
	// Merged: the merge settles every entry; the result is written and
	// staged.
	Merged Action = "merged"
	// Narrowed: some entries were changed differently on both sides; the
	// file is written with markers around those alone, and stays in
	// conflict.
	Narrowed Action = "narrowed"
	// Left: nothing is written (Reason says why).
	Left Action = "left"
)

// File is one conflicted file of the store and what Apply does to it.
type File struct {
	// Path is relative to the top of the worktree.
	Path   string `json:"path"`
	Action Action `json:"action"`
	// Conflicts is how many entries stay between markers (Narrowed).
	Conflicts int `json:"conflicts,omitempty"`
	// Deleted: the merge removes the file (deleted on one side, unchanged
	// on the other).
	Deleted bool `json:"deleted,omitempty"`
	// Note says why conflicts stay when it is not the usual reason
	// (merge.Result's Note); Reason why a file is Left.
	Note   string `json:"note,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Renamed says which memories the merge gave a new id (merge.Renamed).
	Renamed []string `json:"renamed,omitempty"`
	res     gitx.Resolution
}

// Plan is what lore resolve would do: the store's conflicted files, each
// merged in memory; nothing is written until Apply.
type Plan struct {
	Files []File `json:"files"`
	// Operation is the git operation in progress that the conflicts
	// belong to ("a merge", "a rebase", as gitx.Repo.OperationInProgress
	// says), "" for none (a git stash pop).
	Operation string `json:"operation,omitempty"`
	store     *mdstore.Store
}

// ErrNotRepository is Plan's answer outside a git repository: there are
// no merges to resolve.
var ErrNotRepository = errors.New("not in a git repository")

// Reasons a file is left as it is.
const (
	settledByHand = "it holds no conflict markers: it looks settled by hand (git add it), or git checkout --merge -- FILE brings the conflict back to merge it again"
	notAFile      = "a side is not a regular file (a link or a submodule)"
	changedSince  = "git's index changed while lore merged it; run lore resolve again"
	// A side deleted the file and the other changed it: no entry merge
	// decides that.
	deletedAndChanged = "one side deleted it and the other changed it: git add it to keep it, or git rm it"
)

// PlanResolve merges, in memory, each file of the store's .agent/ that
// git's index holds in conflict; paths (relative to the top of the
// worktree, files or directories), when given, narrow the files to those.
func PlanResolve(s *mdstore.Store, paths []string) (*Plan, error) {
	repo := s.Repo()
	if repo == nil {
		return nil, ErrNotRepository
	}
	conflicts, err := repo.Conflicts(s.GitPath(entry.Dir))
	if err != nil {
		return nil, err
	}
	p := &Plan{Operation: repo.OperationInProgress(), store: s}
	for _, c := range conflicts {
		if !wanted(c.Path, paths) {
			continue
		}
		f, err := planFile(s, c)
		if err != nil {
			return nil, err
		}
		p.Files = append(p.Files, f)
	}
	return p, nil
}

// wanted reports whether p is one of paths or below one of them; every
// path is wanted when none is given.
func wanted(p string, paths []string) bool {
	for _, w := range paths {
		w = strings.TrimSuffix(path.Clean(w), "/")
		if w == "." || p == w || strings.HasPrefix(p, w+"/") {
			return true
		}
	}
	return len(paths) == 0
}

// planFile merges conflict c from its stages, and decides what becomes
// of the worktree's file.
func planFile(s *mdstore.Store, c gitx.Conflict) (File, error) {
	f := File{Path: c.Path, Action: Left}
	if !c.Regular() {
		f.Reason = notAFile
		return f, nil
	}
	var sides [3][]byte
	for i, h := range []gitx.Hash{c.Base, c.Ours, c.Theirs} {
		if h.IsZero() {
			continue // the side has no such file
		}
		data, err := s.Repo().ReadBlob(h)
		if err != nil {
			return f, err
		}
		sides[i] = data
	}
	res, err := merge.File(entry.StorePath(c.Path), sides[0], sides[1], sides[2],
		merge.Labels{Ours: "ours", Base: "base", Theirs: "theirs"})
	if err != nil {
		f.Reason = err.Error()
		return f, nil
	}
	worktree, err := fsx.ReadRegular(filepath.Join(s.Repo().WorkTree, filepath.FromSlash(c.Path)), 1<<62)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if _, skipped := fsx.Skipped(err); skipped {
			f.Reason = notAFile
			return f, nil
		}
		return f, err
	}
	f.Conflicts, f.Note = res.Conflicts, res.Note
	for _, r := range res.Renamed {
		f.Renamed = append(f.Renamed, r.String())
	}
	// git writes markers into a file whose content conflicts; one without
	// them was settled by a person, unless it already is the merge's.
	marked := entry.HasConflictMarkers(worktree)
	switch {
	case res.Conflicts == 0 && (marked || sameFile(worktree, res.Data)):
		f.Action = Merged
	case res.Conflicts > 0 && marked:
		f.Action = Narrowed
	case res.Conflicts > 0 && (sides[1] == nil || sides[2] == nil):
		f.Reason = deletedAndChanged
		return f, nil
	default:
		f.Reason = settledByHand
		return f, nil
	}
	f.Deleted = res.Data == nil
	f.res = gitx.Resolution{Conflict: c, Data: res.Data, Stage: f.Action == Merged}
	return f, nil
}

// sameFile reports whether the worktree's file (nil: none) is data (nil:
// no file).
func sameFile(worktree, data []byte) bool {
	return (worktree == nil) == (data == nil) && bytes.Equal(worktree, data)
}

// Apply writes the files the plan merged, and stages those it settled,
// under git's index.lock (config.yaml's lock_timeout at most). A file
// whose stages changed since the plan read them is left, and says so.
func (p *Plan) Apply() error {
	var todo []gitx.Resolution
	for _, f := range p.Files {
		if f.Action != Left {
			todo = append(todo, f.res)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	written, err := p.store.Repo().Resolve(todo, p.store.Config().LockTimeout)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, w := range written {
		done[w] = true
	}
	for i := range p.Files {
		if f := &p.Files[i]; f.Action != Left && !done[f.Path] {
			f.Action, f.Reason = Left, changedSince
		}
	}
	return nil
}

// Unsettled counts the files that stay in conflict.
func (p *Plan) Unsettled() int {
	n := 0
	for _, f := range p.Files {
		if f.Action != Merged {
			n++
		}
	}
	return n
}
