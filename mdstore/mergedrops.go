package mdstore

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"lore/internal/gitx"
	"lore/internal/words"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/mdstore/merge"
)

// A merge that began before lore committed — git pull's merge read the
// branch, lore committed, the merge failed to move the branch and left
// MERGE_HEAD — stages a result without what lore's commit wrote: a new
// iteration's file, memories in memories.md. Concluding it with git
// commit, as git suggests, drops them. A correct merge keeps every entry
// either side added since the merge base, so lore validate --staged (the
// pre-commit hook) refuses a merge commit that lacks one.

// mergeNeeds is what the result of a merge must hold of one store file:
// the memory ids either side added, or the file itself, with the side
// that added it.
type mergeNeeds struct {
	memories map[string]string // id → side
	file     string            // the side that added the file, "" when none
}

// MergeDropProblems are the entries the merge in progress stages without,
// though one of its sides added them since the merge base: errors, one
// per file, naming the repair. Outside a merge there are none.
func (s *Store) MergeDropProblems() ([]entry.Problem, error) {
	if s.repo == nil {
		return nil, nil
	}
	theirs, merging := s.repo.MergeHead()
	if !merging {
		return nil, nil
	}
	ours, err := s.repo.HeadCommit()
	if err != nil || ours.IsZero() {
		return nil, err
	}
	base, err := s.repo.MergeBase(ours, theirs)
	if err != nil || base.IsZero() {
		return nil, err
	}
	if applied, n, err := s.mergeApplied(base, ours, theirs); err != nil || !applied {
		if err != nil {
			return nil, err
		}
		return []entry.Problem{{Path: "MERGE_HEAD", Severity: entry.SeverityError, Message: fmt.Sprintf(
			"the merge of %s is not in git's index: none of the %d %s it changes is staged as it has %s (git could not write the index — a lore write held index.lock — yet left MERGE_HEAD), and committing would drop the other side's work; run git merge --abort, then git pull again (lore sync pulls without this race)",
			theirs.String()[:7], n, words.Plural(n, "file", "files"), words.Plural(n, "it", "them"))}}, nil
	}
	needs := map[string]*mergeNeeds{} // by git path
	for _, side := range []struct {
		name string
		tip  gitx.Hash
	}{{"HEAD", ours}, {"the merged branch", theirs}} {
		changes, err := s.repo.CommitChanges(base, side.tip, s.prefix)
		if err != nil {
			return nil, err
		}
		for _, f := range changes {
			p := s.storePath(f.Path)
			if !f.HasNew || !entry.InStore(p) {
				continue
			}
			n := needs[f.Path]
			if n == nil {
				n = &mergeNeeds{memories: map[string]string{}}
				needs[f.Path] = n
			}
			switch {
			case p == entry.MemoriesPath:
				before := entry.ParseMemoriesFile(f.Old, p).IDs()
				for _, m := range entry.ParseMemoriesFile(f.New, p).Memories {
					if !before[m.ID] {
						n.memories[m.ID] = side.name
					}
				}
			case !f.HadOld:
				n.file = side.name
			}
		}
	}
	paths := make([]string, 0, len(needs))
	for p := range needs {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	staged, err := s.repo.StagedOf(paths)
	if err != nil {
		return nil, err
	}
	const repair = "; if lore committed after the merge began, any lore command (lore status) merges it in again, then commit; otherwise resolve the merge with it, or commit with --no-verify to drop it on purpose"
	var out []entry.Problem
	for _, p := range paths {
		n, st := needs[p], staged[p]
		if st.Conflicted {
			continue // git refuses the commit itself
		}
		if n.file != "" && st.Blob.IsZero() {
			out = append(out, entry.Problem{Path: s.storePath(p), Severity: entry.SeverityError, Message: fmt.Sprintf(
				"the merge stages without this file, which %s added since the merge base%s", n.file, repair)})
			continue
		}
		if len(n.memories) == 0 {
			continue
		}
		var have map[string]bool
		if !st.Blob.IsZero() {
			data, err := s.repo.ReadBlob(st.Blob)
			if err != nil {
				return nil, err
			}
			have = entry.ParseMemoriesFile(data, entry.MemoriesPath).IDs()
		}
		bySide := map[string][]string{}
		for id, side := range n.memories {
			if !have[id] {
				bySide[side] = append(bySide[side], id)
			}
		}
		for _, side := range []string{"HEAD", "the merged branch"} {
			ids := bySide[side]
			if len(ids) == 0 {
				continue
			}
			slices.Sort(ids)
			out = append(out, entry.Problem{Path: s.storePath(p), Severity: entry.SeverityError, Message: fmt.Sprintf(
				"the merge stages it without %s, which %s added since the merge base%s", strings.Join(ids, ", "), side, repair)})
		}
	}
	return out, nil
}

// RepairMergeIndex adds back to a merge in progress what lore committed
// after the merge began: when HEAD is ORIG_HEAD (where the merge began)
// plus commits of lore's only, each store file those commits changed is
// staged, and written to the worktree, as the three-way merge (lore's
// merge driver) of ORIG_HEAD's version, the merge's staged result and
// HEAD's — the merge's result with lore's changes in it. Only where the
// worktree holds the staged version (or already the repaired one, or
// lore's new file), and the merge of the file has no conflict; a person's
// resolution is left alone. It returns the store paths repaired.
func (s *Store) RepairMergeIndex() ([]string, error) {
	if s.repo == nil || s.config.Commit != config.CommitAuto {
		return nil, nil
	}
	if _, merging := s.repo.MergeHead(); !merging {
		return nil, nil
	}
	began, ok := s.repo.OrigHead()
	if !ok {
		return nil, nil
	}
	release, free := s.holdForWrite()
	defer release()
	if !free {
		return nil, nil // lore sync's own merge: it finishes or aborts it
	}
	n, ours, err := s.repo.LoreCommitsSince(began)
	if err != nil || !ours || n == 0 {
		return nil, err
	}
	head, err := s.repo.HeadCommit()
	if err != nil {
		return nil, err
	}
	changes, err := s.repo.CommitChanges(began, head, s.prefix)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range changes {
		if entry.InStore(s.storePath(f.Path)) {
			paths = append(paths, f.Path)
		}
	}
	staged, err := s.repo.StagedOf(paths)
	if err != nil {
		return nil, err
	}
	var fixes []gitx.Restage
	for _, f := range changes {
		st, ok := staged[f.Path]
		if !ok || st.Conflicted {
			continue
		}
		var base, merged, lore []byte
		if f.HadOld {
			base = f.Old
		}
		if f.HasNew {
			lore = f.New
		}
		if !st.Blob.IsZero() {
			if merged, err = s.repo.ReadBlob(st.Blob); err != nil {
				return nil, err
			}
		}
		res, err := merge.File(s.storePath(f.Path), base, merged, lore, merge.Labels{})
		if err != nil || res.Conflicts > 0 || res.Data == nil || bytes.Equal(res.Data, merged) {
			continue // a removal is the merge's to decide
		}
		wt, ok, err := s.repo.WorktreeBlob(f.Path, 1<<62)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		worktree := st.Blob
		if st.Blob.IsZero() && f.HasNew {
			worktree = wt // lore's new file, left in the worktree: checked against what HEAD holds below
			if got := gitx.BlobHash(f.New); wt != got {
				continue
			}
		}
		fixes = append(fixes, gitx.Restage{Path: f.Path, Data: res.Data, Index: st.Blob, Worktree: worktree})
	}
	if len(fixes) == 0 {
		return nil, nil
	}
	written, err := s.repo.RestageFiles(fixes, s.config.LockTimeout)
	out := make([]string, len(written))
	for i, p := range written {
		out[i] = s.storePath(p)
	}
	return out, err
}

// mergeApplied says whether git's index holds anything of the merge in
// progress: false when every file the merged side (theirs) changed since
// the merge base, and HEAD holds otherwise, is staged as HEAD holds it —
// git merge that could not write the index leaves MERGE_HEAD all the
// same. n counts those files.
func (s *Store) mergeApplied(base, ours, theirs gitx.Hash) (applied bool, n int, err error) {
	theirChanges, err := s.repo.ChangedFiles(base, theirs)
	if err != nil {
		return true, 0, err
	}
	ourChanges, err := s.repo.ChangedFiles(base, ours)
	if err != nil {
		return true, 0, err
	}
	oursAt := map[string]gitx.Hash{}
	for _, c := range ourChanges {
		oursAt[c.Path] = c.NewBlob
	}
	var paths []string
	want := map[string]gitx.Hash{} // what HEAD holds at each path theirs changed
	for _, c := range theirChanges {
		held, changed := oursAt[c.Path]
		if !changed {
			held = c.OldBlob
		}
		if held != c.NewBlob {
			paths = append(paths, c.Path)
			want[c.Path] = held
		}
	}
	if len(paths) == 0 {
		return true, 0, nil
	}
	staged, err := s.repo.StagedOf(paths)
	if err != nil {
		return true, 0, err
	}
	for _, p := range paths {
		if st := staged[p]; st.Conflicted || st.Blob != want[p] {
			return true, len(paths), nil
		}
	}
	return false, len(paths), nil
}
