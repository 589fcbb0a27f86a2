//go:build linux

package bleveindex

import (
	"os"
	"syscall"
)

// statOf is what freshness compares of a file or directory: its times,
// inode and size. Any change to the file changes one of them.
func statOf(path string) (fileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return fileStat{}, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	return fileStat{
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		ino:   uint64(st.Ino),
		size:  st.Size,
		dir:   st.Mode&syscall.S_IFMT == syscall.S_IFDIR,
	}, nil
}

// lockFile takes an exclusive advisory lock on f without blocking; the
// kernel drops it when the process ends, so a crash leaves no stale lock.
func lockFile(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if err == syscall.EWOULDBLOCK {
		return false, nil
	}
	return err == nil, err
}
