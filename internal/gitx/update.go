package gitx

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
)

// Mode says how far a change goes.
type Mode int

const (
	// ModeCommit commits the change on the current branch.
	ModeCommit Mode = iota
	// ModeStage writes the files and stages them without committing.
	ModeStage
	// ModeFiles writes the files only.
	ModeFiles
)

func (m Mode) String() string {
	switch m {
	case ModeCommit:
		return "commit"
	case ModeStage:
		return "stage"
	}
	return "files"
}

// EditFunc computes a file's new content from its old content; exists is
// false when the file is absent from that version. It returns keep=false to
// remove the file. The same EditFunc is applied to the HEAD, index and
// worktree versions of a file, and again when a commit is retried, so it
// must be idempotent and depend on nothing but its input.
type EditFunc func(old []byte, exists bool) (content []byte, keep bool, err error)

// Tx collects the edits of one change. It is handed to the build function
// of Update while the repository is locked, with the state the change
// builds on (ReadFile, ReadDir).
type Tx struct {
	repo        *Repo // nil outside a git repository (UpdateFiles)
	root        string
	view        *view // nil outside a git repository: the worktree
	edits       []fileEdit
	editAt      map[string]int // the place in edits of each path's edit
	message     string
	deferral    *Deferral        // the change goes to Options.Defer
	dirsChecked map[string]error // directories checked for links (checkDirs)
	// worktreeFiles are the files read from disk (ReadFileLimit).
	worktreeFiles map[string]worktreeFile
}

// Deferred says whether the change will go to Options.Defer instead of
// being committed (git is in the middle of an operation, or Defer was
// called), and why.
func (tx *Tx) Deferred() (Deferral, bool) {
	if tx.deferral == nil {
		return Deferral{}, false
	}
	return *tx.deferral, true
}

// Defer asks Update to hand the change to Options.Defer instead of
// committing it, for reason: a caller that keeps earlier changes for
// later must not commit a new one before them.
func (tx *Tx) Defer(reason string) {
	if tx.deferral == nil {
		tx.deferral = &Deferral{Reason: reason}
	}
}

type fileEdit struct {
	path string // slash-separated, relative to the worktree top
	fn   EditFunc
}

// Edit registers an edit of path. Edits of the same path are composed
// in the order they were registered.
func (tx *Tx) Edit(path string, fn EditFunc) {
	if i, ok := tx.editAt[path]; ok {
		first := tx.edits[i].fn
		tx.edits[i].fn = func(old []byte, exists bool) ([]byte, bool, error) {
			mid, keep, err := first(old, exists)
			if err != nil {
				return nil, false, err
			}
			return fn(mid, keep)
		}
		return
	}
	if tx.editAt == nil {
		tx.editAt = map[string]int{}
	}
	tx.editAt[path] = len(tx.edits)
	tx.edits = append(tx.edits, fileEdit{path: path, fn: fn})
}

// SetMessage sets the commit message: a subject line, a blank line, and
// optionally a body and trailers.
func (tx *Tx) SetMessage(msg string) { tx.message = msg }

// Options controls an Update.
type Options struct {
	Mode        Mode
	LockTimeout time.Duration    // how long to wait for a lock held by another process
	Now         func() time.Time // commit time unless GIT_*_DATE says otherwise
	// Defer, when set, takes a change that is not to be committed now:
	// while git is in the middle of a merge, rebase, cherry-pick, revert or
	// am (Deferral.Operation), when its commit could not be signed
	// (Deferral.Signing), or when the build function asked for it
	// (Tx.Defer). It is called under index.lock, and nothing but unnamed
	// objects has been written: the caller keeps the change and applies
	// it later. Without Defer such a change is an error.
	Defer func(Deferral) error
	// PendingDir is where Update keeps its intent record (IntentFile)
	// while it changes the files and moves the branch, and where it looks
	// first for one that a killed Update left, to finish or undo that
	// change. "" keeps no record: a failure is still undone, a kill is not.
	PendingDir string
	// DeferTo, when set, defers the change whatever happens, for Reason:
	// another process owns the index and the branch for a while (lore
	// sync's git pull and push). Update then takes no lock of git's — a
	// git command running meanwhile must not find index.lock taken — but
	// holds DeferTo.Lock (a lock file of lore's) while build runs, so that
	// deferred changes are decided one at a time.
	DeferTo *DeferOnly
	// StaleIndex, when set, is asked about a file the change edits whose
	// staged version (index) is not HEAD's (head) while the worktree holds
	// HEAD's: is it stale — an older version a git command put back as an
	// earlier commit was made — rather than a change the user staged? A
	// stale one is not kept: the index gets what is committed, so that the
	// next commit of the index does not undo the earlier one. Asked under
	// index.lock, in ModeCommit only.
	StaleIndex func(path string, index, head Hash) (bool, error)
}

