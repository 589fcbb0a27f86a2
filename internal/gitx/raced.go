package gitx

import (
	"bytes"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// A git reset without a commit (git reset --hard, which git stash runs
// after it saved the changes) resolves HEAD when it starts and moves the
// branch there when it ends, with a compare-and-set against the value it
// reads only then. A commit made in between — lore's, or C git's own — is
// taken off the branch, and the reflog says "reset: moving to HEAD" for a
// reset that moved it. git rebase --abort does the same to a commit made
// as the rebase began ("rebase (abort): returning to …"). RacedResets finds lore's commits lost that way,
// for the caller to commit again.

// racedResetMessage is the reflog message of git reset with no commit.
const racedResetMessage = "reset: moving to HEAD"

// racedMove says whether a reflog message is of a move that takes off
// the branch what was committed while it ran: git reset to HEAD (git
// stash runs one), and git rebase --abort, which puts the branch back
// where the rebase found it — before a commit lore made as the rebase
// began.
func racedMove(message string) bool {
	return message == racedResetMessage || strings.HasPrefix(message, "rebase (abort): ")
}

// maxReflogScan is how much of the end of a reflog RacedResets reads when
// it has not read it before.
const maxReflogScan = 16 << 10

// LostCommit is a commit of lore's ("lore: …") that a racing git reset
// took off the branch.
type LostCommit struct {
	Commit, Parent Hash
	Message        string
}

// RacedResets reads the reflog of the branch HEAD is on from byte offset
// since (at most its last 16 KiB) and returns, oldest first, the commits
// of lore's that a reset "moving to HEAD" took off the branch, and the
// offset where the reflog ends now, to pass the next time. A reflog
// shorter than since was rewritten and is read from its end again.
func (r *Repo) RacedResets(since int64) ([]LostCommit, int64, error) {
	hd, err := r.readHead()
	if err != nil {
		return nil, since, err
	}
	name := hd.Branch
	if name == "" {
		name = "HEAD"
	}
	entries, end, err := r.readReflog(name, since, maxReflogScan)
	if err != nil {
		return nil, since, err
	}
	var lost []LostCommit
	for _, e := range entries {
		if racedMove(e.Message) && e.Old != e.New {
			lost = append(lost, r.lostBetween(e.Old, e.New)...)
		}
	}
	return lost, end, nil
}

// lostBetween walks first parents from tip down to base (at most 100
// commits) and returns lore's commits on the way, oldest first.
func (r *Repo) lostBetween(tip, base Hash) []LostCommit {
	var out []LostCommit
	for c, n := tip, 0; c != base && !c.IsZero() && n < 100; n++ {
		data, err := r.readObject(plumbing.CommitObject, c)
		if err != nil {
			return out
		}
		header, message, _ := bytes.Cut(data, []byte("\n\n"))
		parent := ZeroHash
		for _, l := range bytes.Split(header, []byte{'\n'}) {
			if p, ok := bytes.CutPrefix(l, []byte("parent ")); ok && plumbing.IsHash(string(p)) {
				parent = plumbing.NewHash(string(p))
				break
			}
		}
		if strings.HasPrefix(string(message), "lore: ") {
			out = append([]LostCommit{{Commit: c, Parent: parent, Message: string(message)}}, out...)
		}
		c = parent
	}
	return out
}

// FileChange is a file a commit changed: its content before and after
// (read only by CommitChanges), and the blobs that hold it.
type FileChange struct {
	Path             string
	Old, New         []byte
	OldBlob, NewBlob Hash
	HadOld, HasNew   bool // the file existed before, after
}

// CommitChanges returns the files under prefix (slash-separated, relative
// to the top of the worktree) that commit c changed from its parent p.
func (r *Repo) CommitChanges(p, c Hash, prefix string) ([]FileChange, error) {
	var trees [2]Hash
	for i, h := range []Hash{p, c} {
		if h.IsZero() {
			continue
		}
		t, err := r.commitTree(h)
		if err != nil {
			return nil, err
		}
		if prefix != "" {
			e, ok, err := r.lookupPath(t, prefix)
			switch {
			case err != nil:
				return nil, err
			case !ok || !e.isTree():
				t = ZeroHash
			default:
				t = e.hash
			}
		}
		trees[i] = t
	}
	var out []FileChange
	err := r.diffTrees(trees[0], trees[1], prefix, true, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// ChangedFiles lists the files of the whole tree that commit c changed
// from commit p, with their blobs but not their content, in path order.
func (r *Repo) ChangedFiles(p, c Hash) ([]FileChange, error) {
	var trees [2]Hash
	for i, h := range []Hash{p, c} {
		if h.IsZero() {
			continue
		}
		t, err := r.commitTree(h)
		if err != nil {
			return nil, err
		}
		trees[i] = t
	}
	var out []FileChange
	err := r.diffTrees(trees[0], trees[1], "", false, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// diffTrees appends the files that differ between trees a and b (either
// may be ZeroHash), which are at dir; with content, what they hold.
func (r *Repo) diffTrees(a, b Hash, dir string, content bool, out *[]FileChange) error {
	if a == b {
		return nil
	}
	list := func(t Hash) (map[string]treeEntry, error) {
		if t.IsZero() {
			return map[string]treeEntry{}, nil
		}
		return r.treeByName(t)
	}
	as, err := list(a)
	if err != nil {
		return err
	}
	bs, err := list(b)
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for n := range as {
		names[n] = true
	}
	for n := range bs {
		names[n] = true
	}
	for name := range names {
		ea, ina := as[name]
		eb, inb := bs[name]
		if ina && inb && ea.hash == eb.hash {
			continue
		}
		path := name
		if dir != "" {
			path = dir + "/" + name
		}
		// A directory on either side: the files below it.
		subA, subB := ZeroHash, ZeroHash
		if ina && ea.isTree() {
			subA = ea.hash
		}
		if inb && eb.isTree() {
			subB = eb.hash
		}
		if !subA.IsZero() || !subB.IsZero() {
			if err := r.diffTrees(subA, subB, path, content, out); err != nil {
				return err
			}
		}
		fc := FileChange{Path: path, HadOld: ina && !ea.isTree(), HasNew: inb && !eb.isTree()}
		if fc.HadOld {
			fc.OldBlob = ea.hash
		}
		if fc.HasNew {
			fc.NewBlob = eb.hash
		}
		if !content {
			if fc.HadOld || fc.HasNew {
				*out = append(*out, fc)
			}
			continue
		}
		if fc.HadOld {
			if fc.Old, err = r.readObject(plumbing.BlobObject, ea.hash); err != nil {
				return err
			}
		}
		if fc.HasNew {
			if fc.New, err = r.readObject(plumbing.BlobObject, eb.hash); err != nil {
				return err
			}
		}
		if fc.HadOld || fc.HasNew {
			*out = append(*out, fc)
		}
	}
	return nil
}
