//go:build !unix

package gitx

import "os"

func mapFile(f *os.File, size int64) ([]byte, func(), error) { return readWhole(f, size) }

func mapWhole(f *os.File, size int64) ([]byte, func(), error) { return readWhole(f, size) }
