package mdstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// pendingChange is a change lore acknowledged and has not committed yet,
// as <state dir>/pending/<n>.json keeps it: the edits of its files with
// every decision made (the memory with its id and date, the knowledge
// entry and where it goes, the learning with its id, the journal entry
// with its iteration), and its commit message. Committing it later applies
// the same idempotent edits to the HEAD of that moment.
type pendingChange struct {
	Version int    `json:"version"`
	Queued  string `json:"queued"` // when it was acknowledged, RFC 3339
	Reason  string `json:"reason"` // why it was not committed then
	Message string `json:"message"`
	Edits   []Edit `json:"edits"`
}

// The edits a change is made of.
const (
	OpAddMemory    = "add-memory"    // Memory under its section, unless a block has its id
	OpAddMemories  = "add-memories"  // Memories, each as add-memory, in one pass over the file
	OpRemoveMemory = "remove-memory" // the block of memory ID that list and show read
	// Memory's block over the one of its id that list and show read, in
	// place (under Memory's section when its type changed); nothing when
	// no block has the id (deleted since).
	OpReplaceMemory = "replace-memory"
	OpPut           = "put"       // Content, whatever was there
	OpRemove        = "remove"    // the file goes
	OpKnowledge     = "knowledge" // Knowledge, created or merged into the entry there
	OpFields        = "fields"    // Fields set in the frontmatter there, the rest kept
	OpCite          = "cite"      // Cites as what entry ID cites, in the citations file
)

// Edit is one edit of a store file, decided: applying it twice
// changes nothing the second time.
type Edit struct {
	Path      string                   `json:"path"` // store path
	Op        string                   `json:"op"`
	Memory    *entry.Memory            `json:"memory,omitempty"`
	Memories  []entry.Memory           `json:"memories,omitempty"`
	ID        string                   `json:"id,omitempty"`
	Content   string                   `json:"content,omitempty"`
	Knowledge *entry.Knowledge         `json:"knowledge,omitempty"`
	Create    bool                     `json:"create,omitempty"` // a new knowledge entry
	Fields    []entry.FrontmatterField `json:"fields,omitempty"`
	Cites     []cites.Cite             `json:"cites,omitempty"`
}

// makesFile says whether e puts content in its file (and may make it).
func (e Edit) makesFile() bool {
	return e.Op == OpPut || e.Op == OpKnowledge || e.Op == OpAddMemory || e.Op == OpAddMemories || e.Op == OpCite
}

// checked is apply held to lore's limits: a file the edit makes or grows
// must be one lore reads back (entry.CheckSize).
func (e Edit) checked(old []byte, exists bool) ([]byte, bool, error) {
	out, keep, err := e.apply(old, exists)
	if err != nil || !keep {
		return out, keep, err
	}
	was := -1
	if exists {
		was = len(old)
	}
	if err := entry.CheckSize(e.Path, len(out), was); err != nil {
		return nil, false, err
	}
	return out, keep, nil
}

func (e Edit) apply(old []byte, exists bool) ([]byte, bool, error) {
	switch e.Op {
	case OpAddMemory:
		if e.Memory != nil {
			return entry.AddMemory(old, *e.Memory), true, nil
		}
	case OpAddMemories:
		return entry.AddMemories(old, e.Memories), true, nil
	case OpRemoveMemory:
		out, _ := entry.RemoveMemory(old, e.ID)
		return out, exists, nil
	case OpReplaceMemory:
		if e.Memory != nil {
			return replaceMemory(old, *e.Memory), exists, nil
		}
	case OpPut:
		return []byte(e.Content), true, nil
	case OpCite:
		if !exists && len(e.Cites) == 0 {
			return nil, false, nil // nothing cited, no file made for it
		}
		return cites.Set(old, e.ID, e.Cites), true, nil
	case OpRemove:
		return nil, false, nil
	case OpKnowledge:
		if e.Knowledge != nil {
			return applyKnowledge(*e.Knowledge, e.Create, old, exists), true, nil
		}
	case OpFields:
		if !exists {
			return nil, false, nil // gone since: nothing to set
		}
		out, err := entry.SetFrontmatterFields(old, e.Fields)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", e.Path, err)
		}
		return out, true, nil
	}
	return nil, false, fmt.Errorf("%s: %w (%q)", e.Path, errUnknownEdit, e.Op)
}

