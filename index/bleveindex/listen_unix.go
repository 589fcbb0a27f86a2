//go:build unix

package bleveindex

import (
	"net"
	"syscall"

	"lore/index"
)

// listenResident listens on the socket of the index in dir
// (index.SocketAddr), which must not exist, made readable and writable by
// its owner only — never looser for a moment. close stops listening and
// removes the socket.
func listenResident(dir string) (l *net.UnixListener, close func() error, err error) {
	addr, release, err := index.SocketAddr(dir)
	if err != nil {
		return nil, nil, err
	}
	old := syscall.Umask(0o177)
	l, err = net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		release()
		return nil, nil, err
	}
	return l, func() error {
		defer release()
		return l.Close() // removes the socket, through the same address
	}, nil
}
