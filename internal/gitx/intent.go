package gitx

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
)

// IntentFile is the name of the intent record an older lore wrote in
// Options.PendingDir; each Update now writes its own, intent-<pid>-<n>.json
// (IsIntentFile), so that a writer that removes its record once its
// change is in place — after it let go of index.lock — never removes the
// record of the writer that came next.
const IntentFile = "intent.json"

// IsIntentFile says whether name, in Options.PendingDir, is an intent
// record.
func IsIntentFile(name string) bool {
	return name == IntentFile || strings.HasPrefix(name, "intent-") && strings.HasSuffix(name, ".json")
}

// intentName is this process's next intent record's name.
func intentName() string {
	return fmt.Sprintf("intent-%d-%d.json", os.Getpid(), time.Now().UnixNano())
}

// intentWriter is the process that wrote the record called name, 0 for
// none that can be told.
func intentWriter(name string) int {
	rest, ok := strings.CutPrefix(name, "intent-")
	if !ok {
		return 0
	}
	pid, _, _ := strings.Cut(rest, "-")
	n, err := strconv.Atoi(pid)
	if err != nil {
		return 0
	}
	return n
}

// liveIntentAge is how long a record of a process that still runs is
// taken for that process's: past it, the process id is taken to be
// another process's now.
const liveIntentAge = 2 * time.Minute

// intent is what an Update is about to do, written before it touches the
// worktree and removed once the branch and the index are in place. A
// process killed in between leaves it for the next Update, which either
// finishes the change (the branch moved: the index is brought in line
// with it) or undoes it (the branch did not move: the files on disk are
// put back), as long as nobody changed those files since.
type intent struct {
	name    string // the record's file name in the pending directory
	Version int    `json:"version"`
	Mode    string `json:"mode"`             // commit, stage or files
	Ref     string `json:"ref,omitempty"`    // the ref moved ("refs/heads/main", or "HEAD" when detached)
	Old     string `json:"old,omitempty"`    // its value before; the zero hash for an unborn branch
	Commit  string `json:"commit,omitempty"` // its new value
	Files   []intentFile
}

// intentFile is one file of the change: on disk before and after, and its
// index entry before and after ("<octal mode> <hash>", "" for none).
type intentFile struct {
	Path     string `json:"path"`
	Was      string `json:"was,omitempty"`      // blob of the file on disk before, when one has its content
	WasData  []byte `json:"was_data,omitempty"` // otherwise its content
	WasGone  bool   `json:"was_gone,omitempty"` // there was no file
	Is       string `json:"is"`                 // blob name of the new file on disk, "" when removed
	IndexWas string `json:"index_was,omitempty"`
	IndexIs  string `json:"index_is,omitempty"`
	Staged   bool   `json:"staged,omitempty"` // the index is changed
	Clean    bool   `json:"clean,omitempty"`  // the new file on disk is the new index entry
}

func indexEntryString(v version) string {
	if !v.exists {
		return ""
	}
	return v.mode + " " + v.hash.String()
}

// blobName is the object name v's content has or would have.
func blobName(v version, known ...version) Hash {
	if !v.hash.IsZero() {
		return v.hash
	}
	for _, k := range known {
		if k.exists && !k.hash.IsZero() && k.same(v) {
			return k.hash
		}
	}
	return hashObject(plumbing.BlobObject, v.data)
}

