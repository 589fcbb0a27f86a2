//go:build unix

package fsx

import (
	"errors"
	"syscall"
)

// ProcessAlive reports whether a process with this id exists.
func ProcessAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
