package gitx

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"lore/internal/gitx/gitindex"

	"github.com/go-git/go-git/v5/plumbing"
)

// StagedFile is a file as the index holds it: what the next commit will
// contain.
type StagedFile struct {
	Path string // slash-separated, relative to the worktree
	Mode uint32 // as git records it: 0o100644, 0o100755, 0o120000 (Data is a link's target)
	Data []byte
	// Unmerged is set for a path with conflict stages (a merge not yet
	// resolved); Data is then empty.
	Unmerged bool
	// InHead is set when HEAD's tree holds this path with the same blob
	// and mode: the next commit does not change the file.
	InHead bool
}

// StagedFiles reads the index's files under prefix (a slash-separated
// directory of the worktree, "" for all) and prefix itself when the index
// holds it as a file (a symbolic link, say), in path order, and says of
// each whether HEAD holds it as staged. It honours GIT_INDEX_FILE, which
// git sets for a pre-commit hook when it commits from a temporary index
// (git commit -a, git commit <paths>).
func (r *Repo) StagedFiles(prefix string) ([]StagedFile, error) {
	inHead, err := r.headFiles(prefix)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(r.GitDir, "index")
	if p := r.getenv("GIT_INDEX_FILE"); p != "" {
		path = p
		if !filepath.IsAbs(p) {
			path = filepath.Join(r.WorkTree, p) // git runs hooks at the top of the worktree
		}
	}
	idx, err := gitindex.Read(path)
	if err != nil {
		return nil, err
	}
	self := strings.TrimSuffix(prefix, "/")
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	var out []StagedFile
	for i := range idx.Entries {
		e := &idx.Entries[i]
		if !strings.HasPrefix(e.Path, prefix) && (self == "" || e.Path != self) || e.Mode&0o170000 == 0o160000 { // gitlinks hold no blob
			continue
		}
		if n := len(out); n > 0 && out[n-1].Path == e.Path {
			continue // another stage of an unmerged path
		}
		if e.Stage() != 0 {
			out = append(out, StagedFile{Path: e.Path, Unmerged: true})
			continue
		}
		if e.ExtFlags&gitindex.ExtFlagIntentToAdd != 0 {
			continue // git add -N: nothing staged yet
		}
		data, err := r.readObject(plumbing.BlobObject, e.Hash)
		if err != nil {
			return nil, err
		}
		head, ok := inHead[e.Path]
		out = append(out, StagedFile{Path: e.Path, Mode: e.Mode, Data: data, InHead: ok && head.hash == e.Hash && sameMode(head.mode, e.Mode)})
	}
	return out, nil
}

// headFiles returns the files of HEAD's tree under prefix ("" for all),
// by path; none on an unborn branch.
func (r *Repo) headFiles(prefix string) (map[string]treeEntry, error) {
	hd, err := r.readHead()
	if err != nil || hd.Commit.IsZero() {
		return nil, err
	}
	root, err := r.commitTree(hd.Commit)
	if err != nil {
		return nil, err
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" {
		e, ok, err := r.lookupPath(root, prefix)
		if err != nil || !ok || !e.isTree() {
			return nil, err
		}
		root = e.hash
	}
	files := map[string]treeEntry{}
	var walk func(tree Hash, dir string) error
	walk = func(tree Hash, dir string) error {
		data, err := r.readObject(plumbing.TreeObject, tree)
		if err != nil {
			return err
		}
		entries, err := parseTree(data)
		if err != nil {
			return fmt.Errorf("%w (tree %s)", err, tree)
		}
		for _, e := range entries {
			p := e.name
			if dir != "" {
				p = dir + "/" + e.name
			}
			if e.isTree() {
				if err := walk(e.hash, p); err != nil {
					return err
				}
			} else {
				files[p] = e
			}
		}
		return nil
	}
	return files, walk(root, prefix)
}

// sameMode reports whether a tree entry's mode ("100644") is an index
// entry's.
func sameMode(tree string, index uint32) bool {
	return tree == strconv.FormatUint(uint64(index), 8)
}
