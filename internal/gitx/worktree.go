package gitx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
)

// maxWorktreeFile caps what a Tx reads of one worktree file: far above
// any file lore edits (a store's memories.md is read with a smaller cap
// of its own), and a device or a pasted disk image is never read whole.
const maxWorktreeFile = 64 << 20

// UnsafePathError refuses a write to Path: writing it would go through a
// symbolic link (into whatever it points to, possibly outside the
// repository), replace something that is not a regular file, or record a
// path that git itself refuses or that would make the index hold both a
// file and a directory below it. Nothing has been written when it is
// returned.
type UnsafePathError struct {
	Path   string // slash-separated, relative to the worktree top
	Reason string // "it is a symbolic link", ".agent is a symbolic link in HEAD"
}

func (e *UnsafePathError) Error() string {
	return fmt.Sprintf("refusing to write %s: %s; lore writes only regular files inside the worktree, never through a symbolic link", e.Path, e.Reason)
}

// ReadFileLimit is ReadFile with a cap of limit bytes. A file that is a
// symbolic link, that is not a regular file or that is larger than limit
// is an error (an *fsx.SkipError), and so is a directory on its way that
// is a symbolic link: a Tx never reads through a link.
//
// A file is read from disk once per Tx (a build function and the plan
// both read the file they edit): the data is shared, and callers must not
// modify it.
func (tx *Tx) ReadFileLimit(path string, limit int64) ([]byte, bool, error) {
	if f, ok := tx.worktreeFiles[path]; ok && int64(len(f.data)) <= limit {
		return f.data, f.exists, nil
	}
	if err := tx.checkDirs(path); err != nil {
		return nil, false, err
	}
	data, err := fsx.ReadRegular(filepath.Join(tx.root, filepath.FromSlash(path)), limit)
	exists := err == nil
	if errors.Is(err, fs.ErrNotExist) || nameTooLong(err) {
		err, data = nil, nil
	}
	if err != nil {
		return nil, false, txReadError(path, err)
	}
	// Full capacity: an edit that appends to what it was given copies it.
	f := worktreeFile{data: data[:len(data):len(data)], exists: exists}
	if tx.worktreeFiles == nil {
		tx.worktreeFiles = map[string]worktreeFile{}
	}
	tx.worktreeFiles[path] = f
	return f.data, f.exists, nil
}

// nameTooLong says whether err is a file system's refusal of a name
// longer than it takes: no file has that name.
func nameTooLong(err error) bool { return errors.Is(err, syscall.ENAMETOOLONG) }

// worktreeFile is a file on disk as a Tx read it.
type worktreeFile struct {
	data   []byte
	exists bool
}

