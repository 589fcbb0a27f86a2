//go:build !unix

package fsx

import "os"

// Map reads f whole: there is no mapping here.
func Map(f *os.File) ([]byte, func(), error) { return readAll(f) }

// MapPopulated reads f whole.
func MapPopulated(f *os.File) ([]byte, func(), error) { return readAll(f) }

func readAll(f *os.File) ([]byte, func(), error) {
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	return readWhole(f, info.Size())
}
