package gitx

import (
	"container/heap"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/gitx/gitindex"
)

// MergeHead is the commit a merge in progress brings in (MERGE_HEAD's
// first), and whether a merge is in progress.
func (r *Repo) MergeHead() (Hash, bool) {
	data, err := os.ReadFile(filepath.Join(r.GitDir, "MERGE_HEAD"))
	if err != nil {
		return ZeroHash, false
	}
	for _, f := range strings.Fields(string(data)) {
		if plumbing.IsHash(f) {
			return plumbing.NewHash(f), true
		}
	}
	return ZeroHash, false
}

// HeadCommit is the commit HEAD resolves to, ZeroHash on an unborn
// branch.
func (r *Repo) HeadCommit() (Hash, error) {
	hd, err := r.readHead()
	return hd.Commit, err
}

// Staged is a path as git's index holds it: its blob (ZeroHash when the
// index has no such file) and whether it is in conflict.
type Staged struct {
	Blob       Hash
	Conflicted bool
}

// StagedOf looks paths (relative to the top of the worktree) up in git's
// index (GIT_INDEX_FILE's when set).
func (r *Repo) StagedOf(paths []string) (map[string]Staged, error) {
	out := make(map[string]Staged, len(paths))
	idx, err := gitindex.Open(r.indexFile())
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	for _, p := range paths {
		st := Staged{Conflicted: idx.Conflicted(p)}
		if e, ok := idx.Lookup(p); ok && e.ExtFlags&gitindex.ExtFlagIntentToAdd == 0 {
			st.Blob = e.Hash
		}
		out[p] = st
	}
	return out, nil
}

// MergeBase is the newest common ancestor of commits a and b (git
// merge-base's answer; in a criss-cross history, one of the bases),
// ZeroHash when they have none. It walks both ancestries newest first by
// committer date, as far down as the commits both reach (git's
// paint-down), then keeps a base no other one descends from.
func (r *Repo) MergeBase(a, b Hash) (Hash, error) {
	const fromA, fromB, stale = 1, 2, 4
	flags := map[Hash]uint8{}
	when := map[Hash]time.Time{}
	var queue byDate
	push := func(c Hash, f uint8) error {
		old := flags[c]
		if old|f == old {
			return nil
		}
		flags[c] = old | f
		info, err := r.commitInfo(c)
		if errors.Is(err, ErrObjectNotFound) {
			return nil // a shallow clone's boundary
		}
		if err != nil {
			return err
		}
		when[c] = info.committed
		heap.Push(&queue, dated{hash: c, when: info.committed, parents: info.parents})
		return nil
	}
	if err := push(a, fromA); err != nil {
		return ZeroHash, err
	}
	if err := push(b, fromB); err != nil {
		return ZeroHash, err
	}
	var bases []Hash
	for walked := 0; walked < maxReachWalk; walked++ {
		live := false
		for _, c := range queue {
			if flags[c.hash]&stale == 0 {
				live = true
				break
			}
		}
		if !live {
			break
		}
		c := heap.Pop(&queue).(dated)
		f := flags[c.hash]
		if f&(fromA|fromB) == fromA|fromB && f&stale == 0 {
			bases = append(bases, c.hash)
			f |= stale
			flags[c.hash] = f
		}
		for _, p := range c.parents {
			if err := push(p, f); err != nil {
				return ZeroHash, err
			}
		}
	}
	// With dates that tie, a base may come out before one that descends
	// from it: keep the one no other base reaches.
	for _, x := range bases {
		redundant := false
		for _, y := range bases {
			if x == y {
				continue
			}
			reached := newReach(r)
			if err := reached.push(y); err != nil {
				return ZeroHash, err
			}
			in, err := reached.has(x, when[x])
			if err != nil {
				return ZeroHash, err
			}
			if in {
				redundant = true
				break
			}
		}
		if !redundant {
			return x, nil
		}
	}
	return ZeroHash, nil
}
