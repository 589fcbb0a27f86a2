//go:build unix

package gitx

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only, as C git maps its index: no copy, and
// pages come from the page cache as they are touched.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if size == 0 {
		return nil, func() {}, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return readWhole(f, size)
	}
	return data, func() { syscall.Munmap(data) }, nil
}

// mapWhole is mapFile for a file that will be read from end to end: the
// mapping is populated at once, which costs much less than faulting its
// pages in one by one.
func mapWhole(f *os.File, size int64) ([]byte, func(), error) {
	if size == 0 {
		return nil, func() {}, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
	if err != nil {
		return readWhole(f, size)
	}
	return data, func() { syscall.Munmap(data) }, nil
}
