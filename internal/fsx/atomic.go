package fsx

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Durability says how much of a replacement must survive a crash.
type Durability int

const (
	// Unsynced: derived state (a cache, a manifest) that is checked when
	// read and rebuilt when wrong. Nothing is fsynced: after a crash the
	// file is its old or its new content, or unreadable.
	Unsynced Durability = iota
	// SyncData: the new content is fsynced before the rename; the caller
	// makes the rename durable with one SyncDir after several of them.
	SyncData
	// SyncAll: the content, then the directory. Once the call returns, the
	// new file survives a crash.
	SyncAll
)

// WriteFile replaces path with data: a temporary file in the same
// directory is written, synced as d says and renamed over path, so a
// reader sees the old content or the new one, never a mix. An existing
// file keeps its mode; a new one gets 0666 narrowed by the umask, as git's
// files do. Missing directories are created.
func WriteFile(path string, data []byte, d Durability) error {
	p, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := p.File().Write(data); err != nil {
		p.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return p.Commit(d)
}

// Pending is the next version of a file, written beside it until Commit
// puts it in place (or Abort drops it).
type Pending struct {
	path, tmp string
	f         *os.File
	perm      os.FileMode
	keepMode  bool // path existed: its mode is restored after the umask
}

// Create starts the next version of path: a new temporary file in the
// same directory, ".<name>.lore-<pid>-<n>.tmp" (TempPattern, which the
// .agent/.gitignore lore init writes keeps out of git status), which a
// later replacement of a file in that directory removes if its process
// died.
func Create(path string) (*Pending, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	p := &Pending{path: path, perm: 0o666}
	if info, err := os.Stat(path); err == nil {
		p.perm, p.keepMode = info.Mode().Perm(), true
	}
	for i := 0; ; i++ {
		p.tmp = filepath.Join(dir, tempName(filepath.Base(path), os.Getpid(), i))
		f, err := os.OpenFile(p.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, p.perm)
		if err == nil {
			p.f = f
			return p, nil
		}
		if !os.IsExist(err) || i > 100 {
			return nil, fmt.Errorf("write %s: %w", path, err)
		}
	}
}

func tempName(base string, pid, n int) string {
	return fmt.Sprintf(".%s.lore-%d-%d.tmp", base, pid, n)
}

// TempPattern matches the names of Create's temporary files, as a
// .gitignore line: git ignores them where one says so.
const TempPattern = ".*.lore-*.tmp"

// IsTemp says whether name (a base name) is one of Create's temporary
// files, whichever process made it: a reader of a directory skips it.
func IsTemp(name string) bool {
	_, ok := tempWriter(name)
	return ok
}

// tempWriter is the process that made the temporary file called name.
func tempWriter(name string) (pid int, ok bool) {
	if !strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".tmp") {
		return 0, false
	}
	rest := strings.TrimSuffix(name, ".tmp")
	at := strings.LastIndex(rest, ".lore-")
	if at <= 0 { // ".<name>.lore-<pid>-<n>.tmp"
		return 0, false
	}
	pidText, n, ok := strings.Cut(rest[at+len(".lore-"):], "-")
	pid, err := strconv.Atoi(pidText)
	if _, nerr := strconv.Atoi(n); !ok || err != nil || nerr != nil {
		return 0, false
	}
	return pid, true
}

// MaxNameBytes is the longest file name WriteFile can replace: the 255
// bytes a file system takes for one name (ext4, APFS, NTFS in UTF-16
// units), less the room Create's temporary name adds to it — a leading
// dot and ".lore-<pid>-<n>.tmp". A longer name fails with "file name too
// long" after the write began.
const MaxNameBytes = 255 - len(".") - len(".lore-") - 10 - len("-") - 3 - len(".tmp")

// File is the temporary file to write the next version to.
func (p *Pending) File() *os.File { return p.f }

// Close closes the temporary file, which Commit still puts in place; it
// may be called more than once.
func (p *Pending) Close() error {
	if p.f == nil {
		return nil
	}
	err := p.f.Close()
	p.f = nil
	return err
}

