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
