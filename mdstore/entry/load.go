package entry

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"lore/internal/fsx"
)

// Skipped is the warning for store path p when err says that lore does
// not read p, or a directory on its way (an fsx.SkipError, also wrapped
// as gitx wraps it): "skipped: a symbolic link", "skipped: not a regular
// file (a named pipe)", "skipped: larger than 16 MiB", naming what was
// skipped. skipped is false for any other error. The warning is nil for a
// SkillLink, which is skipped without a word.
func Skipped(p string, err error) (w *Warning, skipped bool) {
	se, ok := fsx.Skipped(err)
	if !ok {
		return nil, false
	}
	// What was skipped: p, or the directory on its way that se names.
	at := p
	abs := filepath.ToSlash(se.Path)
	for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if abs == q || strings.HasSuffix(abs, "/"+q) {
			at = q
			break
		}
	}
	if errors.Is(se, fsx.ErrSymlink) {
		return LinkSkipped(at, se.Path), true
	}
	return &Warning{Path: at, Message: "skipped: " + se.Reason()}, true
}

// LinkSkipped is the warning for the symbolic link at store path p (abs
// on disk), which lore does not follow: nil for a SkillLink.
func LinkSkipped(p, abs string) *Warning {
	if target, err := os.Readlink(abs); err == nil && SkillLink(p, target) {
		return nil
	}
	return &Warning{Path: p, Message: "skipped: a symbolic link"}
}

// warningsOf is the warning w, if any, as a list.
func WarningsOf(w *Warning) []Warning {
	if w == nil {
		return nil
	}
	return []Warning{*w}
}

// asWarning turns a file's error into a warning for the files that are
// reported and skipped (nil for a SkillLink).
func AsWarning(err error, path string) *Warning {
	if w, skipped := Skipped(path, err); skipped {
		return w
	}
	var fe *FileError
	if errors.As(err, &fe) {
		return &Warning{Path: fe.Path, Line: fe.Line, Message: fe.Msg + "; skipped"}
	}
	return &Warning{Path: path, Message: err.Error() + "; skipped"}
}

// SortLearnings puts learnings oldest first, the order every read of them
// gives (compareLearnings), then by path.
func SortLearnings(ls []Learning) {
	slices.SortStableFunc(ls, func(a, b Learning) int { return LearningOrder(&a, &b) })
}

// LearningOrder compares two learnings in SortLearnings' order: oldest
// first, then by path.
func LearningOrder(a, b *Learning) int {
	if c := CompareLearnings(a, b); c != 0 {
		return c
	}
	return strings.Compare(a.Path, b.Path)
}

// compareLearnings orders learnings oldest first.
func CompareLearnings(a, b *Learning) int { return strings.Compare(a.CreatedAt, b.CreatedAt) }
