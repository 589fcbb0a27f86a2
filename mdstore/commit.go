package mdstore

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/internal/gitx"
	"lore/internal/words"
	"lore/mdstore/catalog"
	"lore/mdstore/cites"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// WriteResult says what a change did in git.
type WriteResult struct {
	Mode    string // "commit", "stage", "files", or "queued" (see Queued)
	Commit  string // the new commit, "" when nothing was committed
	Branch  string // the branch committed to, "" when detached
	Notices []string
	// Queued says why the change was queued instead of committed and
	// when lore commits it ("a rebase is in progress; lore commits it
	// when the rebase is over"). The change is acknowledged: it is in
	// <state dir>/pending, fsynced, and the next command that finds
	// nothing in the way commits it.
	Queued string
}

// writeOptions are the gitx options config.yaml asks for.
func (s *Store) writeOptions() gitx.Options {
	opts := gitx.Options{LockTimeout: s.config.LockTimeout, Now: s.now}
	switch s.config.Commit {
	case config.CommitStage:
		opts.Mode = gitx.ModeStage
	case config.CommitNone:
		opts.Mode = gitx.ModeFiles
	}
	if s.repo != nil {
		opts.PendingDir = s.pendingDir()
		opts.StaleIndex = func(p string, index, head gitx.Hash) (bool, error) {
			lore, err := s.behindLore(p, index, head)
			return lore != nil, err
		}
	}
	return opts
}

// Write runs one change: build registers edits (with store paths) and the
// commit message. It becomes one commit, or less if the configuration or
// the repository's state says so. While git is in the middle of an
// operation, or earlier changes are still queued, the change is queued
// (decided, not applied) for a later command to commit; queued changes
// are committed first.
func (s *Store) Write(build func(tx *Tx) error) (*WriteResult, error) {
	opts := s.writeOptions()
	if s.repo == nil {
		lock := filepath.Join(s.root, entry.Dir, ".lore")
		stx := &Tx{random: s.random}
		res, err := gitx.UpdateFiles(s.root, lock, opts, func(tx *gitx.Tx) error {
			stx.tx = tx
			if err := build(stx); err != nil {
				return err
			}
			return stx.err
		})
		if err != nil {
			return nil, err
		}
		out := &WriteResult{Mode: res.Mode.String(), Notices: res.Notices}
		if stx.edits > 0 {
			out.Notices = append(out.Notices, "not a git repository: lore wrote the files only (no commit)")
		}
		return out, nil
	}

	var notices []string
	stuck := ""
	release, free := s.holdForWrite()
	defer release()
	free = free || opts.Mode != gitx.ModeCommit // a sync is in the way of commits only
	if !free {
		opts.DeferTo = &gitx.DeferOnly{Reason: syncingReason, Lock: s.queueLockTarget()}
	}
	if opts.Mode == gitx.ModeCommit && free {
		// A git reset that ran beside an earlier write (git stash runs
		// one) may have taken its commit off the branch.
		switch n, err := s.requeueRaced(); {
		case err != nil:
			notices = append(notices, "could not check the branch for lore commits a git reset took off it: "+err.Error())
		case n > 0:
			notices = append(notices, fmt.Sprintf("a git reset that ran at the same time as lore (git stash runs one) took %d of lore's %s off the branch; lore commits %s again",
				n, words.Plural(n, "commit", "commits"), words.Plural(n, "it", "them")))
		}
	}
	if s.pending != (Pending{}) && opts.Mode == gitx.ModeCommit && free {
		flushed, err := s.Flush(true)
		notices = append(notices, flushText(flushed)...)
		if err != nil {
			stuck = err.Error()
		}
	}
	var stx *Tx
	if opts.Mode == gitx.ModeCommit {
		opts.Defer = func(d gitx.Deferral) error {
			if stx.raw {
				if !free {
					return errors.New("lore sync is pulling and pushing the branch: run this again when it is over (lore cannot keep this change for later)")
				}
				if d.Operation != "" {
					return fmt.Errorf("%s is in progress: run this again when it is over (lore cannot keep this change for later)", d.Operation)
				}
				return fmt.Errorf("%s: run this again once they are committed (lore cannot keep this change for later)", d.Reason)
			}
			if err := stx.checkQueued(); err != nil {
				return err
			}
			c := stx.change
			c.Version, c.Queued, c.Reason = 1, s.now().UTC().Format(time.RFC3339), deferredText(d)
			if err := s.enqueue(c); err != nil {
				return err
			}
			s.pending.Queued++
			return nil
		}
	}
	res, err := s.repo.Update(opts, func(tx *gitx.Tx) error {
		stx = &Tx{tx: tx, prefix: s.prefix, stateDir: s.StateDir(), ahead: s.ahead, random: s.random}
		// Queued changes are part of the store the change builds on; a
		// change that would commit before them is queued behind them.
		_, deferred := tx.Deferred()
		if deferred || s.pending.Queued > 0 {
			q, _, err := s.loadQueue()
			if err != nil {
				return err
			}
			stx.overlay = q
			if n := len(q); n > 0 && !deferred {
				why := stuck
				if why == "" {
					why = "another command is committing them"
				}
				tx.Defer(fmt.Sprintf("%d earlier %s not committed yet (%s); lore commits it after them", n, words.Plural(n, "change is", "changes are"), why))
			}
		}
		if err := build(stx); err != nil {
			return err
		}
		return stx.err
	})
	if err != nil {
		return nil, err
	}
	out := &WriteResult{Mode: res.Mode.String(), Branch: res.Branch, Notices: append(notices, res.Notices...)}
	if !res.Commit.IsZero() {
		out.Commit = res.Commit.String()
		s.noteCommitted(out.Commit, stx.change.Edits)
	}
	if res.Deferred != nil {
		out.Mode, out.Queued = "queued", deferredText(*res.Deferred)
	}
	return out, nil
}