func replaceMemory(old []byte, m entry.Memory) []byte {
	return entry.KeepingCRLF(old, func(src []byte) []byte {
		f := entry.ParseMemoriesFile(src, "")
		b, ok := f.ShownBlock(m.ID)
		if !ok {
			return src
		}
		if i := slices.IndexFunc(f.Memories, func(o entry.Memory) bool { return o.Line == b.Line }); i < 0 || f.Memories[i].Type != m.Type {
			out, _ := entry.RemoveMemory(src, m.ID)
			return entry.AddMemory(out, m)
		}
		return slices.Concat(src[:b.Start], []byte(entry.FormatMemory(m)), src[b.End:])
	})
}

// applyKnowledge writes k over old. A new entry replaces what is there,
// unless it is an entry with the same title (a change decided during a
// merge, committed after it brought that entry): that one is updated, as
// the dedup rules would have. An update keeps what old says otherwise.
func applyKnowledge(k entry.Knowledge, create bool, old []byte, exists bool) []byte {
	if !exists {
		return entry.RenderKnowledge(k)
	}
	cur, err := entry.ParseKnowledge(old, k.Path)
	if err != nil || create && !strings.EqualFold(cur.Title, k.Title) {
		return entry.RenderKnowledge(k)
	}
	cur.Tags = entry.MergeTags(cur.Tags, k.Tags)
	cur.Body = k.Body
	cur.UpdatedAt = k.UpdatedAt
	if create {
		cur.UpdatedAt = k.CreatedAt
	}
	if k.Feature != "" {
		cur.Feature = k.Feature
	}
	if len(k.Sources) > 0 {
		cur.Sources = k.Sources
	}
	return entry.RenderKnowledge(cur)
}

// queued is a pending change and the name of its file.
type queued struct {
	name   string
	change pendingChange
}

// Pending is what lore still owes the repository, as the store found it
// when it was opened.
type Pending struct {
	// Queued counts the changes acknowledged and not committed yet.
	Queued int
	// Operation is the merge, rebase, cherry-pick, revert or am that
	// holds them back ("a rebase"), "" when none is in progress.
	Operation string
	// Unfinished is set when a write that was killed left its intent
	// record: the next write, or Flush, finishes or undoes it.
	Unfinished bool
}

// Pending says what lore still owes the repository: the changes queued
// while git was in the middle of an operation, or whose commit could not
// be signed, and a write a kill left unfinished. Open found out with one
// read of the pending directory, which exists only while there is some.
func (s *Store) Pending() Pending { return s.pending }

// ReadPending looks at the pending directory again — what other lore
// processes queued since the store was opened — and returns Pending.
func (s *Store) ReadPending() Pending {
	s.pending = Pending{}
	s.readPending()
	return s.pending
}

// readPending is Open's look at the pending directory.
func (s *Store) readPending() {
	if s.repo == nil {
		return
	}
	entries, err := os.ReadDir(s.pendingDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case gitx.IsIntentFile(name):
			s.pending.Unfinished = true
		case isQueueFile(name):
			s.pending.Queued++
		}
	}
	if s.pending.Queued > 0 {
		s.pending.Operation = s.repo.OperationInProgress()
	}
}

func isQueueFile(name string) bool {
	return strings.HasSuffix(name, ".json") && !gitx.IsIntentFile(name) && !strings.HasPrefix(name, ".")
}

// loadQueue reads the queued changes, oldest first. A file that is not a
// change this lore queued is set aside (setAside), and said in notices.
func (s *Store) loadQueue() (q []queued, notices []string, err error) {
	dir := s.pendingDir()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the queued changes: %w", err)
	}
	for _, e := range entries {
		if !isQueueFile(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue // committed since the listing, by a flush that holds no lock of the caller's
		}
		if err != nil {
			return nil, notices, fmt.Errorf("read the queued change %s: %w", p, err)
		}
		var c pendingChange
		if err := json.Unmarshal(data, &c); err != nil || c.Version != 1 {
			reason := fmt.Sprintf("it is not a change this lore queued (version %d)", c.Version)
			if err != nil {
				reason = "it is not a change lore queued: " + err.Error()
			}
			n, err := s.setAside(e.Name(), reason)
			if err != nil {
				return nil, notices, err
			}
			notices = append(notices, n)
			continue
		}
		q = append(q, queued{name: e.Name(), change: c})
	}
	sort.Slice(q, func(i, j int) bool { return q[i].name < q[j].name })
	return q, notices, nil
}

