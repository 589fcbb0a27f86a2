//go:build unix

package fsx

import (
	"errors"
	"os"
	"slices"
	"strings"
	"syscall"
)

// ReadRegular reads the file at path if it is a regular file of at most
// limit bytes; otherwise it returns a *SkipError and reads nothing. A
// symbolic link as the last element of path is not followed (O_NOFOLLOW;
// see CheckDirs for the directories above it), and the file is opened
// without blocking (O_NONBLOCK: a FIFO with no writer would otherwise
// hang the open) and its type checked on the open descriptor, so a file
// swapped for a FIFO or a link after its directory was listed is not read
// either. It costs less than os.ReadFile: open, fstat, one read (the
// size the fstat gave, in a buffer a byte larger), close.
func ReadRegular(path string, limit int64) ([]byte, error) {
	fd, err := openNoFollow(path, syscall.O_RDONLY|syscall.O_NONBLOCK, false)
	if err != nil {
		return nil, err
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &SkipError{Path: path, Err: ErrNotRegular, Mode: modeType(uint32(st.Mode))}
	}
	if st.Size > limit {
		return nil, &SkipError{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	// One byte more than the size: a file that grew since the fstat is
	// read to its end (or to the limit) all the same.
	buf := make([]byte, st.Size+1)
	n := 0
	for {
		if n == len(buf) {
			if int64(n) > limit {
				return nil, &SkipError{Path: path, Err: ErrTooLarge, Limit: limit}
			}
			buf = slices.Grow(buf, int(min(int64(len(buf)), limit+1-int64(len(buf)))))
			buf = buf[:cap(buf)]
		}
		m, err := syscall.Read(fd, buf[n:])
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
		// All the fstat said, in a read that did not fill the buffer:
		// the end, without a read that returns nothing (a first search
		// in a clone reads 100,000 files).
		if n == int(st.Size) && n < len(buf) {
			break
		}
	}
	if int64(n) > limit {
		return nil, &SkipError{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	return buf[:n:n], nil
}

// OpenRegular opens the file at path for reading if it is a regular file,
// checked as ReadRegular checks it (no link followed, no FIFO waited for,
// the type taken from the open descriptor); otherwise it returns a
// *SkipError. It is ReadRegular for a file read as a stream, of any size.
func OpenRegular(path string) (*os.File, error) {
	fd, err := openNoFollow(path, syscall.O_RDONLY|syscall.O_NONBLOCK, false)
	if err != nil {
		return nil, err
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, &SkipError{Path: path, Err: ErrNotRegular, Mode: modeType(uint32(st.Mode))}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// ReadDir lists the directory at path, sorted by name, as os.ReadDir does,
// but a symbolic link as the last element of path is not followed: it is a
// *SkipError, as is a path that is not a directory.
func ReadDir(path string) ([]os.DirEntry, error) {
	fd, err := openNoFollow(path, syscall.O_RDONLY|syscall.O_DIRECTORY, true)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	entries, err := f.ReadDir(-1)
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// openNoFollow opens path with O_NOFOLLOW and O_CLOEXEC besides flags.
// When the open fails because of what path is (a link, a socket, not a
// directory), the error is a *SkipError that says what it is.
func openNoFollow(path string, flags int, dir bool) (int, error) {
	open := path
	if dir {
		// A trailing slash would make the kernel follow a link after all.
		open = strings.TrimRight(path, "/")
		if open == "" {
			open = "/"
		}
	}
	for {
		fd, err := syscall.Open(open, flags|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
		if err == nil {
			return fd, nil
		}
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		switch err {
		case syscall.ENOENT, syscall.EACCES, syscall.EPERM:
		default:
			// ELOOP (a link, EMLINK on the BSDs), ENOTDIR, ENXIO (a
			// socket): say what is there.
			if info, lerr := os.Lstat(open); lerr == nil {
				if serr := skipFor(path, info.Mode(), dir); serr != nil {
					return -1, serr
				}
			}
		}
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
}

// modeType turns a stat's mode into the fs.FileMode type bits.
func modeType(m uint32) os.FileMode {
	switch m & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return os.ModeDir
	case syscall.S_IFLNK:
		return os.ModeSymlink
	case syscall.S_IFIFO:
		return os.ModeNamedPipe
	case syscall.S_IFSOCK:
		return os.ModeSocket
	case syscall.S_IFCHR:
		return os.ModeDevice | os.ModeCharDevice
	case syscall.S_IFBLK:
		return os.ModeDevice
	}
	return 0
}
