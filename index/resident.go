package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A resident lore-index (lore-index serve, opt-in: git config
// lore.indexServer true, or LORE_INDEX_SERVER=1) stays up after a search
// and answers the next ones over a unix socket in the index directory, so
// that a search costs no start of a process that links bleve and, on a
// small store, no stamp of every file: it hears of changes from the
// kernel (inotify). It serves one store, one request at a time; a request
// it cannot take (it is busy, or it is another build of lore-index than
// the one lore would run) is declined, and lore runs lore-index as
// without it. It goes when idle for ResidentIdle, when its socket is
// removed, when its executable is replaced, or when asked (lore index
// stop).

// Files of a resident lore-index in the index directory.
const (
	// SocketFile is where it listens, mode 0600.
	SocketFile = "serve.sock"
	// ResidentLockFile is held (flock) by the one resident of a store.
	ResidentLockFile = "serve.lock"
	// ResidentErrorFile says why the last resident could not listen (a
	// file system without sockets, say): lore starts no other one while
	// it is there, and lore index stop removes it.
	ResidentErrorFile = "serve.error"
)

// ResidentError is what keeps lore from starting a resident lore-index
// for the index in dir: why the last one could not listen ("" when
// nothing does).
func ResidentError(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, ResidentErrorFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// ResidentEnv is the environment variable that asks for a resident
// lore-index (1) or none (0) whatever git config lore.indexServer says.
const ResidentEnv = "LORE_INDEX_SERVER"

// ResidentIdle is how long a resident lore-index waits for a request
// before it exits.
const ResidentIdle = 10 * time.Minute

// residentWait bounds a whole exchange with a resident lore-index: a
// search that has a large change to index first (a pull) takes as long as
// lore-index run for it would; the bound is for one that hangs.
const residentWait = 2 * time.Minute

// ErrNoResident means no resident lore-index listens for the store.
var ErrNoResident = errors.New("no resident lore-index")

// Resident is what a resident lore-index says of itself (OpPing).
type Resident struct {
	PID      int       `json:"pid"`
	Started  time.Time `json:"started"`
	Requests int       `json:"requests"`
	// Watching says whether it hears of changes from the kernel; when it
	// does not (no inotify, or the kernel's limit of watches reached) it
	// stamps every file of a small store, as lore-index run for one
	// search does.
	Watching bool `json:"watching"`
}

// Declined is the error of a response in which a resident lore-index
// declines a request: lore then runs lore-index for it.
const Declined = "declined: "

// AskResident sends req to the resident lore-index of the index in dir,
// as lore would run helper for it, and returns its answer. The error is
// ErrNoResident when none listens, and another one when it declined or
// failed: lore then runs helper. lore reaches the socket without package
// net, whose resolver would make every lore process a dynamically linked
// one (1.5–2.5 ms more at start-up, lore add included).
func AskResident(dir, helper string, req Request) (Response, error) {
	addr, release, err := SocketAddr(dir)
	if err != nil {
		return Response{}, err
	}
	defer release()
	conn, err := dialResident(addr)
	if err != nil {
		return Response{}, fmt.Errorf("%w (%v)", ErrNoResident, err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(residentWait))
	req.Protocol, req.Helper = Protocol, helper
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return Response{}, err
	}
	var resp Response
	if err := json.NewDecoder(conn).Decode(&resp); err != nil {
		return Response{}, fmt.Errorf("the resident %s: %v", HelperName, err)
	}
	switch {
	case resp.Protocol != Protocol:
		return Response{}, fmt.Errorf("the resident %s speaks protocol %d, this lore %d", HelperName, resp.Protocol, Protocol)
	case strings.HasPrefix(resp.Error, Declined):
		return Response{}, errors.New(resp.Error)
	}
	return resp, nil
}

// socketPath is where the resident of the index in dir listens.
func socketPath(dir string) string { return filepath.Join(dir, SocketFile) }

// PingResident is what the resident lore-index of the index in dir says
// of itself; ErrNoResident when there is none.
func PingResident(dir string) (*Resident, error) { return askResident(dir, OpPing) }

// StopResident asks the resident lore-index of the index in dir to go,
// whichever lore-index it is, and returns once it no longer listens. It
// also forgets why the last one could not start (ResidentError).
func StopResident(dir string) (*Resident, error) {
	os.Remove(filepath.Join(dir, ResidentErrorFile))
	return askResident(dir, OpStop)
}

func askResident(dir, op string) (*Resident, error) {
	resp, err := AskResident(dir, "", Request{Op: op})
	if err != nil {
		return nil, err
	}
	if resp.Resident == nil {
		return nil, fmt.Errorf("the resident %s did not say what it is: %s", HelperName, resp.Error)
	}
	return resp.Resident, nil
}
