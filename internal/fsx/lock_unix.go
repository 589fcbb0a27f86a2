//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// TryLock takes an advisory lock on f without waiting, shared or
// exclusive, and reports whether it got it. The kernel drops the lock when
// f is closed or the process ends, so a crash leaves no stale lock.
func TryLock(f *os.File, exclusive bool) (bool, error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return false, nil
	}
	return err == nil, err
}
