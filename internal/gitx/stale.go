package gitx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
)

// StagedChange is a file under a prefix whose staged version is not
// HEAD's: Index and Head are the blobs the index and HEAD hold at Path
// (ZeroHash where one has no such file).
type StagedChange struct {
	Path        string
	Index, Head Hash
}

// IndexFile is the index git reads (GIT_INDEX_FILE's when set): its
// stamp tells whether anything was staged since.
func (r *Repo) IndexFile() string { return r.indexFile() }

// indexFile is the index git reads: GIT_INDEX_FILE when set (a
// pre-commit hook of git commit -a or git commit <paths> sees the
// temporary index), else the worktree's.
func (r *Repo) indexFile() string {
	if p := r.getenv("GIT_INDEX_FILE"); p != "" {
		if !filepath.IsAbs(p) {
			return filepath.Join(r.WorkTree, p) // git runs hooks at the top of the worktree
		}
		return p
	}
	return filepath.Join(r.GitDir, "index")
}

// StagedChanges lists, in path order, the files under prefix (a
// slash-separated directory of the worktree) whose staged version differs
// from HEAD's: changed, added or removed. Paths in conflict and gitlinks
// are left out.
func (r *Repo) StagedChanges(prefix string) ([]StagedChange, error) {
	head, err := r.headFiles(prefix)
	if err != nil {
		return nil, err
	}
	idx, err := gitindex.Read(r.indexFile())
	if err != nil {
		return nil, err
	}
	prefix = strings.TrimSuffix(prefix, "/") + "/"
	var out []StagedChange
	staged := map[string]bool{}
	for i := range idx.Entries {
		e := &idx.Entries[i]
		if !strings.HasPrefix(e.Path, prefix) || e.Mode&0o170000 == 0o160000 {
			continue
		}
		staged[e.Path] = true
		if e.Stage() != 0 || e.ExtFlags&gitindex.ExtFlagIntentToAdd != 0 {
			continue
		}
		if h, ok := head[e.Path]; !ok || h.hash != e.Hash {
			out = append(out, StagedChange{Path: e.Path, Index: e.Hash, Head: h.hash})
		}
	}
	for p, h := range head {
		if !staged[p] && !h.isTree() {
			out = append(out, StagedChange{Path: p, Head: h.hash})
		}
	}
	sortChanges(out)
	return out, nil
}

func sortChanges(cs []StagedChange) {
	slices.SortFunc(cs, func(a, b StagedChange) int { return strings.Compare(a.Path, b.Path) })
}

// WorktreeBlob is the blob id of the worktree's file at path (relative to
// the top of the worktree), ZeroHash when there is none; a file that is
// not a regular one (a link, a directory) is another state, told by ok
// false.
func (r *Repo) WorktreeBlob(path string, limit int64) (h Hash, ok bool, err error) {
	data, err := fsx.ReadRegular(filepath.Join(r.WorkTree, filepath.FromSlash(path)), limit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return ZeroHash, true, nil
	case err != nil:
		if _, skipped := fsx.Skipped(err); skipped {
			return ZeroHash, false, nil
		}
		return ZeroHash, false, err
	}
	return hashObject(plumbing.BlobObject, data), true, nil
}

// RestageHead puts HEAD's version of each of paths back in git's index,
// where the worktree holds that version too (what git restore --staged
// does for them), under index.lock; a path whose worktree file is not
// HEAD's is left as it is. It returns the paths restaged.
func (r *Repo) RestageHead(paths []string, timeout time.Duration) ([]string, error) {
	hd, err := r.readHead()
	if err != nil || hd.Commit.IsZero() {
		return nil, err
	}
	root, err := r.commitTree(hd.Commit)
	if err != nil {
		return nil, err
	}
	var restaged []string
	err = r.editIndex(timeout, func(idx *gitindex.File) (bool, error) {
		for _, p := range paths {
			h, inHead, err := r.lookupPath(root, p)
			if err != nil {
				return false, err
			}
			inHead = inHead && !h.isTree()
			wt, ok, err := r.WorktreeBlob(p, 1<<62)
			if err != nil {
				return false, err
			}
			if !ok || idx.Conflicted(p) || (inHead && wt != h.hash) || (!inHead && !wt.IsZero()) {
				continue // the worktree is not HEAD's: a person's change
			}
			if !inHead {
				if _, staged := idx.Lookup(p); staged {
					idx.Remove(p)
					restaged = append(restaged, p)
				}
				continue
			}
			entry := gitindex.Entry{Mode: parseOctalMode(h.mode), Hash: h.hash, Path: p}
			if old, ok := idx.Lookup(p); ok {
				if old.Hash == h.hash {
					continue
				}
				entry.Flags = old.Flags & gitindex.FlagAssumeValid
				entry.ExtFlags = old.ExtFlags &^ gitindex.ExtFlagIntentToAdd
			}
			st, err := fsx.Lstat(filepath.Join(r.WorkTree, filepath.FromSlash(p)))
			if err != nil {
				return false, fmt.Errorf("stat %s: %w", p, err)
			}
			entry.SetStat(st)
			idx.Set(entry)
			restaged = append(restaged, p)
		}
		return len(restaged) > 0, nil
	})
	if err != nil || len(restaged) == 0 {
		return nil, err
	}
	return restaged, nil
}

