//go:build linux

package fsx

import (
	"bytes"
	"encoding/binary"
	"os"
	"syscall"
)

// ListDir hands each entry of a directory to fn, with its inode and type,
// in the order the kernel returns them (getdents64) and without a stat
// per entry: a file replaced by a rename has a new inode, which is how a
// large directory is checked without stat'ing its files. A directory that
// is a symbolic link is not listed (a *SkipError).
func ListDir(path string, fn func(e Dirent) error) error {
	fd, err := openNoFollow(path, syscall.O_RDONLY|syscall.O_DIRECTORY, true)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	buf := make([]byte, 32<<10)
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err != nil {
			return &os.PathError{Op: "readdirent", Path: path, Err: err}
		}
		if n <= 0 {
			return nil
		}
		for b := buf[:n]; len(b) >= 19; {
			ino := binary.NativeEndian.Uint64(b[0:8])
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				break
			}
			typ := b[18]
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if ino == 0 || string(name) == "." || string(name) == ".." {
				continue
			}
			e := Dirent{Name: name, Ino: ino, Dir: typ == syscall.DT_DIR, Symlink: typ == syscall.DT_LNK, Regular: typ == syscall.DT_REG}
			if typ == syscall.DT_UNKNOWN {
				if info, err := os.Lstat(path + "/" + string(name)); err == nil {
					t := info.Mode().Type()
					e.Dir, e.Symlink, e.Regular = t.IsDir(), t&os.ModeSymlink != 0, t.IsRegular()
				}
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
}
