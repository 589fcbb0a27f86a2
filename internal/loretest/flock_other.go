//go:build !unix

package loretest

// lockFile locks nothing where there is no flock(2): two test packages
// may then build the programs at once, and the second rename finds the
// first's in place.
func lockFile(path string) (unlock func(), err error) { return func() {}, nil }