// flushText says what a flush did, for the person.
func flushText(f *FlushResult) []string {
	if f == nil {
		return nil
	}
	out := f.Notices
	if n := len(f.Committed); n > 0 {
		out = append(out, fmt.Sprintf("committed %d queued %s (%s)", n, words.Plural(n, "change", "changes"), strings.Join(f.Committed, "; ")))
	}
	return out
}

// Tx adapts a gitx.Tx to store paths. It also keeps the change as
// the queue would: the decided edits and the message.
type Tx struct {
	tx     *gitx.Tx
	prefix string
	edits  int
	change pendingChange
	// raw is set when an edit is a function (Init's and EditFiles'
	// edits of .gitattributes): such a change cannot be queued.
	raw bool
	// overlay are the queued changes, applied on top of what read and
	// readDir show.
	overlay []queued
	// stateDir holds the blob cache; "" reads every file.
	stateDir string
	// ahead are directories read before the lock (Store.readAhead).
	ahead map[string]readAhead
	// random is the source of new ids.
	random io.Reader
	// err is the first edit refused (a name lore does not make), for
	// the build function's caller to return.
	err error
}

// cite records cs as what the entry key (cites.KeyOf) cites, in the same
// commit; nothing when cs is empty.
func (t *Tx) cite(key string, cs []cites.Cite) {
	if len(cs) > 0 {
		t.Apply(Edit{Path: cites.Path, Op: OpCite, ID: cites.KeyOf(key), Cites: cs})
	}
}

// Learnings reads the learnings the change builds on, once, for deciding
// new ones: expect are the bodies the change will ask about (DuplicateOf).
func (t *Tx) Learnings(expect ...string) (*StoredLearnings, error) {
	st := &StoredLearnings{expect: expect}
	return st, st.load(t)
}

func (t *Tx) path(p string) string {
	if t.prefix == "" {
		return p
	}
	return t.prefix + "/" + p
}

// Read and readDir see the store as the change builds on it: HEAD's
// files for a commit, the index's when staging, the files on disk when
// writing files only, with changes still queued applied on top.
// Decisions (a duplicate, "unchanged", the next iteration) are made from
// them, never from what a failed write may have left on disk.
func (t *Tx) Read(p string) ([]byte, bool, error) {
	data, ok, err := t.tx.ReadFile(t.path(p))
	if err != nil || len(t.overlay) == 0 {
		return data, ok, err
	}
	return t.overlaid(p, data, ok)
}

func (t *Tx) ReadDir(p string) ([]os.DirEntry, error) {
	entries, err := t.tx.ReadDir(t.path(p))
	if err != nil || len(t.overlay) == 0 {
		return entries, err
	}
	return t.overlaidDir(p, entries)
}

// worktree reads the files on disk: for names a change must not take
// (a person's uncommitted file), and for what a person may edit before
// committing it.
func (t *Tx) worktree() catalog.Reader { return worktreeReader{t} }

type worktreeReader struct{ t *Tx }

func (w worktreeReader) Read(p string) ([]byte, bool, error) {
	return w.t.tx.ReadFileLimit(w.t.path(p), entry.ReadLimit(p))
}

func (w worktreeReader) ReadDir(p string) ([]os.DirEntry, error) {
	return w.t.tx.ReadWorktreeDir(w.t.path(p))
}

