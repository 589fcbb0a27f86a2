package gitx

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// HeadBlobs looks paths (slash-separated, from the top of the worktree)
// up in HEAD's tree: each one's blob, ZeroHash for a path HEAD has no
// file at (or an unborn branch). The trees are parsed once for the call.
func (r *Repo) HeadBlobs(paths []string) (head Hash, blobs map[string]Hash, err error) {
	defer r.cacheObjects()()
	blobs = make(map[string]Hash, len(paths))
	hd, err := r.readHead()
	if err != nil || hd.Commit.IsZero() {
		for _, p := range paths {
			blobs[p] = ZeroHash
		}
		return ZeroHash, blobs, err
	}
	info, err := r.commitInfo(hd.Commit)
	if err != nil {
		return ZeroHash, nil, err
	}
	for _, p := range paths {
		e, ok, err := r.lookupPath(info.tree, p)
		if err != nil {
			return ZeroHash, nil, err
		}
		if ok && !e.isTree() {
			blobs[p] = e.hash
		} else {
			blobs[p] = ZeroHash
		}
	}
	return hd.Commit, blobs, nil
}

// HeadPathsOf finds, in HEAD's tree, a path holding each of blobs (the
// first in git's order), walking the whole tree once: where a file that
// is gone from its path went, when it moved unchanged.
func (r *Repo) HeadPathsOf(blobs map[Hash]bool) (map[Hash]string, error) {
	defer r.cacheObjects()()
	out := map[Hash]string{}
	hd, err := r.readHead()
	if err != nil || hd.Commit.IsZero() || len(blobs) == 0 {
		return out, err
	}
	info, err := r.commitInfo(hd.Commit)
	if err != nil {
		return nil, err
	}
	var walk func(tree Hash, prefix string) error
	walk = func(tree Hash, prefix string) error {
		t, err := r.readTree(tree)
		if err != nil {
			return err
		}
		for _, e := range t.entries {
			switch {
			case e.isTree():
				if err := walk(e.hash, prefix+e.name+"/"); err != nil {
					return err
				}
			case blobs[e.hash] && out[e.hash] == "" && !strings.HasPrefix(e.mode, "16"): // not a submodule
				out[e.hash] = prefix + e.name
			}
		}
		return nil
	}
	return out, walk(info.tree, "")
}

// ParseHash reads a hash written as 40 hex digits (ZeroHash for anything
// else).
func ParseHash(s string) Hash {
	if len(s) != 40 {
		return ZeroHash
	}
	return plumbing.NewHash(s)
}

// KeepObjects keeps the objects read and the trees parsed until release
// is called (or an outer keep's release): for many lookups in the same
// commits, such as the histories of many files.
func (r *Repo) KeepObjects() (release func()) { return r.cacheObjects() }
