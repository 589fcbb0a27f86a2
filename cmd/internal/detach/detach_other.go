//go:build !linux

package detach

// Detach does nothing here: the caller waits until the process ends.
func Detach() {}

// Lower does nothing here.
func Lower() {}

// CloseInherited does nothing here.
func CloseInherited(keep ...int) {}
