package gitx

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// HeadBlobs looks paths (slash-separated, from the top of the worktree)
// up in HEAD's tree: each one's blob, ZeroHash for a path HEAD has no
// file at (or an unborn branch). The trees are parsed once for the call.
func (r *Repo) HeadBlobs(paths []string) (head Hash, blobs map[string]Hash, err error) {
	hd, err := r.readHead()
	if err != nil {
		return ZeroHash, nil, err
	}
	blobs, err = r.BlobsAt(hd.Commit, paths)
	if err != nil {
		return ZeroHash, nil, err
	}
	return hd.Commit, blobs, nil
}

// BlobsAt is HeadBlobs in the tree of commit (ZeroHash: no commit, no
// file).
func (r *Repo) BlobsAt(commit Hash, paths []string) (map[string]Hash, error) {
	defer r.cacheObjects()()
	blobs := make(map[string]Hash, len(paths))
	if commit.IsZero() {
		for _, p := range paths {
			blobs[p] = ZeroHash
		}
		return blobs, nil
	}
	info, err := r.commitInfo(commit)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		e, ok, err := r.lookupPath(info.tree, p)
		if err != nil {
			return nil, err
		}
		if ok && !e.isTree() {
			blobs[p] = e.hash
		} else {
			blobs[p] = ZeroHash
		}
	}
	return blobs, nil
}

// PathsNamed lists, for each file name of names, the paths of commit's
// tree whose last element it is (submodules left out), walking the tree
// once: where a file a text names without its directory may be.
func (r *Repo) PathsNamed(commit Hash, names map[string]bool) (map[string][]string, error) {
	defer r.cacheObjects()()
	out := map[string][]string{}
	if commit.IsZero() || len(names) == 0 {
		return out, nil
	}
	info, err := r.commitInfo(commit)
	if err != nil {
		return nil, err
	}
	return out, r.walkFiles(info.tree, "", func(p string, e treeEntry) {
		if names[e.name] {
			out[e.name] = append(out[e.name], p)
		}
	})
}

// walkFiles calls fn for every file of tree (not a submodule), with its
// path under prefix, in git's order.
func (r *Repo) walkFiles(tree Hash, prefix string, fn func(p string, e treeEntry)) error {
	t, err := r.readTree(tree)
	if err != nil {
		return err
	}
	for _, e := range t.entries {
		switch {
		case e.isTree():
			if err := r.walkFiles(e.hash, prefix+e.name+"/", fn); err != nil {
				return err
			}
		case !strings.HasPrefix(e.mode, "16"): // not a submodule
			fn(prefix+e.name, e)
		}
	}
	return nil
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
	return out, r.walkFiles(info.tree, "", func(p string, e treeEntry) {
		if blobs[e.hash] && out[e.hash] == "" {
			out[e.hash] = p
		}
	})
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
