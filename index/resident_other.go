//go:build !linux

package index

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
)

// SocketAddr is the socket's path: there is no resident here.
func SocketAddr(dir string) (string, func(), error) {
	return filepath.Join(dir, SocketFile), func() {}, nil
}

func dialResident(addr string) (*os.File, error) { return nil, errors.ErrUnsupported }

func residentAttr() *syscall.SysProcAttr { return nil }

// ResidentsWork says whether a resident lore-index can run here: it needs
// inotify.
const ResidentsWork = false
