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

// listDir hands each entry of a directory to fn, with its inode and type,
// as the kernel returns them (getdents64) and without a stat per entry: a
// file replaced by a rename has a new inode, which is how a large
// directory is checked without stat'ing its files. A directory that is a
// symbolic link is not listed (O_NOFOLLOW).
func listDir(path string, fn func(e dirent) error) error {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
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
			e := dirent{name: name, ino: ino, dir: typ == syscall.DT_DIR, symlink: typ == syscall.DT_LNK, regular: typ == syscall.DT_REG}
			if typ == syscall.DT_UNKNOWN {
				if info, err := os.Lstat(path + "/" + string(name)); err == nil {
					t := info.Mode().Type()
					e.dir, e.symlink, e.regular = t.IsDir(), t&os.ModeSymlink != 0, t.IsRegular()
				}
			}
			if err := fn(e); err != nil {
				return err
			}
		}
	}
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
