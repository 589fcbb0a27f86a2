package mdstore

import (
	"bytes"
	"fmt"
	"strings"
)

// This file is the three-way merge behind `lore merge-driver`: people and
// agents on several branches write memories at once, and their branches
// must merge without conflict markers unless the same entry was changed in
// two different ways.

// MergeLabels name the sides in conflict markers. Base is accepted for the
// driver's %O but not shown: markers are git's default "merge" style, which
// shows ours and theirs only.
type MergeLabels struct{ Ours, Base, Theirs string }

// MergeResult is a merged file and the number of conflicts left in it, each
// marked like git's: "<<<<<<< ours", ours' lines, "=======", theirs' lines,
// ">>>>>>> theirs". Data is nil when the merge deletes the file.
type MergeResult struct {
	Data      []byte
	Conflicts int
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
func MergeFile(path string, base, ours, theirs []byte, labels MergeLabels) (res MergeResult, err error) {
	labels = labels.withDefaults()
	switch {
	case sameSide(ours, theirs):
		return MergeResult{Data: ours}, nil
	case sameSide(base, ours):
		return MergeResult{Data: theirs}, nil
	case sameSide(base, theirs):
		return MergeResult{Data: ours}, nil
	case ours == nil || theirs == nil:
		var b strings.Builder
		labels.writeConflict(&b, string(ours), string(theirs))
		return MergeResult{Data: []byte(b.String()), Conflicts: 1}, nil
	}
	if base == nil {
		base = []byte{}
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = MergeResult{}, fmt.Errorf("mdstore: merge %s: %v", path, r)
		}
	}()
	switch KindOf(path) {
	case KindMemory:
		data, n := mergeMemories(base, ours, theirs, labels)
		return MergeResult{Data: data, Conflicts: n}, nil
	case KindKnowledge, KindLearning, KindJournal, KindSkill:
		data, n := mergeEntryFile(path, base, ours, theirs, labels)
		return MergeResult{Data: data, Conflicts: n}, nil
	}
	text, n := mergeLines(string(base), string(ours), string(theirs), labels)
	return MergeResult{Data: []byte(text), Conflicts: n}, nil
}

// sameSide reports whether two sides are the same file, or both missing.
func sameSide(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func (l MergeLabels) withDefaults() MergeLabels {
	clean := func(s, def string) string {
		s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
		if strings.TrimSpace(s) == "" {
			return def
		}
		return s
	}
	return MergeLabels{Ours: clean(l.Ours, "ours"), Base: clean(l.Base, "base"), Theirs: clean(l.Theirs, "theirs")}
}

// writeConflict writes one conflict: ours' text and theirs' text between
// markers, each side ending with a line break.
func (l MergeLabels) writeConflict(b *strings.Builder, ours, theirs string) {
	b.WriteString("<<<<<<< " + l.Ours + "\n")
	writeLines(b, ours)
	b.WriteString("=======\n")
	writeLines(b, theirs)
	b.WriteString(">>>>>>> " + l.Theirs + "\n")
}

// writeLines writes s, ending it with a line break if it has none.
func writeLines(b *strings.Builder, s string) {
	b.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// lineWriter joins lines and blocks of text, starting each on a new line:
// a piece that follows one without a final line break gets one first. Only
// the last line of a side can lack its break, so joining a side's own
// pieces in order gives back its bytes.
type lineWriter struct{ strings.Builder }

func (w *lineWriter) add(s string) {
	if s == "" {
		return
	}
	if n := w.Len(); n > 0 && w.String()[n-1] != '\n' {
		w.WriteByte('\n')
	}
	w.WriteString(s)
}
