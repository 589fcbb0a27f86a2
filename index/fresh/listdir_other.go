//go:build !linux

package fresh

import "os"

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

// Prefault does nothing here.
func Prefault(n int) {}
