//go:build !unix

package bleveindex

import (
	"errors"
	"net"
)

// listenResident fails: a resident lore-index needs unix sockets.
func listenResident(dir string) (*net.UnixListener, func() error, error) {
	return nil, nil, errors.ErrUnsupported
}
