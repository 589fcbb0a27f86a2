//go:build !linux

package bleveindex

import "os"

func statOf(path string) (fileStat, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return fileStat{}, err
	}
	return fileStat{mtime: info.ModTime().UnixNano(), size: info.Size(), dir: info.IsDir()}, nil
}

// lockFile on systems without flock: the write lock is not shared between
// processes there.
func lockFile(f *os.File) (bool, error) { return true, nil }

type dirent struct {
	name         string
	ino          uint64
	dir, symlink bool
}

// readDirents lists a directory; without inodes here, every file of a
// changed directory is stat'ed.
func readDirents(path string) ([]dirent, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	out := make([]dirent, 0, len(entries))
	for _, e := range entries {
		out = append(out, dirent{name: e.Name(), dir: e.IsDir(), symlink: e.Type()&os.ModeSymlink != 0})
	}
	return out, nil
}