// Exists reports whether p is a file in the state the change builds on or
// on disk.
func (t *Tx) Exists(p string) (bool, error) {
	for _, r := range []catalog.Reader{t, t.worktree()} {
		if _, ok, err := r.Read(p); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// Apply registers a decided edit. What it writes is held to lore's
// limits (mdstore/entry's CheckName and CheckSize): a file it makes must
// have a name lore makes, and a file it makes or grows must be one lore
// reads back. A name is refused here, before anything is read or written
// (the change's Write returns the error); a size when the edit is applied
// to the file the commit builds on, before anything is written, or, for a
// change that is queued, before it is queued (checkQueued).
func (t *Tx) Apply(e Edit) {
	if t.err == nil && e.makesFile() {
		t.err = entry.CheckName(e.Path)
	}
	t.edits++
	t.change.Edits = append(t.change.Edits, e)
	t.tx.Edit(t.path(e.Path), e.checked)
	if e.Op == OpRemove || e.Op == OpRemoveMemory { // what an entry cited goes with it
		t.Apply(Edit{Path: cites.Path, Op: OpCite, ID: cites.KeyOf(cmp.Or(e.ID, e.Path))})
	}
}

// checkQueued applies the edits of a change that is queued, not
// committed, to the store the queue will commit it on, held to the limits
// they are held to when committed (Edit.checked): what lore queues, it
// can commit.
func (t *Tx) checkQueued() error {
	var paths []string
	byPath := map[string][]Edit{}
	for _, e := range t.change.Edits {
		if _, seen := byPath[e.Path]; !seen {
			paths = append(paths, e.Path)
		}
		byPath[e.Path] = append(byPath[e.Path], e)
	}
	for _, p := range paths {
		data, ok, err := t.Read(p)
		if err != nil {
			return err
		}
		for _, e := range byPath[p] {
			if data, ok, err = e.checked(data, ok); err != nil {
				return err
			}
		}
	}
	return nil
}

// edit registers an edit that is a function: the change cannot be queued.
func (t *Tx) edit(p string, fn gitx.EditFunc) {
	t.edits++
	t.raw = true
	t.tx.Edit(t.path(p), fn)
}

func (t *Tx) SetMessage(m string) {
	t.change.Message = m
	t.tx.SetMessage(m)
}

// CommitMessage builds "lore: <verb> <what> <id>", the body and the
// trailers that make lore's commits searchable with git log --grep.
func CommitMessage(subject, body string, trailers ...string) string {
	var b strings.Builder
	b.WriteString(subject + "\n")
	if body = strings.TrimSpace(body); body != "" {
		if len(body) > 2000 {
			cut := 2000
			for cut > 0 && body[cut]&0xC0 == 0x80 { // do not split a UTF-8 character
				cut--
			}
			body = body[:cut] + " …"
		}
		b.WriteString("\n" + body + "\n")
	}
	if len(trailers) > 0 {
		b.WriteString("\n")
		for i := 0; i+1 < len(trailers); i += 2 {
			b.WriteString(trailers[i] + ": " + trailers[i+1] + "\n")
		}
	}
	return b.String()
}

// FileEdit is a change to a file of the repository beside the store's
// own, such as .gitattributes, committed with the store's changes: Apply
// returns the file's new content, or nil when it needs no change. Subject
// says what it does, for a commit that makes no other change.
type FileEdit struct {
	Path    string // relative to the store root
	Subject string
	Apply   func(old []byte) []byte
}

// Init creates .agent/memories.md from the template and applies the
// extra edits (lore's merge lines in .gitattributes, say), in one commit.
// An existing memories.md is left alone unless force is set; created
// reports whether it was written.
func (s *Store) Init(force bool, extra ...FileEdit) (created bool, res *WriteResult, err error) {
	res, err = s.Write(func(tx *Tx) error {
		// A memories.md on disk that is not committed is a person's (or
		// was left by a write that failed): it is not overwritten.
		exists, err := tx.Exists(entry.MemoriesPath)
		if err != nil {
			return err
		}
		applied, err := applyEdits(tx, extra)
		if err != nil {
			return err
		}
		if exists && !force && len(applied) == 0 {
			return nil
		}
		verb := "init"
		if !exists || force {
			created = true
			tx.Apply(Edit{Path: entry.MemoriesPath, Op: OpPut, Content: entry.MemoriesTemplate})
			if exists {
				verb = "reinit"
			}
		}
		if !created {
			tx.SetMessage(CommitMessage("lore: "+applied[0].Subject, "", "Lore-Kind", "store"))
			return nil
		}
		tx.SetMessage(CommitMessage("lore: "+verb+" memory store", "", "Lore-Kind", "store"))
		return nil
	})
	return created, res, err
}

// EditFiles applies edits in one commit (of those files alone); changed
// is false when none of them changed anything.
func (s *Store) EditFiles(edits ...FileEdit) (changed bool, res *WriteResult, err error) {
	res, err = s.Write(func(tx *Tx) error {
		applied, err := applyEdits(tx, edits)
		if err != nil || len(applied) == 0 {
			return err
		}
		changed = true
		tx.SetMessage(CommitMessage("lore: "+applied[0].Subject, "", "Lore-Kind", "store"))
		return nil
	})
	return changed, res, err
}

// applyEdits registers the edits that change their file and returns them.
func applyEdits(tx *Tx, edits []FileEdit) ([]FileEdit, error) {
	var applied []FileEdit
	for _, e := range edits {
		data, _, err := tx.Read(e.Path)
		if err != nil {
			return nil, err
		}
		if e.Apply(data) == nil {
			continue
		}
		applied = append(applied, e)
		tx.edit(e.Path, func(old []byte, _ bool) ([]byte, bool, error) {
			if next := e.Apply(old); next != nil {
				return next, true, nil
			}
			return old, true, nil
		})
	}
	return applied, nil
}

// ErrUnchanged ends a write that has nothing to change: no commit.
var ErrUnchanged = errors.New("unchanged")
