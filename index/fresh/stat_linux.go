//go:build linux

package fresh

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// Stat is what freshness compares of a file or directory: its times,
// inode and size. Any change to the file Changes one of them.
func Stat(path string) (FileStat, error) {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return FileStat{}, &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	return FileStat{
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

// dirent is one entry of a directory listing: its name (valid only
// during the call it is handed to), its inode (0 when unknown) and whether
// it is a directory or a symbolic link.
type dirent struct {
	name         []byte
	ino          uint64
	dir, symlink bool
}

// listDir hands each entry of a directory to fn, with its inode, as the
// kernel returns them (getdents64) and without a stat per entry: a file
// replaced by a rename has a new inode, which is how a large directory is
// checked without stat'ing its files.
func listDir(path string, fn func(e dirent) error) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
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
			e := dirent{name: name, ino: ino, dir: typ == syscall.DT_DIR, symlink: typ == syscall.DT_LNK}
			if typ == syscall.DT_UNKNOWN {
				if st, err := Stat(path + "/" + string(name)); err == nil {
					e.dir = st.dir
				}
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
}

// mapFile maps f read-only: pages are read from the page cache as they
// are touched, so a large Manifest costs only the parts that are used.
func mapFile(f *os.File) ([]byte, func(), error) {
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if info.Size() == 0 {
		return nil, func() {}, nil
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(info.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, &os.PathError{Op: "mmap", Path: f.Name(), Err: err}
	}
	return data, func() { syscall.Munmap(data) }, nil
}

// Prefault readies n bytes of heap for the allocations that follow. Where
// a page fault is costly — on this project's CI machine, a virtual
// machine that shadows page tables, the first touch of a page costs
// ~11 µs, and indexing 100 files touches ~8 MB — mapping the pages with
// one madvise(MADV_POPULATE_WRITE) costs a quarter of faulting them in one
// by one (the JVM's AlwaysPreTouch, for one operation). The block is
// freed at once and collected; its pages stay with the process and are
// what the next allocations get. Run it beside other work: it takes a
// core for a few milliseconds.
func Prefault(n int) {
	if n <= 0 {
		return
	}
	b := make([]byte, n)
	syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(b))), uintptr(n), madvPopulateWrite)
	b = nil
	runtime.GC()
}

const madvPopulateWrite = 23 // MADV_POPULATE_WRITE, Linux 5.14
