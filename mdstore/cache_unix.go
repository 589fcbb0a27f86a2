//go:build linux

package mdstore

import (
	"os"
	"path/filepath"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// stamper stats the files of one directory after another, relative to
// the directory: the kernel walks one name per file, not the whole path.
type stamper struct {
	dir string
	fd  int
}

func (s *stamper) stamp(path string) (fileStamp, error) {
	dir, name := filepath.Split(path)
	if dir != s.dir || s.fd < 0 {
		s.close()
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return fileStamp{}, &os.PathError{Op: "open", Path: dir, Err: err}
		}
		s.dir, s.fd = dir, fd
	}
	var st unix.Stat_t
	if err := unix.Fstatat(s.fd, name, &st, 0); err != nil {
		return fileStamp{}, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	return fileStamp{mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: st.Ino, size: st.Size}, nil
}

func (s *stamper) close() {
	if s.fd >= 0 && s.dir != "" {
		syscall.Close(s.fd)
	}
	s.dir, s.fd = "", -1
}

func newStamper() *stamper { return &stamper{fd: -1} }

// mapCacheFile maps the cache read-only. The mapping is never released:
// the entries read from it point into it (cacheString), and the file is
// only ever replaced by a rename, never changed in place, so the mapped
// bytes stay what they were.
func mapCacheFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return nil, err
	}
	return syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
}

// cacheString is b as a string without a copy (b is in the mapped cache).
func cacheString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
