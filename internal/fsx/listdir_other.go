//go:build !linux

package fsx

import "os"

// ListDir hands each entry of a directory to fn; without inodes here,
// a caller stats every file of a changed directory. A directory that is
// a symbolic link is not listed (a *SkipError).
func ListDir(path string, fn func(e Dirent) error) error {
	entries, err := ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		t := e.Type()
		if err := fn(Dirent{Name: []byte(e.Name()), Dir: e.IsDir(), Symlink: t&os.ModeSymlink != 0, Regular: t.IsRegular()}); err != nil {
			return err
		}
	}
	return nil
}
