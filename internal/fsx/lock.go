package fsx

import (
	"errors"
	"os"
	"time"
)

// ErrLocked is returned by Lock when another process held the lock for
// longer than the caller was willing to wait.
var ErrLocked = errors.New("locked by another process")

// Lock's clock: how it waits between tries, and the time it gives up by.
// Its test replaces them.
var (
	lockSleep = time.Sleep
	lockNow   = time.Now
)

// Lock opens (creating it if needed) the lock file at path and takes an
// advisory lock on it, shared or exclusive, waiting at most timeout for
// another process to let go; after that it returns ErrLocked. unlock
// releases the lock; so does the end of the process, so a crash leaves no
// stale lock.
func Lock(path string, exclusive bool, timeout time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	deadline := lockNow().Add(timeout)
	for {
		ok, err := TryLock(f, exclusive)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return func() { f.Close() }, nil
		}
		if lockNow().After(deadline) {
			f.Close()
			return nil, ErrLocked
		}
		lockSleep(2 * time.Millisecond)
	}
}
