package fsx

import (
	"io"
	"os"
)

// readWhole reads a file into memory, where it cannot be mapped.
func readWhole(f *os.File, size int64) ([]byte, func(), error) {
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, nil, err
	}
	return data, func() {}, nil
}
