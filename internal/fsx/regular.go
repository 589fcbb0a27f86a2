package fsx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Why a file or directory is not read: ReadRegular, ReadDir and CheckDirs
// return a *SkipError that wraps one of these.
var (
	ErrSymlink    = errors.New("a symbolic link")
	ErrNotRegular = errors.New("not a regular file")
	ErrNotDir     = errors.New("not a directory")
	ErrTooLarge   = errors.New("too large")
)

// SkipError says why the file or directory at Path is not read: it is a
// symbolic link, not a regular file (a FIFO, a device, a socket, a
// directory), not a directory, or larger than Limit bytes. Reason is the
// words to tell a person ("a symbolic link", "larger than 16 MiB").
type SkipError struct {
	Path  string
	Err   error       // ErrSymlink, ErrNotRegular, ErrNotDir or ErrTooLarge
	Mode  fs.FileMode // the type found, for ErrNotRegular and ErrNotDir
	Limit int64       // for ErrTooLarge
}

func (e *SkipError) Error() string { return e.Path + ": " + e.Reason() }

func (e *SkipError) Unwrap() error { return e.Err }

// Reason is why the file is skipped, in words.
func (e *SkipError) Reason() string {
	switch {
	case e.Err == ErrTooLarge:
		return "larger than " + FormatSize(e.Limit)
	case e.Err == ErrNotRegular && typeName(e.Mode) != "":
		return "not a regular file (" + typeName(e.Mode) + ")"
	case e.Err == ErrNotDir && typeName(e.Mode) != "":
		return "not a directory (" + typeName(e.Mode) + ")"
	}
	return e.Err.Error()
}

// typeName names a file type a person may not expect.
func typeName(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m.IsRegular():
		return "a file"
	}
	return ""
}

// FormatSize is n bytes in the largest binary unit that divides it
// ("16 MiB", "64 KiB", "1000 bytes").
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Skipped reports whether err says that a file is not one lore reads (a
// *SkipError), and returns it.
func Skipped(err error) (*SkipError, bool) {
	var se *SkipError
	ok := errors.As(err, &se)
	return se, ok
}

// CheckRegular is the *SkipError for the file at path whose type (from a
// directory listing or an lstat) is mode, where a regular file was
// wanted; nil for a regular file. A listing that already says what each
// entry is needs no open to refuse a link, a FIFO or a device.
func CheckRegular(path string, mode fs.FileMode) error { return skipFor(path, mode, false) }

// skipFor is the SkipError for a path whose type (from lstat) is mode,
// where a regular file (dir: a directory) was wanted; nil when it is one.
func skipFor(path string, mode fs.FileMode, dir bool) error {
	switch {
	case mode&fs.ModeSymlink != 0:
		return &SkipError{Path: path, Err: ErrSymlink}
	case dir && !mode.IsDir():
		return &SkipError{Path: path, Err: ErrNotDir, Mode: mode.Type()}
	case !dir && !mode.IsRegular():
		return &SkipError{Path: path, Err: ErrNotRegular, Mode: mode.Type()}
	}
	return nil
}

// CheckDirs checks the directories on the way from base to base/rel (rel
// slash-separated; base itself and rel's last element are not looked at):
// each must be a directory, not a symbolic link, or be missing (nothing
// below it exists then). It returns a *SkipError naming the first that is
// not. A reader that opens base/rel with ReadRegular or ReadDir, which do
// not follow a link in the last element, and checks the directories
// before, reads nothing through a link (but for one made between the two,
// which takes a process that can write the worktree anyway).
func CheckDirs(base, rel string) error {
	dir := base
	parts := strings.Split(rel, "/")
	for _, part := range parts[:len(parts)-1] {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := skipFor(dir, info.Mode(), true); err != nil {
			return err
		}
	}
	return nil
}