// Commit puts the next version in place, synced as d says. On error the
// temporary file is removed and path is as it was.
func (p *Pending) Commit(d Durability) error {
	var err error
	if p.f != nil {
		if d != Unsynced {
			err = p.f.Sync()
		}
		if cerr := p.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil && p.keepMode {
		err = os.Chmod(p.tmp, p.perm) // the umask may have narrowed it
	}
	if err == nil {
		err = os.Rename(p.tmp, p.path)
	}
	if err != nil {
		os.Remove(p.tmp)
		return fmt.Errorf("write %s: %w", p.path, err)
	}
	dir := filepath.Dir(p.path)
	if d == SyncAll {
		SyncDir(dir)
	}
	sweepOrphans(dir)
	return nil
}

// Abort drops the next version.
func (p *Pending) Abort() {
	p.Close()
	os.Remove(p.tmp)
}

// SyncDir makes the renames and creations in dir durable. Errors are
// ignored: some file systems cannot sync a directory, and there is nothing
// better to do then.
func SyncDir(dir string) {
	if f, err := os.Open(dir); err == nil {
		f.Sync()
		f.Close()
	}
}

// cleaned holds the directories whose orphans this process removed.
var cleaned sync.Map

// sweepOrphans starts removeOrphans(dir) beside the caller's next steps,
// once per directory per process: a write of 10,000 files into one
// directory lists it once, not 10,000 times. Listing a directory of
// 25,000 files takes the kernel 7–12 ms, a tenth of a learning's add in
// such a store, and nothing a write does next depends on it.
func sweepOrphans(dir string) {
	if _, done := cleaned.LoadOrStore(dir, true); done {
		return
	}
	sweeping.Add(1)
	go func() {
		defer sweeping.Done()
		removeOrphans(dir)
	}()
}

// sweeping counts the sweeps under way.
var sweeping sync.WaitGroup

// Settle waits for the sweeps of orphaned temporary files this process
// started. A process that exits without it loses nothing: the next one
// to write in the directory sweeps it again.
func Settle() { sweeping.Wait() }

// removeOrphans deletes the temporary files that killed lore processes
// left in dir, beside any file, so that they do not linger (in git
// status, for one). A file whose process still runs is left alone.
func removeOrphans(dir string) {
	// The names as the directory gives them, unsorted and unmatched by
	// a pattern.
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, base := range names {
		pid, ok := tempWriter(base)
		if !ok || pid == os.Getpid() || ProcessAlive(pid) {
			continue
		}
		os.Remove(filepath.Join(dir, base))
	}
}

// SyncFiles makes the files at paths durable, written and closed
// through other descriptors: an fsync of each, or, from syncTogetherFrom
// files on, one syncfs(2) of the file system holding the first (where
// there is one) — thousands of fsyncs cost an import more than its writes.
func SyncFiles(paths []string) error {
	if len(paths) >= syncTogetherFrom && SyncFileSystem(filepath.Dir(paths[0])) {
		return nil
	}
	for _, p := range paths {
		if err := syncFile(p); err != nil {
			return err
		}
	}
	return nil
}

// syncFile makes the file at path durable.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncTogetherFrom is how many files SyncFiles (and so WriteFiles) syncs
// with one syncfs(2) rather than an fsync each.
const syncTogetherFrom = 256

// WriteFiles replaces each paths[i] with data[i] as WriteFile(…, SyncData)
// does, in order, calling done(i) once it is in place. From
// syncTogetherFrom files on, every new content is written and closed
// first and made durable together (one syncfs(2) where there is one)
// before the first rename: an import of 100,000 files pays neither
// 100,000 fsyncs nor 100,000 open files. On error the files not yet in
// place are as they were, and no temporary file is left.
func WriteFiles(paths []string, data [][]byte, done func(i int)) error {
	if len(paths) < syncTogetherFrom {
		for i, p := range paths {
			if err := WriteFile(p, data[i], SyncData); err != nil {
				return err
			}
			done(i)
		}
		return nil
	}
	pending := make([]*Pending, 0, len(paths))
	abort := func() {
		for _, p := range pending {
			p.Abort()
		}
	}
	for i, path := range paths {
		p, err := Create(path)
		if err != nil {
			abort()
			return err
		}
		pending = append(pending, p)
		_, err = p.File().Write(data[i])
		if cerr := p.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			abort()
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	tmps := make([]string, len(pending))
	for i, p := range pending {
		tmps[i] = p.tmp
	}
	if err := SyncFiles(tmps); err != nil {
		abort()
		return fmt.Errorf("write %s: %w", filepath.Dir(paths[0]), err)
	}
	for i, p := range pending {
		if err := p.Commit(Unsynced); err != nil {
			for _, rest := range pending[i+1:] {
				rest.Abort()
			}
			return err
		}
		done(i)
	}
	return nil
}