// StagedChangesOf is StagedChanges for the files at paths alone (relative
// to the top of the worktree): a lookup of each in the index and in
// HEAD's tree, not a walk of either.
func (r *Repo) StagedChangesOf(paths []string) ([]StagedChange, error) {
	hd, err := r.readHead()
	if err != nil || hd.Commit.IsZero() {
		return nil, err
	}
	root, err := r.commitTree(hd.Commit)
	if err != nil {
		return nil, err
	}
	idx, err := gitindex.Open(r.indexFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	var out []StagedChange
	for _, p := range paths {
		h, inHead, err := r.lookupPath(root, p)
		if err != nil {
			return nil, err
		}
		headBlob := ZeroHash
		if inHead && !h.isTree() {
			headBlob = h.hash
		}
		if idx.Conflicted(p) {
			continue
		}
		indexBlob := ZeroHash
		if e, ok := idx.Lookup(p); ok && e.ExtFlags&gitindex.ExtFlagIntentToAdd == 0 {
			indexBlob = e.Hash
		}
		if indexBlob != headBlob {
			out = append(out, StagedChange{Path: p, Index: indexBlob, Head: headBlob})
		}
	}
	return out, nil
}

// Restage is a file for RestageFiles to write and stage: Data at Path,
// where git's index holds Index and the worktree Worktree (ZeroHash: no
// file) when the caller read them.
type Restage struct {
	Path            string
	Data            []byte
	Index, Worktree Hash
}

// RestageFiles writes each file's Data to the worktree and stages it,
// under index.lock, where the index and the worktree hold what the caller
// read (or the worktree holds Data already: a repair cut short); a file
// that changed since, is in conflict, or is not a regular file is left as
// it is. It returns the paths written.
func (r *Repo) RestageFiles(files []Restage, timeout time.Duration) ([]string, error) {
	var written []string
	err := r.editIndex(timeout, func(idx *gitindex.File) (bool, error) {
		for _, f := range files {
			staged := ZeroHash
			old, inIndex := idx.Lookup(f.Path)
			if inIndex {
				staged = old.Hash
			}
			if idx.Conflicted(f.Path) || staged != f.Index {
				continue
			}
			want := hashObject(plumbing.BlobObject, f.Data)
			wt, ok, err := r.WorktreeBlob(f.Path, 1<<62)
			if err != nil {
				return false, err
			}
			if !ok || (wt != f.Worktree && wt != want) {
				continue
			}
			if err := checkWritable(r.WorkTree, f.Path); err != nil {
				continue
			}
			h, err := r.writeObject(plumbing.BlobObject, f.Data)
			if err != nil {
				return false, err
			}
			full := filepath.Join(r.WorkTree, filepath.FromSlash(f.Path))
			if wt != want {
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					return false, err
				}
				if err := fsx.WriteFile(full, f.Data, fsx.SyncAll); err != nil {
					return false, err
				}
			}
			st, err := fsx.Lstat(full)
			if err != nil {
				return false, fmt.Errorf("stat %s: %w", f.Path, err)
			}
			entry := gitindex.Entry{Mode: 0o100644, Hash: h, Path: f.Path}
			if inIndex {
				entry.Mode, entry.Flags, entry.ExtFlags = old.Mode, old.Flags&gitindex.FlagAssumeValid, old.ExtFlags&^gitindex.ExtFlagIntentToAdd
			}
			entry.SetStat(st)
			idx.Set(entry)
			written = append(written, f.Path)
		}
		return len(written) > 0, nil
	})
	if err != nil || len(written) == 0 {
		return nil, err
	}
	return written, nil
}

// OrigHead is the commit ORIG_HEAD names (where a merge, a rebase or a
// reset began), and whether there is one.
func (r *Repo) OrigHead() (Hash, bool) {
	data, err := os.ReadFile(filepath.Join(r.GitDir, "ORIG_HEAD"))
	line := strings.TrimSpace(string(data))
	if err != nil || !plumbing.IsHash(line) {
		return ZeroHash, false
	}
	return plumbing.NewHash(line), true
}

// LoreCommitsSince is whether from is HEAD or an ancestor HEAD reaches
// along first parents through commits of lore's only ("lore: …"), at most
// 100 of them — and how many there are.
func (r *Repo) LoreCommitsSince(from Hash) (int, bool, error) {
	hd, err := r.readHead()
	if err != nil {
		return 0, false, err
	}
	c := hd.Commit
	for n := 0; n <= 100; n++ {
		if c == from {
			return n, true, nil
		}
		info, err := r.commitInfo(c)
		if err != nil || !strings.HasPrefix(info.message, "lore: ") || len(info.parents) == 0 {
			return 0, false, err
		}
		c = info.parents[0]
	}
	return 0, false, nil
}

// CommitsMainIndex says whether git's index for a commit is the
// worktree's own (no GIT_INDEX_FILE, or one naming it) rather than the
// temporary one git commit -a and git commit <paths> hold locked.
func (r *Repo) CommitsMainIndex() bool {
	main := filepath.Join(r.GitDir, "index")
	if r.indexFile() == main {
		return true
	}
	a, errA := os.Stat(r.indexFile())
	b, errB := os.Stat(main)
	return errA == nil && errB == nil && os.SameFile(a, b)
}