// newIntent records plans about to be applied.
func newIntent(mode Mode, u refUpdate, commit Hash, plans []planned, staged bool) *intent {
	in := &intent{name: intentName(), Version: 1, Mode: mode.String()}
	if !commit.IsZero() {
		in.Ref, in.Old, in.Commit = u.name, u.old.String(), commit.String()
	}
	for _, p := range plans {
		f := intentFile{Path: p.path, Staged: staged}
		switch {
		case !p.work.exists:
			f.WasGone = true
		case p.work.same(p.head) && !p.head.hash.IsZero():
			f.Was = p.head.hash.String()
		case p.work.same(p.index) && !p.index.hash.IsZero():
			f.Was = p.index.hash.String()
		default:
			f.WasData = p.work.data
		}
		if p.new.exists {
			f.Is = blobName(p.new, p.newIndex, p.newHead).String()
		}
		if staged {
			f.IndexWas, f.IndexIs = indexEntryString(p.index), indexEntryString(p.newIndex)
			f.Clean = p.new.exists && p.new.same(p.newIndex)
		}
		in.Files = append(in.Files, f)
	}
	return in
}

func (in *intent) write(dir string) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	// Not fsynced: it is for a process that is killed, not for a machine
	// that loses power (see Durability). A record that does not read is
	// ignored.
	// The writer before this one removes the directory once it is empty,
	// after it let go of index.lock: made again, it is written once more.
	err = fsx.WriteFile(filepath.Join(dir, in.name), data, fsx.Unsynced)
	if errors.Is(err, fs.ErrNotExist) {
		err = fsx.WriteFile(filepath.Join(dir, in.name), data, fsx.Unsynced)
	}
	if err != nil {
		return fmt.Errorf("record the change: %w", err)
	}
	return nil
}

// removeIntent drops the record called name, and the directory when
// nothing else is pending there.
func removeIntent(dir, name string) {
	os.Remove(filepath.Join(dir, name))
	os.Remove(dir) // fails while other work is pending: kept
}

// diskName is the blob name of the file on disk at path, "" when there is
// none.
func (r *Repo) diskName(path string) (string, error) {
	data, err := os.ReadFile(filepath.Join(r.WorkTree, filepath.FromSlash(path)))
	if os.IsNotExist(err) || nameTooLong(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return hashObject(plumbing.BlobObject, data).String(), nil
}

// restore puts back the file on disk f recorded before the change.
func (r *Repo) restore(f intentFile) error {
	full := filepath.Join(r.WorkTree, filepath.FromSlash(f.Path))
	if f.WasGone {
		if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("restore %s: %w", f.Path, err)
		}
		return nil
	}
	data := f.WasData
	if f.Was != "" {
		var err error
		if data, err = r.readObject(plumbing.BlobObject, plumbing.NewHash(f.Was)); err != nil {
			return fmt.Errorf("restore %s: %w", f.Path, err)
		}
	}
	if err := fsx.WriteFile(full, data, fsx.SyncAll); err != nil {
		return fmt.Errorf("restore %s: %w", f.Path, err)
	}
	return nil
}

// rollBack puts back the files a change wrote on disk before it failed:
// those that still hold what it wrote. It returns the first error; the
// record stays then, for the next Update to try again.
func (r *Repo) rollBack(in *intent) error {
	var first error
	for _, f := range in.Files {
		now, err := r.diskName(f.Path)
		if err == nil && now != f.Is {
			continue // not what lore wrote: someone changed it since, or lore never got to it
		}
		if err == nil {
			err = r.restore(f)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// recoverIntent finishes or undoes the change an Update that was killed
// left recorded in dir, holding index.lock (*lock). When it puts a
// repaired index in place the lock is released by the rename; it is then
// taken again. It returns what it did, for the person.
func (r *Repo) recoverIntent(dir string, lock **lockFile, timeout time.Duration) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	var notices []string
	for _, e := range entries {
		if !IsIntentFile(e.Name()) {
			continue
		}
		// A writer that still runs has its change in place (it held
		// index.lock until then, and this Update holds it now) and is
		// about to remove its record.
		if pid := intentWriter(e.Name()); pid != 0 && pid != os.Getpid() && fsx.ProcessAlive(pid) {
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) < liveIntentAge {
				continue
			}
		}
		n, err := r.recoverOne(dir, e.Name(), lock, timeout)
		notices = append(notices, n...)
		if err != nil && Unreplayable(err) {
			// Never finished nor undone, it would stop every write after
			// it: it is kept aside for a person, and the writes go on.
			if serr := SetAside(dir, e.Name(), err.Error()); serr == nil {
				notices = append(notices, fmt.Sprintf("lore could not finish or undo a write a kill left unfinished (%v): it set its record aside in %s; lore validate reports it",
					err, filepath.Join(dir, SetAsideDir)))
				continue
			}
		}
		if err != nil {
			return notices, err
		}
	}
	return notices, nil
}

// SetAsideDir is the directory, in Options.PendingDir, that holds the
// records of changes that cannot be replayed: SetAside moves them there.
const SetAsideDir = "failed"

// Unreplayable says whether err, from replaying a recorded change (an
// intent record, or a change a caller queued in the same directory),
// is the change's own, which no wait cures: its path is one lore refuses
// to write (an UnsafePathError), one the file system refuses (a name too
// long, bytes it does not take, a file where a directory should be or the
// other way round), or an object it names is gone. A lock another process
// holds, a full disk or a permission are not: the record is kept, and the
// next command tries again.
func Unreplayable(err error) bool {
	var unsafe *UnsafePathError
	return errors.As(err, &unsafe) || errors.Is(err, ErrObjectNotFound) ||
		errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, syscall.EILSEQ) ||
		errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR)
}

