//go:build !linux

package fresh

import (
	"os"

	"lore/internal/fsx"
)

// listDir hands each entry of a directory to fn; without inodes here,
// every file of a changed directory is stat'ed. A directory that is a
// symbolic link is not listed (an fsx.SkipError).
func listDir(path string, fn func(e dirent) error) error {
	entries, err := fsx.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		t := e.Type()
		if err := fn(dirent{name: []byte(e.Name()), dir: e.IsDir(), symlink: t&os.ModeSymlink != 0, regular: t.IsRegular()}); err != nil {
			return err
		}
	}
	return nil
}

// Prefault does nothing here.
func Prefault(n int) {}
