package gitx

import (
	"bytes"
	"fmt"
	pathpkg "path"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Version is a commit that changed a file: the blob it left at the path
// (ZeroHash when the commit removed the file), who made it, when, and the
// subject of its message.
type Version struct {
	Commit  Hash
	Blob    Hash
	Before  Hash   // the blob the first parent has at the path
	Parent  Hash   // the first parent, ZeroHash for none
	Author  string // "Name <email>"
	When    time.Time
	Subject string
	Message string // the whole message, trailers and all
}

// History calls fn with each commit, newest first along first parents
// from HEAD, whose version of path (slash-separated, from the top of the
// worktree) differs from its first parent's, until fn returns false or
// the first commit is passed. A file that HEAD no longer has is followed
// back all the same: its last version is the commit before the one that
// removed it. An unborn branch has no history.
func (r *Repo) History(path string, fn func(Version) bool) error {
	hd, err := r.readHead()
	if err != nil || hd.Commit.IsZero() {
		return err
	}
	return r.HistoryFrom(hd.Commit, path, fn)
}

// HistoryFrom is History from commit start instead of HEAD (a rename's
// old path is followed from the parent of the commit that renamed it).
func (r *Repo) HistoryFrom(start Hash, path string, fn func(Version) bool) error {
	blobAt := func(tree Hash) (Hash, error) {
		e, ok, err := r.lookupPath(tree, path)
		if err != nil || !ok || e.isTree() {
			return ZeroHash, err
		}
		return e.hash, nil
	}
	// Nothing is cached: each commit's trees are read once (the parent's
	// carried to the next step), and a long history must not hold them all.
	c := start
	info, err := r.commitInfo(c)
	if err != nil {
		return err
	}
	blob, err := blobAt(info.tree)
	if err != nil {
		return err
	}
	for {
		var parentBlob Hash
		var parent commitInfo
		if len(info.parents) > 0 {
			if parent, err = r.commitInfo(info.parents[0]); err != nil {
				return err
			}
			if parentBlob, err = blobAt(parent.tree); err != nil {
				return err
			}
		}
		if len(info.parents) == 0 {
			if blob != parentBlob {
				fn(Version{Commit: c, Blob: blob, Author: info.author, When: info.when, Subject: info.subject, Message: info.message})
			}
			return nil
		}
		if blob != parentBlob && !fn(Version{Commit: c, Blob: blob, Before: parentBlob, Parent: info.parents[0], Author: info.author, When: info.when, Subject: info.subject, Message: info.message}) {
			return nil
		}
		c, info, blob = info.parents[0], parent, parentBlob
	}
}

// FirstParents calls fn with each commit, newest first along first
// parents from start, until fn returns false or the first commit is
// passed: git log --first-parent. A Version's Blob and Before are zero.
func (r *Repo) FirstParents(start Hash, fn func(Version) bool) error {
	for c := start; !c.IsZero(); {
		info, err := r.commitInfo(c)
		if err != nil {
			return err
		}
		v := Version{Commit: c, Author: info.author, When: info.when, Subject: info.subject, Message: info.message}
		if len(info.parents) > 0 {
			v.Parent = info.parents[0]
		}
		if !fn(v) {
			return nil
		}
		c = v.Parent
	}
	return nil
}

// RemovedFile is a file a commit removed.
type RemovedFile struct {
	Path string
	Blob Hash
}

// RemovedBeside lists the files of path's directory that commit's first
// parent has and commit does not: where a file commit added may have
// come from (a rename, as git log --follow looks for it).
func (r *Repo) RemovedBeside(commit Hash, path string) ([]RemovedFile, error) {
	info, err := r.commitInfo(commit)
	if err != nil || len(info.parents) == 0 {
		return nil, err
	}
	parent, err := r.commitInfo(info.parents[0])
	if err != nil {
		return nil, err
	}
	dir := pathpkg.Dir(path)
	if dir == "." {
		dir = ""
	}
	before, err := r.listTree(parent.tree, dir)
	if err != nil {
		return nil, err
	}
	after, err := r.listTree(info.tree, dir)
	if err != nil {
		return nil, err
	}
	kept := map[string]bool{}
	for _, e := range after {
		kept[e.name] = true
	}
	var out []RemovedFile
	for _, e := range before {
		if !e.isTree() && !kept[e.name] {
			out = append(out, RemovedFile{Path: pathpkg.Join(dir, e.name), Blob: e.hash})
		}
	}
	return out, nil
}

// ReadBlob returns the content of blob h.
func (r *Repo) ReadBlob(h Hash) ([]byte, error) {
	return r.readObject(plumbing.BlobObject, h)
}

// commitInfo is what History reads of a commit.
type commitInfo struct {
	tree    Hash
	parents []Hash
	author  string
	when    time.Time
	subject string
	// committed is the committer's date; message the whole message.
	committed time.Time
	message   string
}

// commitInfo reads commit h's header and subject.
func (r *Repo) commitInfo(h Hash) (commitInfo, error) {
	data, err := r.readObject(plumbing.CommitObject, h)
	if err != nil {
		return commitInfo{}, err
	}
	var ci commitInfo
	header, message, _ := bytes.Cut(data, []byte("\n\n"))
	for _, line := range strings.Split(string(header), "\n") {
		key, value, _ := strings.Cut(line, " ")
		switch key {
		case "tree":
			ci.tree = plumbing.NewHash(value)
		case "parent":
			ci.parents = append(ci.parents, plumbing.NewHash(value))
		case "author":
			ci.author, ci.when = parseAuthor(value)
		case "committer":
			_, ci.committed = parseAuthor(value)
		}
	}
	if ci.tree.IsZero() {
		return commitInfo{}, fmt.Errorf("commit %s has no tree line", h)
	}
	ci.message = string(message)
	ci.subject, _, _ = strings.Cut(strings.TrimLeft(ci.message, "\n"), "\n")
	return ci, nil
}

// parseAuthor reads "Name <email> 1700000000 +0100".
func parseAuthor(v string) (who string, when time.Time) {
	end := strings.LastIndexByte(v, '>')
	if end < 0 {
		return v, time.Time{}
	}
	who = v[:end+1]
	fields := strings.Fields(v[end+1:])
	if len(fields) < 2 {
		return who, time.Time{}
	}
	sec, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		return who, time.Time{}
	}
	zone := fields[1]
	offset := 0
	if len(zone) == 5 {
		hh, _ := strconv.Atoi(zone[1:3])
		mm, _ := strconv.Atoi(zone[3:5])
		offset = hh*3600 + mm*60
		if zone[0] == '-' {
			offset = -offset
		}
	}
	return who, time.Unix(sec, 0).In(time.FixedZone(zone, offset))
}