// SetAside moves the record called name out of dir, into dir/failed/,
// with why in <name>.why beside it: a change that cannot be replayed no
// longer stops the ones after it, and is kept for a person to read (lore
// validate reports it), mend and move back, or delete.
func SetAside(dir, name, why string) error {
	aside := filepath.Join(dir, SetAsideDir)
	if err := fsx.WriteFile(filepath.Join(aside, name+".why"), []byte(strings.TrimSpace(why)+"\n"), fsx.SyncAll); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(dir, name), filepath.Join(aside, name)); err != nil {
		os.Remove(filepath.Join(aside, name+".why"))
		return fmt.Errorf("set aside %s: %w", filepath.Join(dir, name), err)
	}
	fsx.SyncDir(dir)
	return nil
}

// SetAsideRecord is a record SetAside moved.
type SetAsideRecord struct {
	Path string // where it is now
	Name string // its name, as it was in the pending directory
	Why  string
}

// SetAsideRecords lists the records set aside in dir, by name.
func SetAsideRecords(dir string) ([]SetAsideRecord, error) {
	aside := filepath.Join(dir, SetAsideDir)
	entries, err := os.ReadDir(aside)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []SetAsideRecord
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".why") || strings.HasPrefix(name, ".") {
			continue
		}
		rec := SetAsideRecord{Path: filepath.Join(aside, name), Name: name, Why: "(no reason was recorded)"}
		if why, err := os.ReadFile(rec.Path + ".why"); err == nil {
			rec.Why = strings.TrimSpace(string(why))
		}
		out = append(out, rec)
	}
	return out, nil
}

