package catalog

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/internal/fsx"
	"lore/mdstore/entry"
)

// Worktree is the store's files on disk as lore reads them: regular
// files only, through no symbolic link, each at most its entry.ReadLimit;
// what it does not read is an fsx.SkipError (see entry.Skipped). It is
// the Reader of the Store's reads and of the caches over them.
type Worktree struct {
	root string
	// hideStore says that .agent is not read (a link, a file): everything
	// under it reads as missing.
	hideStore bool
}

// NewWorktree is the worktree of the store at root (absolute); hideStore
// makes everything under .agent read as missing.
func NewWorktree(root string, hideStore bool) *Worktree {
	return &Worktree{root: root, hideStore: hideStore}
}

// Root is the directory that holds .agent.
func (w *Worktree) Root() string { return w.root }

// Abs is store path p on disk.
func (w *Worktree) Abs(p string) string { return filepath.Join(w.root, filepath.FromSlash(p)) }

// hidden says whether p is under a .agent that is not read (unusable):
// it reads as missing, and the one warning was config.yaml's.
func (w *Worktree) hidden(p string) bool {
	return w.hideStore && (p == entry.Dir || strings.HasPrefix(p, entry.Dir+"/"))
}

// ParallelReads says that the worktree's files may be read on every core.
func (wt *Worktree) ParallelReads() bool { return true }

// Read reads store file p, a regular file of at most ReadLimit(p) bytes;
// a link as p's last element is not followed. The directories on its way
// are the caller's to check: listed with ReadDir first, or checked by
// readEntry.
func (wt *Worktree) Read(p string) ([]byte, bool, error) {
	if wt.hidden(p) {
		return nil, false, nil
	}
	data, err := fsx.ReadRegular(wt.Abs(p), entry.ReadLimit(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if _, skipped := fsx.Skipped(err); err != nil && !skipped {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	return data, err == nil, err
}

// readEntry reads the one store file p that a command names (show, a
// knowledge entry by slug): its directories are checked for links first,
// and a file lore does not read is an error that says why.
func (wt *Worktree) ReadEntry(p string) ([]byte, bool, error) {
	err := fsx.CheckDirs(wt.root, p)
	var data []byte
	var ok bool
	if err == nil {
		data, ok, err = wt.Read(p)
	}
	if w, skipped := entry.Skipped(p, err); skipped {
		if w == nil {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("%s: not read: %s", w.Path, strings.TrimPrefix(w.Message, "skipped: "))
	}
	return data, ok, err
}

// ReadDir lists store directory p, never through a link: a directory on
// its way or p itself that is a link is an fsx.SkipError.
func (wt *Worktree) ReadDir(p string) ([]os.DirEntry, error) {
	if wt.hidden(p) {
		return nil, nil
	}
	err := fsx.CheckDirs(wt.root, p)
	var entries []os.DirEntry
	if err == nil {
		entries, err = fsx.ReadDir(wt.Abs(p))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if _, skipped := fsx.Skipped(err); err != nil && !skipped {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return entries, err
}

// listMarkdownFiles is markdownFiles(s, dir) for the files on disk,
// with each file's inode (0 where the system gives none), in path order:
// a file of a directory that changed is known unchanged when its inode is
// (nothing was renamed over it), without a stat of each file.
func (wt *Worktree) listMarkdownFiles(dir string) (paths []string, inos []uint64, w *entry.Warning, err error) {
	if wt.hidden(dir) {
		return nil, nil, nil, nil
	}
	type file struct {
		name string
		ino  uint64
	}
	var files []file
	err = fsx.CheckDirs(wt.root, dir)
	if err == nil {
		err = fsx.ListDir(wt.Abs(dir), func(e fsx.Dirent) error {
			if !e.Dir && bytes.HasSuffix(e.Name, []byte(".md")) && !bytes.HasPrefix(e.Name, []byte(".")) {
				files = append(files, file{string(e.Name), e.Ino})
			}
			return nil
		})
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if w, skipped := entry.Skipped(dir, err); skipped {
		return nil, nil, w, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read %s: %w", dir, err)
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
	paths, inos = make([]string, len(files)), make([]uint64, len(files))
	for i, f := range files {
		paths[i], inos[i] = dir+"/"+f.name, f.ino
	}
	return paths, inos, nil, nil
}
