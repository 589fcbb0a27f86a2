package gitx

import (
	"container/heap"
	"errors"
	"slices"
	"strings"
	"time"
)

// A branch that a git reset, a rebase or a commit --amend rewound no
// longer reaches commits it held — lore's among them, with what they
// wrote to the store. Its reflog still names every value it had:
// DroppedSince finds lore's commits a rewind took off it since a mark,
// OffBranchHistory the versions of a file that only the reflog holds.

// maxReflogHistoryScan is how much of the end of a reflog
// OffBranchHistory reads.
const maxReflogHistoryScan = 1 << 20

// maxDroppedChain is how many commits below one value of a branch are
// walked for ones it no longer reaches.
const maxDroppedChain = 1000

// BranchMark is where the branch HEAD is on stood: its ref name ("" when
// HEAD is detached), its tip, and where its reflog ended.
type BranchMark struct {
	Branch    string
	Tip       Hash
	ReflogEnd int64
}

// Mark is where HEAD's branch stands now.
func (r *Repo) Mark() (BranchMark, error) {
	hd, err := r.readHead()
	if err != nil {
		return BranchMark{}, err
	}
	end, err := r.reflogEnd(reflogName(hd.Branch))
	if err != nil {
		return BranchMark{}, err
	}
	return BranchMark{Branch: hd.Branch, Tip: hd.Commit, ReflogEnd: end}, nil
}

// reflogName is the reflog that records branch's moves: HEAD's when it
// is detached ("").
func reflogName(branch string) string {
	if branch == "" {
		return "HEAD"
	}
	return branch
}

// DroppedSince returns, oldest first, lore's commits ("lore: …") that
// m's branch held — at m, or at a value its reflog recorded since — and
// no longer reaches: what a reset, a rebase or an amend took off it. A
// branch that is gone has dropped nothing lore can tell.
func (r *Repo) DroppedSince(m BranchMark) ([]LostCommit, error) {
	name := reflogName(m.Branch)
	var tip Hash
	if m.Branch == "" {
		hd, err := r.readHead()
		if err != nil {
			return nil, err
		}
		tip = hd.Commit
	} else {
		h, sym, err := r.readRef(m.Branch)
		if err != nil || sym != "" {
			return nil, err
		}
		tip = h
	}
	if tip.IsZero() {
		return nil, nil
	}
	entries, _, err := r.readReflog(name, m.ReflogEnd, maxReflogScan)
	if err != nil {
		return nil, err
	}
	values := []Hash{m.Tip}
	for _, e := range entries {
		values = append(values, e.Old, e.New)
	}
	off, err := r.offBranch(tip, values)
	if err != nil {
		return nil, err
	}
	var lost []LostCommit
	for _, c := range off {
		if strings.HasPrefix(c.info.message, "lore: ") {
			lost = append(lost, LostCommit{Commit: c.hash, Parent: c.parent(), Message: c.info.message})
		}
	}
	return lost, nil
}

// OffBranchHistory is History for the commits that only the reflog of
// HEAD's branch holds (its last MiB): fn is called with each that changed
// path from its first parent, newest first, until it returns false.
func (r *Repo) OffBranchHistory(path string, fn func(Version) bool) error {
	hd, err := r.readHead()
	if err != nil || hd.Commit.IsZero() {
		return err
	}
	entries, _, err := r.readReflog(reflogName(hd.Branch), 0, maxReflogHistoryScan)
	if err != nil {
		return err
	}
	var values []Hash
	for _, e := range entries {
		values = append(values, e.Old, e.New)
	}
	off, err := r.offBranch(hd.Commit, values)
	if err != nil {
		return err
	}
	blobAt := func(tree Hash) (Hash, error) {
		e, ok, err := r.lookupPath(tree, path)
		if err != nil || !ok || e.isTree() {
			return ZeroHash, err
		}
		return e.hash, nil
	}
	for _, c := range slices.Backward(off) {
		blob, err := blobAt(c.info.tree)
		if err != nil {
			return err
		}
		before := ZeroHash
		if p := c.parent(); !p.IsZero() {
			pi, err := r.commitInfo(p)
			if err != nil && !errors.Is(err, ErrObjectNotFound) {
				return err
			}
			if err == nil {
				if before, err = blobAt(pi.tree); err != nil {
					return err
				}
			}
		}
		if blob != before && !fn(Version{Commit: c.hash, Blob: blob, Before: before, Author: c.info.author, When: c.info.when, Subject: c.info.subject}) {
			return nil
		}
	}
	return nil
}