// readDir is ReadDir: a directory that is a symbolic link, or below one,
// is an error.
func (tx *Tx) readDir(path string) ([]os.DirEntry, error) {
	if err := tx.checkDirs(path); err != nil {
		return nil, err
	}
	entries, err := fsx.ReadDir(filepath.Join(tx.root, filepath.FromSlash(path)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, txReadError(path, err)
	}
	return entries, nil
}

// checkDirs checks the directories on the way to path (fsx.CheckDirs),
// each once per Tx: a write that reads 10,000 files of one directory
// looks at that directory once.
func (tx *Tx) checkDirs(path string) error {
	slash := strings.LastIndexByte(path, '/')
	if slash < 0 {
		return nil
	}
	dir := path[:slash]
	if err, seen := tx.dirsChecked[dir]; seen {
		return err
	}
	err := fsx.CheckDirs(tx.root, path)
	if err != nil {
		err = txReadError(path, err)
	}
	if tx.dirsChecked == nil {
		tx.dirsChecked = map[string]error{}
	}
	tx.dirsChecked[dir] = err
	return err
}

// txReadError names the file a Tx could not read relative to the
// worktree, and what was in the way.
func txReadError(path string, err error) error {
	se, ok := fsx.Skipped(err)
	if !ok {
		return fmt.Errorf("read %s: %w", path, err)
	}
	what := "it"
	if p := relTo(se.Path, path); p != path {
		what = p
	}
	msg := fmt.Sprintf("read %s: %s is %s", path, what, se.Reason())
	if errors.Is(se, fsx.ErrSymlink) {
		msg += " (lore reads and writes only regular files, never through a symbolic link)"
	}
	return &skipReadError{msg: msg, err: se}
}

// skipReadError is a SkipError worded relative to the worktree.
type skipReadError struct {
	msg string
	err *fsx.SkipError
}

func (e *skipReadError) Error() string { return e.msg }
func (e *skipReadError) Unwrap() error { return e.err }

// relTo is the part of the absolute path abs that names a component of
// rel (a slash-separated path relative to the worktree): the store's
// messages name ".agent", not /home/…/.agent.
func relTo(abs, rel string) string {
	abs = filepath.ToSlash(abs)
	for p := rel; ; {
		if strings.HasSuffix(abs, "/"+p) {
			return p
		}
		slash := strings.LastIndexByte(p, '/')
		if slash < 0 {
			return abs
		}
		p = p[:slash]
	}
}

// checkWritable refuses an edit of path (slash-separated, relative to
// root) that would write through a symbolic link or over something that
// is not a regular file, or a path git refuses: every directory on the way
// must be a directory or missing, and the file a regular file or missing.
func checkWritable(root, path string) error {
	if err := verifyPath(path); err != nil {
		return err
	}
	dir := root
	parts := strings.Split(path, "/")
	for i, part := range parts {
		dir = filepath.Join(dir, part)
		info, err := os.Lstat(dir)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		last := i == len(parts)-1
		name := strings.Join(parts[:i+1], "/")
		switch m := info.Mode(); {
		case m&fs.ModeSymlink != 0 && last:
			return &UnsafePathError{Path: path, Reason: "it is a symbolic link"}
		case m&fs.ModeSymlink != 0:
			return &UnsafePathError{Path: path, Reason: name + " is a symbolic link"}
		case last && !m.IsRegular():
			return &UnsafePathError{Path: path, Reason: "it is " + (&fsx.SkipError{Err: fsx.ErrNotRegular, Mode: m.Type()}).Reason()}
		case !last && !m.IsDir():
			return &UnsafePathError{Path: path, Reason: name + " is not a directory"}
		}
	}
	return nil
}

// verifyPath refuses a path git would refuse to check out (its
// verify_path): empty, ".", ".." or ".git" (in any case) components. A
// commit holding .git/… makes git fsck fail (hasDotgit) and every clone
// fail to check out.
func verifyPath(path string) error {
	for _, part := range strings.Split(path, "/") {
		switch {
		case part == "", part == ".", part == "..":
			return &UnsafePathError{Path: path, Reason: fmt.Sprintf("%q is not a path git can hold", path)}
		case strings.EqualFold(part, ".git"):
			return &UnsafePathError{Path: path, Reason: "it is inside a .git directory"}
		case strings.ContainsRune(part, 0):
			return &UnsafePathError{Path: path, Reason: "it contains a NUL byte"}
		}
	}
	return nil
}

// checkTracked refuses an edit of path when git tracks what is on its
// way as something else than a directory — .agent committed as a symbolic
// link, say: adding .agent/memories.md would leave the index holding both
// .agent and .agent/memories.md, and the person's next git commit -a
// would drop every memory. The file itself must not be tracked as a
// symbolic link or a submodule either: its new content would be committed
// with that mode (a link whose target is Markdown). headTree is zero when
// HEAD is not read (staging only, or an unborn branch); idx nil when the
// index is not written.
func (r *Repo) checkTracked(path string, idx *gitindex.File, headTree Hash) error {
	kind := func(mode uint32) string {
		switch mode & 0o170000 {
		case 0o120000:
			return "a symbolic link"
		case 0o160000:
			return "a submodule"
		case 0o040000:
			return "a directory"
		}
		return "a file"
	}
	parts := strings.Split(path, "/")
	if idx != nil {
		for i := range parts {
			name := strings.Join(parts[:i+1], "/")
			e, ok := idx.Lookup(name)
			last := i == len(parts)-1
			switch {
			case !ok:
			case !last:
				return &UnsafePathError{Path: path, Reason: fmt.Sprintf("the git index tracks %s as %s", name, kind(e.Mode))}
			case e.Mode&0o170000 != 0o100000:
				return &UnsafePathError{Path: path, Reason: "the git index tracks it as " + kind(e.Mode)}
			}
		}
	}
	if headTree.IsZero() {
		return nil
	}
	tree := headTree
	for i, part := range parts {
		t, err := r.readTree(tree)
		if err != nil {
			return err
		}
		found, ok := t.find(part)
		if !ok {
			return nil
		}
		name := strings.Join(parts[:i+1], "/")
		last := i == len(parts)-1
		mode := parseOctalMode(found.mode)
		switch {
		case !last && !found.isTree():
			return &UnsafePathError{Path: path, Reason: fmt.Sprintf("HEAD holds %s as %s", name, kind(mode))}
		case last && mode&0o170000 != 0o100000:
			return &UnsafePathError{Path: path, Reason: "HEAD holds it as " + kind(mode)}
		}
		tree = found.hash
	}
	return nil
}
