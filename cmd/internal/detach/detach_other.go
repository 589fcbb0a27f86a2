//go:build !linux

package detach

// Detach does nothing here: the caller waits until the process ends.
func Detach(keep ...int) {}

// Lower does nothing here.
func Lower() {}
