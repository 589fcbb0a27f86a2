package index

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// maxSocketPath is the longest path a unix socket address holds
// (sun_path's 108 bytes, less its terminating NUL).
const maxSocketPath = 107

// socketAddr is the address of the socket of the index in dir. A path too
// long for a socket address is reached through a descriptor of its
// directory (/proc/self/fd/N/serve.sock), held until release.
func socketAddr(dir string) (addr string, release func(), err error) {
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

// listenPrivate listens on a new socket at addr that only its owner may
// connect to: it is made with that mode, never looser for a moment.
func listenPrivate(addr string) (*net.UnixListener, error) {
	old := syscall.Umask(0o177)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	syscall.Umask(old)
	return l, err
}

// residentAttr detaches a resident lore-index from lore's session: a
// terminal that closes, or an interrupt meant for lore, does not reach
// it.
func residentAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// ResidentsWork says whether a resident lore-index can run here.
const ResidentsWork = true
