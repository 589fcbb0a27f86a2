//go:build !linux

package index

// lowerThread does nothing here: the helper lowers its own priority once
// it has read its request.
func lowerThread() {}
