//go:build unix

package loretest

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on the file at path (made if missing),
// waiting for as long as another process holds it; unlock lets go, and so
// does the end of the process.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
