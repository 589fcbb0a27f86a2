package gitx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
)

// view is the state one attempt at a change builds on, read under
// index.lock: HEAD, its tree, the index (nil when the change does not
// stage), and which of them Tx.ReadFile and Tx.ReadDir show.
type view struct {
	shows    Mode // ModeCommit: HEAD's tree; ModeStage: the index; ModeFiles: the worktree
	hd       head
	headTree Hash
	idx      *gitindex.File
	// also are the trees of the commits an operation in progress brings
	// in: ReadDir lists their names too.
	also []Hash
}

func (v *view) close() {
	if v.idx != nil {
		v.idx.Close()
		v.idx = nil
	}
}

// readView reads the state a change in mode res.Mode builds on. An index
// lore cannot write lowers the mode to ModeFiles, with a notice. During an
// operation (inOperation) the listings also hold the names of what the
// operation brings in.
func (r *Repo) readView(res *Result, inOperation bool) (*view, error) {
	v := &view{shows: res.Mode}
	if res.Mode != ModeFiles {
		idx, err := gitindex.Open(filepath.Join(r.GitDir, "index"))
		switch {
		case errors.Is(err, gitindex.ErrUnsupported):
			res.Mode, v.shows = ModeFiles, ModeFiles
			res.Notices = append(res.Notices, fmt.Sprintf("the index uses a format lore cannot write (%v): lore wrote the files without staging them", err))
		case err != nil:
			return nil, err
		default:
			v.idx = idx
		}
	}
	if res.Mode == ModeCommit {
		var err error
		if v.hd, err = r.readHead(); err != nil {
			v.close()
			return nil, err
		}
		if !v.hd.Commit.IsZero() {
			if v.headTree, err = r.commitTree(v.hd.Commit); err != nil {
				v.close()
				return nil, err
			}
		}
		if inOperation {
			for _, c := range r.incoming() {
				if tree, err := r.commitTree(c); err == nil {
					v.also = append(v.also, tree)
				}
			}
		}
	}
	return v, nil
}

// ReadFile returns path (slash-separated, relative to the top of the
// worktree) as the change builds on it, and whether it exists there: HEAD's
// version when the change is committed, the index's when it is staged, the
// file on disk when only files are written. What a build function decides
// from the store (a free id, "nothing to change", a duplicate) must come
// from here: a file left on disk by a write that failed, or a person's
// uncommitted edit, is not in the commit, and a decision made from it
// would not hold there.
func (tx *Tx) ReadFile(path string) ([]byte, bool, error) {
	if tx.view == nil || tx.view.shows == ModeFiles {
		return tx.ReadWorktreeFile(path)
	}
	var h Hash
	switch tx.view.shows {
	case ModeCommit:
		e, ok, err := tx.repo.lookupPath(tx.view.headTree, path)
		if err != nil || !ok || e.isTree() {
			return nil, false, err
		}
		if e.mode == "120000" {
			return nil, false, trackedLinkError(path, "HEAD")
		}
		h = e.hash
	case ModeStage:
		e, ok := tx.view.idx.Lookup(path)
		if !ok || e.ExtFlags&gitindex.ExtFlagIntentToAdd != 0 || e.Mode&0o170000 == 0o160000 {
			return nil, false, nil
		}
		if e.Mode&0o170000 == 0o120000 {
			return nil, false, trackedLinkError(path, "the index")
		}
		h = e.Hash
	}
	data, err := tx.readBlob(path, h)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	return data, true, nil
}

// readBlob returns blob h, path's content in HEAD or the index. When the
// file on disk holds the same content — its hash is h, as it is for every
// file the person has not changed — that file is what is read: reading
// and hashing it costs a fraction of inflating the object (a memories.md
// of 10,000 memories: 2 ms against 14).
func (tx *Tx) readBlob(path string, h Hash) ([]byte, error) {
	if _, read := tx.repo.readCache[h]; !read && tx.repo.readCache != nil {
		data, ok, err := tx.ReadWorktreeFile(path)
		if err == nil && ok && (tx.cleanAsIndexed(path, h, data) || hashObject(plumbing.BlobObject, data) == h) {
			tx.repo.readCache[h] = cachedObject{plumbing.BlobObject, data}
		}
	}
	return tx.repo.readObject(plumbing.BlobObject, h)
}

// cleanAsIndexed reports whether data, just read from the file at path,
// is blob h by git's rule, without hashing it: git's index has h for
// path, with the stat the file has now and had before it was read
// (gitindex.File.Unchanged). It spares a 3 MB memories.md its hash.
func (tx *Tx) cleanAsIndexed(path string, h Hash, data []byte) bool {
	if tx.view == nil || tx.view.idx == nil {
		return false
	}
	st, err := fsx.Lstat(filepath.Join(tx.root, filepath.FromSlash(path)))
	if err != nil || st.Size != int64(len(data)) {
		return false
	}
	indexed, ok := tx.view.idx.Unchanged(path, st)
	return ok && indexed == h
}

// Snapshot returns a Tx that reads HEAD's files without the repository's
// lock, and release, which ends it. It is for reading ahead what a change
// will read, keyed by what it read (TreeID), while other processes commit:
// nothing read from it may be decided on. The objects it reads stay
// cached until release, for the Update that follows.
func (r *Repo) Snapshot() (tx *Tx, release func(), err error) {
	v := &view{shows: ModeCommit}
	if v.hd, err = r.readHead(); err != nil {
		return nil, nil, err
	}
	if !v.hd.Commit.IsZero() {
		if v.headTree, err = r.commitTree(v.hd.Commit); err != nil {
			return nil, nil, err
		}
	}
	return &Tx{repo: r, root: r.WorkTree, view: v}, r.cacheObjects(), nil
}

