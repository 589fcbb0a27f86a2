//go:build !linux

package bleveindex

// Detach does nothing here: the caller waits until the process ends.
func Detach() {}
