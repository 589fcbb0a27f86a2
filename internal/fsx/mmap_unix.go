//go:build unix

package fsx

import (
	"os"
	"syscall"
)

// Map maps f read-only, as C git maps its index: no copy, and pages come
// from the page cache as they are touched, so a large file costs only the
// parts that are read. release unmaps it; until then the bytes stay as
// they were when mapped as long as the file is only ever replaced by a
// rename, never changed in place. Where the file cannot be mapped it is
// read whole.
func Map(f *os.File) (data []byte, release func(), err error) {
	return mapFile(f, 0)
}

// MapPopulated is Map for a file that will be read from end to end: the
// mapping is populated at once, which costs much less than faulting its
// pages in one by one.
func MapPopulated(f *os.File) (data []byte, release func(), err error) {
	return mapFile(f, mapPopulate)
}

func mapFile(f *os.File, flags int) ([]byte, func(), error) {
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := info.Size()
	if size == 0 {
		return nil, func() {}, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|flags)
	if err != nil {
		return readWhole(f, size)
	}
	return data, func() { syscall.Munmap(data) }, nil
}