// unreplayable says whether err, from committing a queued change, is
// the change's own, which no wait cures: it breaks lore's limits (an
// entry.InputError: a name too long, a file lore would not read back), or
// gitx says so (gitx.Unreplayable: a path lore refuses to write, an
// object gone). A lock, a merge in progress, a conflicted or damaged
// file, a full disk are not: the queue waits, in order.
func unreplayable(err error) bool {
	var input *entry.InputError
	return errors.As(err, &input) || errors.Is(err, errUnknownEdit) || gitx.Unreplayable(err)
}

// setAside moves the queued change called name out of the queue
// (gitx.SetAside), so that the changes after it are committed, and says
// so.
func (s *Store) setAside(name, why string) (string, error) {
	if err := gitx.SetAside(s.pendingDir(), name, why); err != nil {
		return "", err
	}
	if s.pending.Queued > 0 {
		s.pending.Queued--
	}
	return fmt.Sprintf("a queued change cannot be committed (%s): set aside in %s, which lore validate reports; the changes after it go on",
		why, filepath.Join(s.pendingDir(), gitx.SetAsideDir, name)), nil
}

// why is err as a reason for a person: an InputError's message alone.
func why(err error) string {
	var input *entry.InputError
	if errors.As(err, &input) {
		return input.Msg
	}
	return err.Error()
}

// errUnknownEdit is an edit of a kind this lore does not know.
var errUnknownEdit = errors.New("lore cannot apply a change of this kind")