// offCommit is a commit a branch no longer reaches.
type offCommit struct {
	hash Hash
	info commitInfo
}

func (c offCommit) parent() Hash {
	if len(c.info.parents) == 0 {
		return ZeroHash
	}
	return c.info.parents[0]
}

// offBranch returns the commits that values (a branch's values, oldest
// first) and their first parents hold and tip does not reach, in an order
// where each comes after its first parent. A commit that is gone (git gc
// pruned it) ends its line.
func (r *Repo) offBranch(tip Hash, values []Hash) ([]offCommit, error) {
	reached := newReach(r)
	if err := reached.push(tip); err != nil {
		return nil, err
	}
	seen := map[Hash]bool{}
	var out []offCommit
	for _, c := range values {
		var line []offCommit
		for n := 0; !c.IsZero() && !seen[c] && n < maxDroppedChain; n++ {
			seen[c] = true
			info, err := r.commitInfo(c)
			if errors.Is(err, ErrObjectNotFound) {
				break
			}
			if err != nil {
				return nil, err
			}
			in, err := reached.has(c, info.committed)
			if err != nil {
				return nil, err
			}
			if in {
				break
			}
			oc := offCommit{hash: c, info: info}
			line = append(line, oc)
			c = oc.parent()
		}
		slices.Reverse(line)
		out = append(out, line...)
	}
	return out, nil
}

// reachSlack is how much older than a commit its descendants may say
// they are (clocks differ between machines).
const reachSlack = 24 * time.Hour

// maxReachWalk is how many commits a reach walks before it answers yes to
// what it has not found — the answer that leaves a commit alone.
const maxReachWalk = 50000

// reach tells which commits a tip reaches, walking its ancestors newest
// first by committer date only as far as a question needs: a commit
// dated t is looked for among the ancestors dated down to a day before t.
type reach struct {
	r       *Repo
	reached map[Hash]bool
	queue   byDate
	walked  int
}

func newReach(r *Repo) *reach { return &reach{r: r, reached: map[Hash]bool{}} }

// push adds commit c, which the tip reaches, to the walk. A commit that
// is gone (a shallow clone's boundary) is left out.
func (x *reach) push(c Hash) error {
	if c.IsZero() || x.reached[c] {
		return nil
	}
	x.reached[c] = true
	info, err := x.r.commitInfo(c)
	if errors.Is(err, ErrObjectNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	heap.Push(&x.queue, dated{hash: c, when: info.committed, parents: info.parents})
	return nil
}

// has says whether the tip reaches commit c, dated when.
func (x *reach) has(c Hash, when time.Time) (bool, error) {
	floor := when.Add(-reachSlack)
	for !x.reached[c] {
		if len(x.queue) == 0 || x.queue[0].when.Before(floor) {
			return false, nil
		}
		if x.walked >= maxReachWalk {
			return true, nil
		}
		x.walked++
		top := heap.Pop(&x.queue).(dated)
		for _, p := range top.parents {
			if err := x.push(p); err != nil {
				return false, err
			}
		}
	}
	return true, nil
}

// dated is a commit in a walk newest first: its date and parents.
type dated struct {
	hash    Hash
	when    time.Time
	parents []Hash
}

// byDate is a heap of commits, newest first.
type byDate []dated

func (h byDate) Len() int           { return len(h) }
func (h byDate) Less(i, j int) bool { return h[i].when.After(h[j].when) }
func (h byDate) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *byDate) Push(x any)        { *h = append(*h, x.(dated)) }
func (h *byDate) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
