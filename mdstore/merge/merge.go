// Package merge is the three-way merge of lore's files behind `lore
// merge-driver`: people and agents on several branches write memories at
// once, and their branches must merge without conflict markers unless the
// same entry was changed in two different ways.
//
//   - memories.md is cut into memory blocks (each with the blank line
//     before it, as mdstore.InsertMemory writes it) and prose. A memory's
//     type, text and spacing merge independently by id (one side changed:
//     that side; both alike: it; both differently: one conflict, markers
//     around that block only); additions from either side go into their
//     section, newest first; a deletion with no change on the other side is
//     honoured. One id added on both sides with different texts is two
//     memories, one of them renamed (Renamed). Prose merges by lines (diff3). Repair passes keep one
//     heading per section and every memory under its own type's heading.
//   - Files with frontmatter merge field by field by YAML value; set-like
//     lists (tags, sources, files_modified, source_runs, relevant_files) as
//     unions; a nested map key by key; the body by diff3. A field kept from
//     ours keeps its exact text. A time both sides changed (created_at,
//     updated_at, any RFC 3339 timestamp or date on both sides) takes the
//     later one. A journal entry added on both sides is two iterations at
//     one path: kept whole, both, between markers, never fused. Anything
//     the field merge cannot take apart (anchors, flow roots, duplicate
//     keys) merges by lines; a conflict-free result that the kind's parser
//     refuses falls back to the line merge or one whole-file conflict.
//   - citations.md merges as a set of lines (package cites): never a
//     conflict.
//   - Everything else merges by diff3 (package internal/diff3).
//
// If one side equals the base (or both sides are equal) the other is
// returned byte for byte.
package merge

import (
	"bytes"
	"fmt"
	"strings"

	"lore/internal/diff3"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// Labels name the sides in conflict markers (see diff3.Labels).
type Labels = diff3.Labels

// Result is a merged file and the number of conflicts left in it, each
// marked like git's: "<<<<<<< ours", ours' lines, "=======", theirs' lines,
// ">>>>>>> theirs". Data is nil when the merge deletes the file.
type Result struct {
	Data      []byte
	Conflicts int
	// Note says why the conflicts are there when it is not the usual
	// reason (both sides changed one entry differently).
	Note string
	// Renamed are the memories given a new id because the other side
	// added another under theirs (memories.md only).
	Renamed []Renamed
}

// MergeFile merges ours and theirs, both descended from base, for the store
// file at path (slash-separated, relative to the store root, such as
// .agent/memories.md or .agent/knowledge/x.md). A missing side (the file
// added or deleted on a branch) is nil; an empty file is an empty, non-nil
// slice.
//
// memories.md merges memory by memory, knowledge, learning, journal and
// skill files field by field, anything else line by line (diff3). A file
// added on one side only is that side; added on both, it merges against an
// empty base. A file deleted on one side and unchanged on the other gives
// Data nil and no conflict: the caller deletes the file. Deleted on one
// side and changed on the other is one conflict whose markers hold the
// changed side's text.
//
// Conflicts counts what is left between markers: a memory, a frontmatter
// field, a run of lines. The driver exits non-zero when it is not zero.
//
// The error is non-nil only if the merge itself failed (a bug, recovered
// from a panic); the caller should then leave the file to git's own merge.
func File(path string, base, ours, theirs []byte, labels Labels) (res Result, err error) {
	switch {
	case sameSide(ours, theirs):
		return Result{Data: ours}, nil
	case sameSide(base, ours):
		return Result{Data: theirs}, nil
	case sameSide(base, theirs):
		return Result{Data: ours}, nil
	case ours == nil || theirs == nil:
		var b strings.Builder
		labels.WriteConflict(&b, string(ours), string(theirs))
		return Result{Data: []byte(b.String()), Conflicts: 1}, nil
	}
	if base == nil {
		base = []byte{}
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = Result{}, fmt.Errorf("merge %s: %v", path, r)
		}
	}()
	switch kind := entry.KindOf(path); {
	case path == cites.Path:
		return Result{Data: cites.Merge(base, ours, theirs)}, nil
	case kind == entry.KindMemory:
		data, n, renamed := mergeMemories(base, ours, theirs, labels)
		return Result{Data: data, Conflicts: n, Renamed: renamed}, nil
	case kind == entry.KindJournal || kind == entry.KindKnowledge || kind == entry.KindLearning || kind == entry.KindSkill:
		if kind == entry.KindJournal && len(base) == 0 {
			return twoIterations(ours, theirs, labels), nil
		}
		data, n := mergeEntryFile(path, base, ours, theirs, labels)
		return Result{Data: data, Conflicts: n}, nil
	}
	text, n := diff3.Merge(string(base), string(ours), string(theirs), labels)
	return Result{Data: []byte(text), Conflicts: n}, nil
}

// twoIterations is the merge of two different journal entries added at
// one path on two branches: two iterations, which no field-by-field merge
// may fuse into one that never happened. A file holds one entry, so both
// are kept whole between markers, and the note says what to do.
func twoIterations(ours, theirs []byte, labels Labels) Result {
	var b strings.Builder
	labels.WriteConflict(&b, string(ours), string(theirs))
	return Result{Data: []byte(b.String()), Conflicts: 1,
		Note: "two iterations were recorded at this path on the two branches (its name predates the unique names lore now gives iterations); " +
			"both are kept whole between the markers: keep ours here and move theirs to a file of its own in the same directory, such as <NNNN>-<6 hex>.md"}
}

// sameSide reports whether two sides are the same file, or both missing.
func sameSide(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }
