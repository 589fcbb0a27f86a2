package gitx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
)

// Conflict is a path git's index holds in conflict — a merge, a rebase,
// a cherry-pick or a stash pop that could not merge it — as its three
// stages: the blob at each, ZeroHash for a stage git does not hold (no
// base for a file both sides added, no ours or theirs for a file one side
// deleted).
type Conflict struct {
	Path               string
	Base, Ours, Theirs Hash
	// Mode is the file's mode in ours, else in theirs: the mode the
	// resolved file is staged with.
	Mode uint32
}

// Regular reports whether the sides are files (a link or a submodule
// has no text to merge).
func (c Conflict) Regular() bool { return c.Mode&0o170000 == 0o100000 }

// Conflicts lists the paths under prefix (a slash-separated directory of
// the worktree, "" for all) that git's index holds in conflict, in path
// order.
func (r *Repo) Conflicts(prefix string) ([]Conflict, error) {
	idx, err := gitindex.Open(filepath.Join(r.GitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	if prefix != "" {
		prefix += "/"
	}
	var out []Conflict
	for _, e := range idx.Unmerged(prefix) {
		if len(out) == 0 || out[len(out)-1].Path != e.Path {
			out = append(out, Conflict{Path: e.Path})
		}
		c := &out[len(out)-1]
		switch e.Stage() {
		case 1:
			c.Base = e.Hash
		case 2:
			c.Ours, c.Mode = e.Hash, e.Mode
		case 3:
			c.Theirs = e.Hash
			if c.Mode == 0 {
				c.Mode = e.Mode
			}
		}
	}
	return out, idx.CheckSum()
}

// Resolution settles a conflicted path: Data (nil: the file goes) is
// written to the worktree and, with Stage, staged in place of the
// conflict's stages, as git add does once a person has settled it.
// Without Stage only the worktree's file is written and the conflict
// stays.
type Resolution struct {
	Conflict
	Data  []byte
	Stage bool
}

// Resolve carries out resolutions under index.lock, each where the index
// still holds the stages its Conflict read: a path whose stages changed
// since (resolved meanwhile, or another merge), or that is not a regular
// file, is left as it is. It returns the paths written. Like RestageFiles,
// it writes no resolve-undo record: git checkout --merge cannot bring a
// conflict it resolved back.
func (r *Repo) Resolve(resolutions []Resolution, timeout time.Duration) ([]string, error) {
	var written []string
	err := r.editIndex(timeout, func(idx *gitindex.File) (bool, error) {
		if err := idx.CheckSum(); err != nil {
			return false, err
		}
		staged := false
		for _, res := range resolutions {
			if !res.Regular() || !sameConflict(idx, res.Conflict) || checkWritable(r.WorkTree, res.Path) != nil {
				continue
			}
			full := filepath.Join(r.WorkTree, filepath.FromSlash(res.Path))
			if res.Data == nil {
				if !res.Stage {
					continue
				}
				if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return false, err
				}
				idx.Remove(res.Path)
				written, staged = append(written, res.Path), true
				continue
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return false, err
			}
			if err := fsx.WriteFile(full, res.Data, fsx.SyncAll); err != nil {
				return false, err
			}
			if err := os.Chmod(full, os.FileMode(res.Mode&0o777)); err != nil {
				return false, err
			}
			written = append(written, res.Path)
			if !res.Stage {
				continue
			}
			h, err := r.writeObject(plumbing.BlobObject, res.Data)
			if err != nil {
				return false, err
			}
			st, err := fsx.Lstat(full)
			if err != nil {
				return false, fmt.Errorf("stat %s: %w", res.Path, err)
			}
			e := gitindex.Entry{Mode: res.Mode, Hash: h, Path: res.Path}
			e.SetStat(st)
			idx.Set(e)
			staged = true
		}
		return staged, nil // unstaged: the index is left as it was
	})
	if err != nil {
		return nil, err
	}
	return written, nil
}

// sameConflict reports whether the index holds c's path in conflict with
// c's stages.
func sameConflict(idx *gitindex.File, c Conflict) bool {
	var now Conflict
	n := 0
	for _, e := range idx.Unmerged(c.Path) {
		if e.Path != c.Path {
			continue
		}
		n++
		switch e.Stage() {
		case 1:
			now.Base = e.Hash
		case 2:
			now.Ours = e.Hash
		case 3:
			now.Theirs = e.Hash
		}
	}
	return n > 0 && now.Base == c.Base && now.Ours == c.Ours && now.Theirs == c.Theirs
}
