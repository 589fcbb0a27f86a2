//go:build !linux

package fresh

import (
	"io"
	"os"
)

func Stat(path string) (FileStat, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return FileStat{}, err
	}
	return FileStat{mtime: info.ModTime().UnixNano(), size: info.Size(), dir: info.IsDir()}, nil
}

// lockFile on systems without flock: the write lock is not shared between
// processes there.
func lockFile(f *os.File) (bool, error) { return true, nil }

type dirent struct {
	name         []byte
	ino          uint64
	dir, symlink bool
}

// listDir hands each entry of a directory to fn; without inodes here,
// every file of a changed directory is stat'ed.
func listDir(path string, fn func(e dirent) error) error {
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := fn(dirent{name: []byte(e.Name()), dir: e.IsDir(), symlink: e.Type()&os.ModeSymlink != 0}); err != nil {
			return err
		}
	}
	return nil
}

// mapFile reads f whole.
func mapFile(f *os.File) ([]byte, func(), error) {
	data, err := io.ReadAll(f)
	return data, func() {}, err
}

// Prefault does nothing here.
func Prefault(n int) {}
