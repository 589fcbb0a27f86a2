package entry

import (
	"errors"
	"fmt"
)

// ErrNotFound is what every NotFoundError is (errors.Is).
var ErrNotFound = errors.New("not found")

// NotFoundError says that no entry of Kind has ID.
type NotFoundError struct {
	Kind Kind
	ID   string
	// Near is an id of that kind a few edits away, when a front end
	// looked for one: the "did you mean" of a typo.
	Near string
}

func (e *NotFoundError) Error() string { return string(e.Kind) + " not found: " + e.ID }

// Is makes a NotFoundError match ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

func NotFound(kind Kind, id string) error { return &NotFoundError{Kind: kind, ID: id} }

// Warning is a problem found while reading a file that did not stop lore
// from reading the rest of it.
type Warning struct {
	Path    string // slash-separated, relative to the store root (".agent/memories.md")
	Line    int    // 1-based; 0 when the problem concerns the whole file
	Message string
	// Minor: the entry reads as intended; lore would only have written it
	// otherwise (lore validate warns rather than fails).
	Minor bool `json:"-"`
}

func (w Warning) String() string {
	if w.Line == 0 {
		return fmt.Sprintf("%s: %s", w.Path, w.Message)
	}
	return fmt.Sprintf("%s:%d: %s", w.Path, w.Line, w.Message)
}

// InputError is bad input refused before anything was written: an unknown
// type, a malformed tag, empty content.
type InputError struct {
	Field string // "type", "tags", "content", "id"
	Msg   string
}

func (e *InputError) Error() string { return "invalid " + e.Field + ": " + e.Msg }

// FileError is a file lore cannot use at all, named with the line at fault.
type FileError struct {
	Path string
	Line int
	Msg  string
	// problems are every problem found in the file, this one first (for
	// validation, which reports them all); nil when there is only this one.
	Problems []Warning
}

// fileProblems is every problem err names in the file at path.
func FileProblems(err error, path string) []Warning {
	var fe *FileError
	if !errors.As(err, &fe) {
		return []Warning{{Path: path, Message: err.Error()}}
	}
	if len(fe.Problems) > 0 {
		return fe.Problems
	}
	return []Warning{{Path: fe.Path, Line: fe.Line, Message: fe.Msg}}
}

func (e *FileError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
}