// DeferOnly is Options.DeferTo: why every change is deferred, and the
// lock file deferred changes are decided under.
type DeferOnly struct {
	Reason string
	Lock   string
}

// Result says what an Update did.
type Result struct {
	// Mode is what was done, which a fallback may have lowered from the
	// requested mode (a merge in progress stages instead of committing).
	Mode Mode
	// Commit is the new commit, ZeroHash when nothing was committed.
	Commit Hash
	// Branch is the short name of the branch committed to, "" if detached.
	Branch string
	// Notices are one-line explanations of fallbacks, for the user.
	Notices []string
	// Deferred is set when the change went to Options.Defer instead.
	Deferred *Deferral
}

// Deferral says why a change went to Options.Defer instead of a commit.
type Deferral struct {
	// Operation is the merge, rebase, cherry-pick, revert or am git is in
	// the middle of ("a rebase", as OperationInProgress names it).
	Operation string
	// Signing says why the commit could not be signed (commit.gpgSign:
	// no key, no agent, no git).
	Signing string
	// Reason is the build function's own (Tx.Defer).
	Reason string
}

const maxCommitAttempts = 10

// Update locks the repository (index.lock), calls build to collect edits,
// and applies them: to HEAD's version of each file for the commit, to the
// index's version for the staging area, and to the worktree's version for
// the file on disk. If another process moves the branch between reading
// HEAD and updating it, the whole change is rebuilt on the new HEAD.
func (r *Repo) Update(opts Options, build func(*Tx) error) (*Result, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 5 * time.Second
	}
	lockTarget := filepath.Join(r.GitDir, "index")
	if opts.DeferTo != nil {
		lockTarget = opts.DeferTo.Lock
	}
	lock, err := acquireLock(lockTarget, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer func() { lock.rollback() }() // recovery may take the lock anew
	defer r.discardObjects()
	defer r.cacheObjects()()

	res := &Result{Mode: opts.Mode}
	if opts.PendingDir != "" && opts.DeferTo == nil {
		notices, err := r.recoverIntent(opts.PendingDir, &lock, opts.LockTimeout)
		if err != nil {
			return nil, err
		}
		res.Notices = append(res.Notices, notices...)
	}
	// While git is in the middle of an operation lore touches neither the
	// worktree nor the index: git's abort would throw the change away
	// with the operation's own. The change goes to opts.Defer.
	operation := ""
	if res.Mode == ModeCommit {
		operation = r.OperationInProgress()
	}
	for attempt := 1; ; attempt++ {
		v, err := r.readView(res, operation != "")
		if err != nil {
			return nil, err
		}
		tx := &Tx{repo: r, root: r.WorkTree, view: v}
		switch {
		case opts.DeferTo != nil:
			tx.deferral = &Deferral{Reason: opts.DeferTo.Reason}
		case operation != "":
			tx.deferral = &Deferral{Operation: operation}
		}
		err = build(tx)
		switch {
		case err != nil || len(tx.edits) == 0:
		case tx.deferral != nil && opts.Defer == nil:
			err = fmt.Errorf("%s is in progress: lore commits nothing until it is over", operation)
			if operation == "" {
				err = errors.New(tx.deferral.Reason)
			}
		case tx.deferral != nil:
			if err = opts.Defer(*tx.deferral); err == nil {
				res.Deferred = tx.deferral
			}
		default:
			err = r.apply(tx, lock, res, opts)
			// A commit that could not be signed has changed nothing yet.
			var unsigned *signingError
			if errors.As(err, &unsigned) && opts.Defer != nil {
				d := &Deferral{Signing: unsigned.msg}
				if err = opts.Defer(*d); err == nil {
					res.Deferred = d
				}
			}
		}
		v.close()
		if errors.Is(err, ErrRefMoved) && attempt < maxCommitAttempts {
			continue
		}
		if err != nil {
			return nil, err
		}
		return res, nil
	}
}