// enqueue keeps c as the last queued change. It runs under index.lock,
// as every change of the queue does, so the numbers keep the order.
func (s *Store) enqueue(c pendingChange) error {
	q, _, err := s.loadQueue()
	if err != nil {
		return err
	}
	next := 1
	if n := len(q); n > 0 {
		fmt.Sscanf(q[n-1].name, "%d.json", &next)
		next++
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	// The only copy of an acknowledged change: made durable before the
	// command says it is stored.
	if err := fsx.WriteFile(filepath.Join(s.pendingDir(), fmt.Sprintf("%016d.json", next)), append(data, '\n'), fsx.SyncAll); err != nil {
		return fmt.Errorf("queue the change: %w", err)
	}
	return nil
}

// FlushResult says what Flush did.
type FlushResult struct {
	// Committed are the subjects of the queued changes now committed.
	Committed []string
	// Dropped counts the queued changes HEAD already held.
	Dropped int
	// SetAside counts the queued changes set aside: they cannot be
	// committed (unreplayable), and Notices say why.
	SetAside int
	// Left counts the changes still queued; Operation is the operation in
	// progress that holds them back, "" when something else did (then
	// Flush returned the error).
	Left      int
	Operation string
	// Notices are what the commits said (a detached HEAD, a repaired
	// index), for the person.
	Notices []string
}

// deferredError stops a flush whose change is deferred again: an
// operation began, or the commit could not be signed.
type deferredError struct{ d gitx.Deferral }

func (e *deferredError) Error() string {
	if e.d.Signing != "" {
		return "lore could not sign the commit (" + e.d.Signing + ")"
	}
	return deferredText(e.d)
}

// queueLockTarget is the lock (the file plus ".lock") that a change
// queued while lore sync runs is decided under, and that a queued change
// is committed and taken off the queue under: so that a change decided
// from HEAD and the queue sees each queued change in one or the other,
// never in neither.
func (s *Store) queueLockTarget() string { return filepath.Join(s.StateDir(), "queue") }

// commitQueued commits one queued change and takes it off the queue,
// holding the queue's lock.
func (s *Store) commitQueued(item queued, opts gitx.Options) (*gitx.Result, error) {
	release, err := gitx.HoldLock(s.queueLockTarget(), opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer release()
	res, err := s.repo.Update(opts, func(tx *gitx.Tx) error {
		stx := &Tx{tx: tx, prefix: s.prefix}
		for _, e := range item.change.Edits {
			stx.Apply(e)
		}
		stx.SetMessage(item.change.Message)
		return stx.err
	})
	if err != nil {
		return res, err
	}
	// Removed after the commit: a kill in between commits nothing the
	// next time (the change is in HEAD), and drops it.
	if err := os.Remove(filepath.Join(s.pendingDir(), item.name)); err != nil && !os.IsNotExist(err) {
		return res, err
	}
	return res, nil
}

// Flush commits the queued changes, oldest first, each as its own commit
// with its original message and trailers, under the usual locks; a change
// HEAD already holds commits nothing and is dropped. It first finishes or
// undoes a write a kill left unfinished. While git is in the middle of an
// operation it commits nothing. Without wait it gives up at once when
// another process holds index.lock, and leaves the queue for the next
// command.
func (s *Store) Flush(wait bool) (*FlushResult, error) {
	out := &FlushResult{Left: s.pending.Queued}
	if s.repo == nil || s.pending == (Pending{}) {
		return out, nil
	}
	if op := s.repo.OperationInProgress(); op != "" {
		out.Operation = op
		return out, nil
	}
	release, free := s.holdForWrite()
	defer release()
	if !free {
		out.Operation = "a lore sync"
		return out, nil
	}
	opts := s.writeOptions()
	if !wait {
		opts.LockTimeout = time.Nanosecond
	}
	if s.pending.Unfinished {
		notices, err := s.repo.Recover(opts)
		if err != nil {
			return out, err
		}
		out.Notices = append(out.Notices, notices...)
		s.pending.Unfinished = false
	}
	q, notices, err := s.loadQueue()
	out.Notices = append(out.Notices, notices...)
	if err != nil {
		return out, err
	}
	out.Left = len(q)
	opts.Defer = func(d gitx.Deferral) error { return &deferredError{d} }
	for i, item := range q {
		res, err := s.commitQueued(item, opts)
		if err != nil && unreplayable(err) {
			// Committed never, it would hold back every change after it.
			notice, serr := s.setAside(item.name, why(err))
			if serr == nil {
				out.Notices = append(out.Notices, notice)
				out.SetAside++
				out.Left--
				continue
			}
		}
		if err != nil {
			out.Left = len(q) - i
			s.pending.Queued = out.Left
			var deferred *deferredError
			if errors.As(err, &deferred) && deferred.d.Operation != "" {
				out.Operation = deferred.d.Operation
				return out, nil
			}
			return out, err
		}
		out.Notices = append(out.Notices, res.Notices...)
		if res.Mode == gitx.ModeCommit && res.Commit.IsZero() {
			out.Dropped++
		} else {
			subject, _, _ := strings.Cut(item.change.Message, "\n")
			out.Committed = append(out.Committed, subject)
		}
		out.Left--
	}
	s.pending.Queued = 0
	os.Remove(s.pendingDir()) // kept while anything else is in it
	return out, nil
}

// deferredText says why a change was queued and when lore commits it.
func deferredText(d gitx.Deferral) string {
	switch {
	case d.Operation != "":
		the := "the" + strings.TrimPrefix(d.Operation, "a")
		return d.Operation + " is in progress; lore commits it when " + the + " is over"
	case d.Signing != "":
		return "commit.gpgSign is set and lore could not sign the commit (" + d.Signing + "); lore commits it on its next run that can"
	}
	return d.Reason
}

// overlay applies the queued changes' edits of p to data.
func (t *Tx) overlaid(p string, data []byte, ok bool) ([]byte, bool, error) {
	for _, q := range t.overlay {
		for _, e := range q.change.Edits {
			if e.Path != p {
				continue
			}
			var err error
			if data, ok, err = e.apply(data, ok); err != nil {
				return nil, false, err
			}
		}
	}
	return data, ok, nil
}

// overlaidDir lists directory p with the files queued changes add or
// remove in it.
func (t *Tx) overlaidDir(p string, entries []os.DirEntry) ([]os.DirEntry, error) {
	index := map[string]int{}
	for i, e := range entries {
		index[e.Name()] = i
	}
	out := entries
	removed := map[string]bool{}
	for _, q := range t.overlay {
		for _, e := range q.change.Edits {
			rest, ok := strings.CutPrefix(e.Path, p+"/")
			if !ok {
				continue
			}
			name, _, below := strings.Cut(rest, "/")
			if below {
				if _, listed := index[name]; !listed {
					index[name] = len(out)
					out = append(out, pendingEntry{name: name, dir: true})
				}
				continue
			}
			_, exists, err := t.Read(path.Join(p, name))
			if err != nil {
				return nil, err
			}
			_, listed := index[name]
			switch {
			case exists && !listed:
				index[name] = len(out)
				out = append(out, pendingEntry{name: name})
			case !exists && listed:
				removed[name] = true
			}
		}
	}
	if len(removed) == 0 {
		return out, nil
	}
	kept := out[:0:0]
	for _, e := range out {
		if !removed[e.Name()] {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

// pendingEntry is a name a queued change adds to a directory.
type pendingEntry struct {
	name string
	dir  bool
}

func (e pendingEntry) Name() string { return e.name }
func (e pendingEntry) IsDir() bool  { return e.dir }
func (e pendingEntry) Type() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e pendingEntry) Info() (fs.FileInfo, error) {
	return nil, fmt.Errorf("%s: a file a queued change adds", e.name)
}

// racedFile remembers how far lore has read the branch's reflog for
// resets that raced with its commits.
func (s *Store) racedFile() string { return filepath.Join(s.StateDir(), "reflog-checked") }

// requeueRaced queues again the commits of lore's that a git reset
// running at the same time took off the branch (git stash runs one; see
// gitx.RacedResets), unless HEAD or the queue holds their change anyway.
// It reads the end of the branch's reflog, and returns how many it
// queued.
func (s *Store) requeueRaced() (int, error) {
	since, known := int64(0), false
	if data, err := os.ReadFile(s.racedFile()); err == nil {
		since, _ = strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		known = true
	}
	lost, end, err := s.repo.RacedResets(since)
	if err != nil {
		return 0, err
	}
	if len(lost) == 0 {
		if !known && end > 0 {
			// Remembered once, so that a race read now is not read again
			// after the person changed what it took off.
			return 0, fsx.WriteFile(s.racedFile(), []byte(strconv.FormatInt(end, 10)+"\n"), fsx.Unsynced)
		}
		return 0, nil
	}
	n, err := s.requeueLost(lost, func(c gitx.LostCommit) string {
		return "a git reset that ran at the same time took commit " + c.Commit.String()[:7] + " off the branch"
	})
	if err != nil {
		return n, err
	}
	return n, fsx.WriteFile(s.racedFile(), []byte(strconv.FormatInt(end, 10)+"\n"), fsx.Unsynced)
}

// requeueLost queues again, oldest first, the changes of lore's commits
// in lost that the branch and the queue do not hold anyway — each with
// its commit's message and the reason why says — for the next write to
// commit; it returns how many it queued.
func (s *Store) requeueLost(lost []gitx.LostCommit, why func(gitx.LostCommit) string) (int, error) {
	n := 0
	_, err := s.repo.Update(s.writeOptions(), func(tx *gitx.Tx) error {
		q, _, err := s.loadQueue()
		if err != nil {
			return err
		}
		stx := &Tx{tx: tx, prefix: s.prefix, overlay: q, stateDir: s.StateDir()}
		for _, c := range lost {
			change, err := s.changeOfCommit(c)
			if err != nil {
				return err
			}
			held := true
			for _, e := range change.Edits {
				old, ok, err := stx.Read(e.Path)
				if err != nil {
					return err
				}
				next, keep, err := e.apply(old, ok)
				if err != nil {
					return err
				}
				if keep != ok || !bytes.Equal(next, old) {
					held = false
				}
			}
			if held {
				continue
			}
			change.Version, change.Queued = 1, s.now().UTC().Format(time.RFC3339)
			change.Reason = why(c)
			if err := s.enqueue(change); err != nil {
				return err
			}
			stx.overlay = append(stx.overlay, queued{change: change})
			n++
		}
		return nil
	})
	s.pending.Queued += n
	return n, err
}

// changeOfCommit is the change a commit of lore's made to the store, as
// decided edits: the memories it added to or removed from memories.md,
// and every other file of the store as the commit left it.
func (s *Store) changeOfCommit(c gitx.LostCommit) (pendingChange, error) {
	files, err := s.repo.CommitChanges(c.Parent, c.Commit, s.prefix)
	if err != nil {
		return pendingChange{}, err
	}
	change := pendingChange{Message: c.Message}
	for _, f := range files {
		p := f.Path
		if s.prefix != "" {
			p = strings.TrimPrefix(p, s.prefix+"/")
		}
		switch {
		case !entry.InStore(p):
		case p == entry.MemoriesPath:
			before := entry.ParseMemoriesFile(f.Old, p).IDs()
			after := entry.ParseMemoriesFile(f.New, p)
			for _, m := range after.Memories {
				if !before[m.ID] {
					added := m
					change.Edits = append(change.Edits, Edit{Path: p, Op: OpAddMemory, Memory: &added})
				}
			}
			for id := range before {
				if !after.IDs()[id] {
					change.Edits = append(change.Edits, Edit{Path: p, Op: OpRemoveMemory, ID: id})
				}
			}
		case f.HasNew:
			change.Edits = append(change.Edits, Edit{Path: p, Op: OpPut, Content: string(f.New)})
		default:
			change.Edits = append(change.Edits, Edit{Path: p, Op: OpRemove})
		}
	}
	return change, nil
}