// recoverOne finishes or undoes the change of the record called name.
func (r *Repo) recoverOne(dir, name string, lock **lockFile, timeout time.Duration) ([]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, name), err)
	}
	var in intent
	if json.Unmarshal(data, &in) != nil || in.Version != 1 {
		removeIntent(dir, name) // a record cut short by a crash: nothing to go on
		return nil, nil
	}
	landed := false
	switch {
	case in.Commit != "":
		now, err := r.refValue(in.Ref)
		if err != nil {
			return nil, err
		}
		switch now.String() {
		case in.Commit:
			landed = true
		case in.Old:
		default:
			removeIntent(dir, name) // the branch went on elsewhere since: nothing is lore's to undo
			return nil, nil
		}
	case in.Mode == ModeStage.String():
		// Staged without a commit: the rename of the index was the end.
		idx, err := gitindex.Open(filepath.Join(r.GitDir, "index"))
		if err != nil {
			return nil, err
		}
		landed = true
		for _, f := range in.Files {
			if f.IndexIs != f.IndexWas && lookupString(idx, f.Path) != f.IndexIs {
				landed = false
			}
		}
		idx.Close()
	}
	var notices []string
	if landed {
		fixed, err := r.finishIndex(in, lock, timeout)
		if err != nil {
			return nil, err
		}
		if len(fixed) > 0 {
			notices = append(notices, fmt.Sprintf("lore was stopped after it committed %s and before it updated the index; the index now holds %s as committed", in.Commit[:7], strings.Join(fixed, ", ")))
		}
	} else {
		var undone []string
		idx, err := gitindex.Open(filepath.Join(r.GitDir, "index"))
		if err != nil {
			return nil, err
		}
		for _, f := range in.Files {
			now, err := r.diskName(f.Path)
			if err != nil {
				idx.Close()
				return nil, err
			}
			if now != f.Is || f.Staged && lookupString(idx, f.Path) != f.IndexWas {
				continue // changed since: it is someone's now
			}
			if err := r.restore(f); err != nil {
				idx.Close()
				return nil, err
			}
			undone = append(undone, f.Path)
		}
		idx.Close()
		if len(undone) > 0 {
			notices = append(notices, "lore was stopped before it committed a change; it put back "+strings.Join(undone, ", ")+" as they were")
		}
	}
	removeIntent(dir, name)
	return notices, nil
}

// lookupString is path's stage-0 entry as intentFile records it.
func lookupString(idx *gitindex.File, path string) string {
	e, ok := idx.Lookup(path)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%o %s", e.Mode, e.Hash)
}

// finishIndex gives the index the entries in recorded for a commit that
// landed, where the index still has the entries from before it. It
// returns the paths it changed.
func (r *Repo) finishIndex(in intent, lock **lockFile, timeout time.Duration) ([]string, error) {
	idx, err := gitindex.Open(filepath.Join(r.GitDir, "index"))
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	var fixed []string
	for _, f := range in.Files {
		if !f.Staged || f.IndexIs == f.IndexWas || lookupString(idx, f.Path) != f.IndexWas {
			continue
		}
		fixed = append(fixed, f.Path)
		if f.IndexIs == "" {
			idx.Remove(f.Path)
			continue
		}
		mode, hash, _ := strings.Cut(f.IndexIs, " ")
		entry := gitindex.Entry{Mode: parseOctalMode(mode), Hash: plumbing.NewHash(hash), Path: f.Path}
		if old, ok := idx.Lookup(f.Path); ok {
			entry.Flags = old.Flags & gitindex.FlagAssumeValid
			entry.ExtFlags = old.ExtFlags &^ gitindex.ExtFlagIntentToAdd
		}
		if now, err := r.diskName(f.Path); err == nil && f.Clean && now == f.Is {
			if st, err := fsx.Lstat(filepath.Join(r.WorkTree, filepath.FromSlash(f.Path))); err == nil {
				entry.SetStat(st)
			}
		}
		idx.Set(entry)
	}
	if len(fixed) == 0 {
		return nil, nil
	}
	if err := idx.CheckSum(); err != nil {
		return nil, err
	}
	if err := (*lock).writeWith(idx.Write); err != nil {
		return nil, err
	}
	if err := (*lock).prepare(false); err != nil {
		return nil, err
	}
	if err := (*lock).publish(); err != nil {
		return nil, err
	}
	next, err := acquireLock(filepath.Join(r.GitDir, "index"), timeout)
	if err != nil {
		return nil, err
	}
	*lock = next
	return fixed, nil
}

// refValue is what ref (a branch, or "HEAD" when detached) holds now.
func (r *Repo) refValue(ref string) (Hash, error) {
	if ref == "HEAD" {
		h, err := r.readHead()
		return h.Commit, err
	}
	h, _, err := r.readRef(ref)
	return h, err
}
