//go:build !linux

package index

import (
	"errors"
	"net"
	"syscall"
)

func socketAddr(dir string) (string, func(), error) { return socketPath(dir), func() {}, nil }

func listenPrivate(addr string) (*net.UnixListener, error) { return nil, errors.ErrUnsupported }

func residentAttr() *syscall.SysProcAttr { return nil }

// ResidentsWork says whether a resident lore-index can run here: it needs
// inotify.
const ResidentsWork = false
