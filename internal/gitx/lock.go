package gitx

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"lore/internal/gitx/gitindex"
)

// LockError reports a lock file that stayed in place for the whole wait.
// lore never removes another process's lock: if no git process is running,
// the lock was left by a crash and the person removes it.
type LockError struct {
	Path   string        // the .lock file
	Waited time.Duration // how long lore waited
	Age    time.Duration // how old the lock file is, when known
}

func (e *LockError) Error() string {
	age := ""
	if e.Age > 0 {
		age = fmt.Sprintf(", created %s ago", e.Age.Round(time.Second))
	}
	return fmt.Sprintf("%s exists (waited %s%s): another git process seems to be running in this repository; "+
		"if none is, a crashed process left it behind: remove %s and try again",
		e.Path, e.Waited.Round(time.Millisecond), age, e.Path)
}

// lockFile is a git-compatible lock: "<target>.lock" created with O_EXCL,
// written, then renamed over target to commit or removed to roll back.
type lockFile struct {
	target string
	path   string
	f      *os.File
}

// acquireLock creates target+".lock", waiting with jittered exponential
// backoff while another process holds it, for at most timeout.
func acquireLock(target string, timeout time.Duration) (*lockFile, error) {
	path := target + ".lock"
	start := time.Now()
	backoff := time.Millisecond
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return &lockFile{target: target, path: path, f: f}, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		waited := time.Since(start)
		if waited >= timeout {
			lerr := &LockError{Path: path, Waited: waited}
			if info, err := os.Stat(path); err == nil {
				lerr.Age = time.Since(info.ModTime())
			}
			return nil, lerr
		}
		sleep := backoff/2 + rand.N(backoff)
		if remaining := timeout - waited; sleep > remaining {
			sleep = remaining
		}
		time.Sleep(sleep)
		if backoff < 64*time.Millisecond {
			backoff *= 2
		}
	}
}

// write replaces the lock file's content.
func (l *lockFile) write(data []byte) error {
	return l.writeWith(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeWith replaces the lock file's content with what write produces.
func (l *lockFile) writeWith(write func(io.Writer) error) error {
	if l.f == nil { // closed by prepare: writing again, for a retry
		f, err := os.OpenFile(l.path, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("write %s: %w", l.path, err)
		}
		l.f = f
	}
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if _, err := l.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	if err := write(l.f); err != nil {
		return fmt.Errorf("write %s: %w", l.path, err)
	}
	return nil
}

// prepare closes the lock file, first making its content durable when
// durable is set; the lock is still held.
func (l *lockFile) prepare(durable bool) error {
	if l.f == nil {
		return nil
	}
	var err error
	if durable {
		err = l.f.Sync()
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("sync %s: %w", l.path, err)
	}
	return nil
}

// publish renames the prepared lock file over its target, releasing the
// lock. The rename is made durable by a later fsx.SyncDir of the directory.
func (l *lockFile) publish() error {
	if err := os.Rename(l.path, l.target); err != nil {
		return fmt.Errorf("rename %s: %w", l.path, err)
	}
	// The lock path is free now and may be another process's next lock:
	// a later rollback must not remove it.
	l.path = ""
	return nil
}

// rollback removes the lock file, leaving the target as it was. It is safe
// to call after commit.
func (l *lockFile) rollback() {
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	if l.path != "" {
		os.Remove(l.path)
		l.path = ""
	}
}

// HoldLock takes target+".lock" the way git takes its lock files
// (waiting at most timeout, a LockError past it) and returns what lets
// go of it: for locks of lore's own beside git's, such as the one
// Options.DeferTo names.
func HoldLock(target string, timeout time.Duration) (release func(), err error) {
	l, err := acquireLock(target, timeout)
	if err != nil {
		return nil, err
	}
	return l.rollback, nil
}

// editIndex changes git's index under index.lock: edit is given the index
// as the file holds it and says whether it changed it. A change is
// written back, the objects it names flushed first; none (or an error)
// leaves the index as it was.
func (r *Repo) editIndex(timeout time.Duration, edit func(idx *gitindex.File) (changed bool, err error)) error {
	indexPath := filepath.Join(r.GitDir, "index")
	lock, err := acquireLock(indexPath, timeout)
	if err != nil {
		return err
	}
	defer lock.rollback() // a no-op once published
	idx, err := gitindex.Open(indexPath)
	if err != nil {
		return err
	}
	defer idx.Close()
	defer r.discardObjects() // those not flushed
	changed, err := edit(idx)
	if err != nil || !changed {
		return err
	}
	// The blobs in place before the index names them.
	if err := r.flushObjects(); err != nil {
		return err
	}
	if err := lock.writeWith(idx.Write); err != nil {
		return err
	}
	if err := lock.prepare(false); err != nil {
		return err
	}
	return lock.publish()
}