// TreeID returns the git tree of directory path in the state ReadFile
// reads, when that state is HEAD's: two reads of a directory with the same
// tree read the same files. ok is false for the index's state or the
// files', for a missing directory, and during an operation.
func (tx *Tx) TreeID(path string) (tree Hash, ok bool, err error) {
	if tx.view == nil || tx.view.shows != ModeCommit || len(tx.view.also) > 0 || tx.view.headTree.IsZero() {
		return ZeroHash, false, nil
	}
	e, found, err := tx.repo.lookupPath(tx.view.headTree, path)
	if err != nil || !found || !e.isTree() {
		return ZeroHash, false, err
	}
	return e.hash, true, nil
}

// ReadDir lists the names in directory path (slash-separated, relative to
// the top of the worktree) in the same state as ReadFile; a missing
// directory is empty.
func (tx *Tx) ReadDir(path string) ([]os.DirEntry, error) {
	if tx.view == nil || tx.view.shows == ModeFiles {
		return tx.ReadWorktreeDir(path)
	}
	var out []os.DirEntry
	switch tx.view.shows {
	case ModeCommit:
		seen := map[string]bool{}
		for _, root := range append([]Hash{tx.view.headTree}, tx.view.also...) {
			entries, err := tx.repo.listTree(root, path)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if !seen[e.name] {
					seen[e.name] = true
					out = append(out, dirEntry{name: e.name, dir: e.isTree()})
				}
			}
		}
	case ModeStage:
		for _, c := range tx.view.idx.Children(strings.TrimSuffix(path, "/")) {
			out = append(out, dirEntry{name: c.Name, dir: c.Dir})
		}
	}
	return out, nil
}

// Blob is a regular file's name in its directory and its git blob.
type Blob struct {
	Name string
	Hash Hash
}

// Blobs returns the git blob of each regular file directly in directory
// path, sorted by name, in the state ReadFile reads (a missing directory
// has none); ok is false when that state is the files on disk, which have
// no blob ids. A file's blob names its content: what was read and parsed
// of a blob once need not be read again (mdstore's blob cache).
func (tx *Tx) Blobs(path string) (blobs []Blob, ok bool, err error) {
	if tx.view == nil || tx.view.shows == ModeFiles {
		return nil, false, nil
	}
	switch tx.view.shows {
	case ModeCommit:
		entries, err := tx.repo.listTree(tx.view.headTree, path)
		if err != nil {
			return nil, false, err
		}
		blobs = make([]Blob, 0, len(entries))
		for _, e := range entries {
			if e.mode == "100644" || e.mode == "100755" {
				blobs = append(blobs, Blob{e.name, e.hash})
			}
		}
	case ModeStage:
		dir := strings.TrimSuffix(path, "/")
		for _, c := range tx.view.idx.Children(dir) {
			if c.Dir {
				continue
			}
			e, ok := tx.view.idx.Lookup(dir + "/" + c.Name)
			if ok && e.ExtFlags&gitindex.ExtFlagIntentToAdd == 0 && e.Mode&0o170000 == 0o100000 {
				blobs = append(blobs, Blob{c.Name, e.Hash})
			}
		}
	}
	byName := func(a, b Blob) int { return strings.Compare(a.Name, b.Name) }
	if !slices.IsSortedFunc(blobs, byName) { // a tree's files are, already
		slices.SortFunc(blobs, byName)
	}
	return blobs, true, nil
}

// ReadWorktreeFile returns the file on disk at path and whether it
// exists: what a change must not overwrite by accident (a name that is
// taken), never what it decides from. Only a regular file is read, never
// through a symbolic link (see ReadFileLimit).
func (tx *Tx) ReadWorktreeFile(path string) ([]byte, bool, error) {
	return tx.ReadFileLimit(path, maxWorktreeFile)
}

// ReadWorktreeDir lists the worktree directory path; a missing directory
// is empty. A directory that is a symbolic link, or below one, is an
// error.
func (tx *Tx) ReadWorktreeDir(path string) ([]os.DirEntry, error) { return tx.readDir(path) }

// dirEntry is a name listed from a tree or the index.
type dirEntry struct {
	name string
	dir  bool
}

func (e dirEntry) Name() string { return e.name }
func (e dirEntry) IsDir() bool  { return e.dir }
func (e dirEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e dirEntry) Info() (fs.FileInfo, error) {
	return nil, fmt.Errorf("%s: listed from git, not from the file system", e.name)
}

// listTree lists directory path of tree root; a missing one is empty.
func (r *Repo) listTree(root Hash, path string) ([]treeEntry, error) {
	tree := root
	if path != "" && !tree.IsZero() {
		e, ok, err := r.lookupPath(tree, path)
		if err != nil || !ok || !e.isTree() {
			return nil, err
		}
		tree = e.hash
	}
	if tree.IsZero() {
		return nil, nil
	}
	t, err := r.readTree(tree)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return t.entries, nil // shared: read, never changed
}

// trackedLinkError is the error of a read of a file that git records as a
// symbolic link: its blob is the link's target, not the file's text.
func trackedLinkError(path, where string) error {
	return fmt.Errorf("read %s: %s holds it as a symbolic link (lore reads and writes only regular files, never through a symbolic link)", path, where)
}
