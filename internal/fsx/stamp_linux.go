//go:build linux

package fsx

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Lstat stamps the file at path itself (a symbolic link is not followed).
func Lstat(path string) (Stamp, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return Stamp{}, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	return fromSys(&st), nil
}

// Fstat stamps an open file.
func Fstat(f *os.File) (Stamp, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return Stamp{}, &os.PathError{Op: "fstat", Path: f.Name(), Err: err}
	}
	return fromSys(&st), nil
}

func fromSys(st *syscall.Stat_t) Stamp {
	return Stamp{
		Mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		Ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
		Ino:   st.Ino,
		Size:  st.Size,
		Dir:   st.Mode&syscall.S_IFMT == syscall.S_IFDIR,
		Dev:   uint32(st.Dev),
		UID:   st.Uid,
		GID:   st.Gid,
	}
}

// Stamper stamps the files of one directory after another relative to an
// open descriptor of the directory, so that the kernel walks one name per
// file rather than the whole path. Symbolic links are not followed, as
// Lstat does: a link is stamped itself, and a directory that is a link is
// not opened (an error). Close it when done.
type Stamper struct {
	dir string
	fd  int
}

// NewStamper returns a Stamper with no directory open yet.
func NewStamper() *Stamper { return &Stamper{fd: -1} }

// Stamp stamps the file at path.
func (s *Stamper) Stamp(path string) (Stamp, error) {
	dir, name := filepath.Split(path)
	if dir != s.dir || s.fd < 0 {
		s.Close()
		fd, err := openNoFollow(dir, syscall.O_RDONLY|syscall.O_DIRECTORY, true)
		if err != nil {
			return Stamp{}, err
		}
		s.dir, s.fd = dir, fd
	}
	var st unix.Stat_t
	if err := unix.Fstatat(s.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return Stamp{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return Stamp{Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Size: st.Size,
		Dir: st.Mode&unix.S_IFMT == unix.S_IFDIR, Dev: uint32(st.Dev), UID: st.Uid, GID: st.Gid}, nil
}

// Close closes the directory the Stamper has open.
func (s *Stamper) Close() {
	if s.fd >= 0 {
		syscall.Close(s.fd)
	}
	s.dir, s.fd = "", -1
}
