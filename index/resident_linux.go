package index

import (
	"fmt"
	"os"
	"syscall"
)

// maxSocketPath is the longest path a unix socket address holds
// (sun_path's 108 bytes, less its terminating NUL).
const maxSocketPath = 107

// SocketAddr is the address of the socket of the index in dir. A path too
// long for a socket address is reached through a descriptor of its
// directory (/proc/self/fd/N/serve.sock), held until release.
func SocketAddr(dir string) (addr string, release func(), err error) {
	p := socketPath(dir)
	if len(p) <= maxSocketPath {
		return p, func() {}, nil
	}
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return fmt.Sprintf("/proc/self/fd/%d/%s", fd, SocketFile), func() { syscall.Close(fd) }, nil
}

// dialResident connects to the unix socket at addr: a socket of the
// process's own, non-blocking so that its deadlines hold.
func dialResident(addr string) (*os.File, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	// A unix socket connects at once, or fails (EAGAIN: its backlog is
	// full), even when non-blocking.
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: addr})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: addr, Err: err}
	}
	return os.NewFile(uintptr(fd), addr), nil
}

// residentAttr detaches a resident lore-index from lore's session: a
// terminal that closes, or an interrupt meant for lore, does not reach
// it.
func residentAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// ResidentsWork says whether a resident lore-index can run here.
const ResidentsWork = true