// Recover finishes or undoes a change that an Update killed in the middle
// left recorded in opts.PendingDir (see Options.PendingDir), under
// index.lock, and returns what it did for the person. Update does it
// first anyway; Recover is for a command that only reads.
func (r *Repo) Recover(opts Options) ([]string, error) {
	if opts.PendingDir == "" {
		return nil, nil
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 5 * time.Second
	}
	lock, err := acquireLock(filepath.Join(r.GitDir, "index"), opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer func() { lock.rollback() }()
	defer r.cacheObjects()()
	return r.recoverIntent(opts.PendingDir, &lock, opts.LockTimeout)
}

// version is one version of a file: in HEAD, in the index or on disk.
type version struct {
	data   []byte
	exists bool
	hash   Hash   // blob name, when known
	mode   string // tree mode, when known
}

func (v version) same(o version) bool {
	return v.exists == o.exists && bytes.Equal(v.data, o.data)
}

// planned is what one edit does to each version.
type planned struct {
	path                   string
	head, index, work      version
	newHead, newIndex, new version
}

func (r *Repo) apply(tx *Tx, lock *lockFile, res *Result, opts Options) error {
	idx, hd, headTree := tx.view.idx, tx.view.hd, tx.view.headTree
	if idx != nil {
		for _, e := range tx.edits {
			if idx.Conflicted(e.path) {
				return fmt.Errorf("%s has unresolved merge conflicts; resolve them and `git add %s` first", e.path, e.path)
			}
			if dir, ok := idx.SparseDirFor(e.path); ok {
				res.Mode = ModeFiles
				res.Notices = append(res.Notices, fmt.Sprintf("%s is outside the sparse checkout (%s): lore wrote the files without staging them", e.path, dir))
				idx = nil
				break
			}
		}
	}

	plans := make([]planned, 0, len(tx.edits))
	for _, e := range tx.edits {
		p, err := r.plan(e, idx, headTree, tx)
		if err != nil {
			return err
		}
		if err := r.dropStaleIndex(&p, res.Mode, opts); err != nil {
			return err
		}
		plans = append(plans, p)
	}

	// 1. Objects: blobs, the trees along the changed paths, the commit.
	commit, committer := ZeroHash, signature{}
	if res.Mode == ModeCommit {
		var changes []treeChange
		for i := range plans {
			p := &plans[i]
			if p.newHead.same(p.head) {
				p.newHead.hash = p.head.hash
				continue
			}
			if !p.newHead.exists {
				changes = append(changes, treeChange{path: p.path, remove: true})
				continue
			}
			h, err := r.writeObject(plumbing.BlobObject, p.newHead.data)
			if err != nil {
				return err
			}
			p.newHead.hash = h
			changes = append(changes, treeChange{path: p.path, mode: p.newHead.mode, blob: h})
		}
		if len(changes) > 0 {
			tree, err := r.applyTreeChanges(headTree, changes)
			if err != nil {
				return err
			}
			if tree.IsZero() {
				if tree, err = r.writeObject(plumbing.TreeObject, nil); err != nil {
					return err
				}
			}
			var author signature
			if author, committer, err = r.identities(opts.Now()); err != nil {
				return err
			}
			var parents []Hash
			if !hd.Commit.IsZero() {
				parents = []Hash{hd.Commit}
			}
			if r.config.Bool("commit.gpgsign", false) {
				// git reads the tree: the objects go in place first.
				if err := r.flushObjects(); err != nil {
					return err
				}
				if commit, err = r.signedCommit(tree, parents, author, committer, tx.message); err != nil {
					return err
				}
			} else if commit, err = r.writeObject(plumbing.CommitObject, encodeCommit(tree, parents, author, committer, tx.message)); err != nil {
				return err
			}
		}
	}
	// The blobs the index will name.
	if idx != nil {
		for i := range plans {
			p := &plans[i]
			if !p.newIndex.exists || !p.newIndex.hash.IsZero() {
				continue
			}
			if p.newIndex.same(p.newHead) && !p.newHead.hash.IsZero() {
				p.newIndex.hash = p.newHead.hash
				continue
			}
			h, err := r.writeObject(plumbing.BlobObject, p.newIndex.data)
			if err != nil {
				return err
			}
			p.newIndex.hash = h
		}
	}
	// Nothing the user can see has changed yet: a corrupt index stops
	// here, and the objects become durable before anything names them.
	if idx != nil {
		if err := idx.CheckSum(); err != nil {
			return err
		}
	}
	if err := r.flushObjects(); err != nil {
		return err
	}
	return r.stageAndMove(plans, idx, lock, hd, commit, committer, tx.message, res, opts)
}

// plan reads the three versions of one file and applies the edit to each.
func (r *Repo) plan(e fileEdit, idx *gitindex.File, headTree Hash, tx *Tx) (planned, error) {
	p := planned{path: e.path}
	if err := checkWritable(r.WorkTree, e.path); err != nil {
		return p, err
	}
	if err := r.checkTracked(e.path, idx, headTree); err != nil {
		return p, err
	}
	data, exists, err := tx.ReadWorktreeFile(e.path)
	if err != nil {
		return p, err
	}
	p.work = version{data: data, exists: exists}
	if !headTree.IsZero() {
		entry, ok, err := r.lookupPath(headTree, e.path)
		if err != nil {
			return p, err
		}
		if ok && !entry.isTree() {
			blob, err := tx.readBlob(e.path, entry.hash)
			if err != nil {
				return p, err
			}
			p.head = version{data: blob, exists: true, hash: entry.hash, mode: entry.mode}
		}
	}
	if idx != nil {
		if ent, ok := idx.Lookup(e.path); ok {
			v := version{exists: true, hash: ent.Hash, mode: fmt.Sprintf("%o", ent.Mode)}
			if p.head.exists && ent.Hash == p.head.hash {
				v.data = p.head.data
			} else if v.data, err = tx.readBlob(e.path, ent.Hash); err != nil {
				return p, err
			}
			p.index = v
		}
	}

	apply := func(v version) (version, error) {
		out, keep, err := e.fn(v.data, v.exists)
		if err != nil {
			return version{}, err
		}
		if !keep {
			return version{}, nil
		}
		mode := firstNonEmpty(v.mode, p.head.mode, p.index.mode, "100644")
		return version{data: out, exists: true, mode: mode}, nil
	}
	// What is committed starts from HEAD's version; a file HEAD does not
	// have starts from the staged version, then from the file on disk.
	base := p.work
	switch {
	case p.head.exists:
		base = p.head
	case p.index.exists:
		base = p.index
	}
	if p.newHead, err = apply(base); err != nil {
		return p, err
	}
	// The index gets the same result unless the user staged something
	// else for this file, in which case the edit is applied to that.
	p.newIndex = p.newHead
	indexSide := base
	if p.index.exists && !p.index.same(base) {
		if p.newIndex, err = apply(p.index); err != nil {
			return p, err
		}
		indexSide = p.index
	}
	// Likewise the file on disk keeps the user's unstaged changes.
	p.new = p.newIndex
	if !p.work.same(indexSide) {
		if p.new, err = apply(p.work); err != nil {
			return p, err
		}
	}
	return p, nil
}

// dropStaleIndex plans p's index as HEAD's when Options.StaleIndex says
// the staged version is stale.
func (r *Repo) dropStaleIndex(p *planned, mode Mode, opts Options) error {
	if opts.StaleIndex == nil || mode != ModeCommit || !p.head.exists || !p.index.exists ||
		p.index.hash == p.head.hash || !p.work.same(p.head) {
		return nil
	}
	stale, err := opts.StaleIndex(p.path, p.index.hash, p.head.hash)
	if err != nil || !stale {
		return err
	}
	p.index, p.newIndex, p.new = p.head, p.newHead, p.newHead
	return nil
}

// testHook, when a test sets it, is called at the named points of
// stageAndMove ("files": the files on disk are written, the branch has not
// moved; "ref": the branch moved, the index is not in place; "index":
// both are in place, the intent record is not removed yet), so that a test
// can kill the process there. It is nil outside tests.
var testHook func(point string)

// stageAndMove takes the branch's lock, writes the worktree files,
// prepares the new index in the lock file, moves the branch to commit
// (when there is one) and finally puts the index in place. Before the
// branch moves nothing visible to git has changed but the files on disk,
// and a failure before then puts those back. The branch lock is waited
// for at most lockTimeout, as index.lock is.
func (r *Repo) stageAndMove(plans []planned, idx *gitindex.File, lock *lockFile, hd head, commit Hash, committer signature, message string, res *Result, opts Options) error {
	// 1. The branch: compare-and-set under its lock, its new value made
	// durable but not yet in place. It comes first, so that a branch lock
	// another process holds, or a branch that moved, stops the change
	// before anything is written.
	var u refUpdate
	var refLock *lockFile
	if !commit.IsZero() {
		subject, _, _ := strings.Cut(message, "\n")
		reflog := "commit: " + subject
		if hd.Commit.IsZero() {
			reflog = "commit (initial): " + subject
		}
		u = refUpdate{name: hd.Branch, old: hd.Commit, new: commit, committer: committer, message: reflog, logHEAD: true}
		if hd.detached() {
			u.name, u.logHEAD = "HEAD", false
		}
		var err error
		if refLock, err = r.lockRef(u, opts.LockTimeout); err != nil {
			return err
		}
		defer refLock.rollback()
	}

	// 2. The intent record, for the next Update if this process is killed
	// from here on; and what a failure puts back.
	in := newIntent(res.Mode, u, commit, plans, idx != nil)
	if opts.PendingDir != "" {
		if err := in.write(opts.PendingDir); err != nil {
			return err
		}
	}
	// fail undoes what is done before the commit point: the files on disk
	// that still hold what this change wrote are put back.
	fail := func(err error) error {
		if rerr := r.rollBack(in); rerr != nil {
			return fmt.Errorf("%w (and putting the files back failed: %v; lore tries again on its next write)", err, rerr)
		}
		if opts.PendingDir != "" {
			removeIntent(opts.PendingDir, in.name)
		}
		return err
	}

	// 3. The files on disk: each content durable before its rename
	// (together, for many files: fsx.WriteFiles).
	var written, toWrite []string
	var contents [][]byte
	for _, p := range plans {
		if p.new.same(p.work) {
			continue
		}
		full := filepath.Join(r.WorkTree, filepath.FromSlash(p.path))
		if !p.new.exists {
			if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
				return fail(fmt.Errorf("remove %s: %w", p.path, err))
			}
			continue
		}
		toWrite, contents = append(toWrite, full), append(contents, p.new.data)
	}
	if err := fsx.WriteFiles(toWrite, contents, func(i int) { written = append(written, toWrite[i]) }); err != nil {
		return fail(err)
	}
	if testHook != nil {
		testHook("files")
	}

	// 4. The new index, written into index.lock.
	if idx != nil {
		for _, p := range plans {
			if !p.newIndex.exists {
				idx.Remove(p.path)
				continue
			}
			entry := gitindex.Entry{Mode: parseOctalMode(p.newIndex.mode), Hash: p.newIndex.hash, Path: p.path}
			if old, ok := idx.Lookup(p.path); ok {
				entry.Flags = old.Flags & gitindex.FlagAssumeValid
				entry.ExtFlags = old.ExtFlags &^ gitindex.ExtFlagIntentToAdd
			}
			// Stat data says "the file on disk has this content"; it is
			// only filled in when that is true.
			if p.new.same(p.newIndex) {
				full := filepath.Join(r.WorkTree, filepath.FromSlash(p.path))
				st, err := fsx.Lstat(full)
				if err != nil {
					return fail(fmt.Errorf("stat %s: %w", full, err))
				}
				entry.SetStat(st)
			}
			idx.Set(entry)
		}
		if err := lock.writeWith(idx.Write); err != nil {
			return fail(err)
		}
		// The index is derived state and is not fsynced, as C git does
		// not by default; see "Durability" in the package documentation.
		if err := lock.prepare(false); err != nil {
			return fail(err)
		}
	}

	// 5. The branch and the index are renamed into place back to back.
	// Everything slow (fsyncs, reflogs) happens before or after: between
	// the two renames a reader sees the new HEAD with the old index, and
	// C git's partial commit (git commit -- <paths>) reads the index
	// before it takes index.lock, so this window must stay as short as
	// two system calls. The rename of the branch is the commit point; a
	// change without a commit is done when the index is in place.
	if refLock != nil {
		if err := refLock.publish(); err != nil {
			return fail(err)
		}
		if testHook != nil {
			testHook("ref")
		}
	}
	if idx != nil {
		if err := lock.publish(); err != nil {
			if refLock == nil {
				return fail(err)
			}
			// Committed: the intent record stays, and the next Update
			// puts the index in line with the commit.
			res.Notices = append(res.Notices, fmt.Sprintf("lore committed its change but could not update the index (%v): git status shows it as undone until lore's next write repairs the index", err))
			idx = nil
		}
	}
	if testHook != nil {
		testHook("index")
	}
	// One directory fsync makes the last rename durable, and on a
	// journaling filesystem the renames before it too: the ref's when
	// there is a commit (the rename of the ref is the commit point),
	// otherwise the one of the files written.
	switch {
	case refLock != nil:
		fsx.SyncDir(filepath.Dir(r.refPath(u.name)))
	case len(written) > 0:
		fsx.SyncDir(filepath.Dir(written[len(written)-1]))
	}
	if opts.PendingDir != "" && (idx != nil || refLock == nil) {
		removeIntent(opts.PendingDir, in.name)
	}
	if refLock != nil {
		res.Commit = commit
		res.Branch = strings.TrimPrefix(hd.Branch, "refs/heads/")
		if hd.detached() {
			res.Notices = append(res.Notices, fmt.Sprintf("HEAD is detached: lore committed %s on the detached HEAD, which is on no branch", commit.String()[:7]))
		}
		// The commit is made: a reflog line that cannot be written is
		// said, not an error.
		if err := r.logRefUpdate(u); err != nil {
			res.Notices = append(res.Notices, fmt.Sprintf("lore committed %s but could not write the reflog: %v", commit.String()[:7], err))
		}
	}
	return nil
}
