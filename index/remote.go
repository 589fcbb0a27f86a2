package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"

	"lore/internal/sibling"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// The bleve index lives in a second binary, lore-index: linking bleve adds
// 10–15 ms to the start of every process, which lore's write commands
// cannot afford. lore runs lore-index for search and index commands and
// talks to it in JSON: one Request on its stdin, one Response on its
// stdout; its stderr is lore's (progress, nothing else).

// Protocol is the version of Request and Response; lore and lore-index
// must agree on it (2: Query.Strict; 3: Query.LimitPerKind; 4:
// Report.Building; 5: OpBuild; 6: a resident lore-index, OpServe, OpStop,
// OpPing).
const Protocol = 6

// FormatVersion is the version of the index on disk: what is indexed and
// how, the manifest of what it holds and the seal of its files (5: the
// seal; 6: stack traces; 7: identifiers whole and by their parts; 8:
// English stems beside the words; 9: stems in a field of their own; 11:
// the identifiers inside an identifier, customer_id of
// orders.customer_id; 12: stems kept apart, index.Stem's apartFamilies).
// An index written with another version is rebuilt. Bump it whenever any
// of them changes.
const FormatVersion = 12

// HelperName is the name of the index binary.
const HelperName = "lore-index"

// Operations a Request can ask for.
const (
	OpSearch  = "search"
	OpStatus  = "status"
	OpRefresh = "refresh"
	OpRebuild = "rebuild"
	// OpBuild builds the index of a store whose index was never built:
	// lore answered the search by scanning (the answer comes first, see
	// Searcher.Search) and does not wait for an answer (Tell). lore-index
	// lowers its priority and builds the index if there is still none,
	// holding the write lock it inherited (Request.LockFD), so that from
	// before lore exits every other process waits for the build; without
	// one it takes the lock without waiting (Busy when another process
	// holds it).
	OpBuild = "build"
	// OpServe makes lore-index resident for the store (see
	// AskResident): it listens on the index directory's socket and
	// answers searches until it is idle, stopped or replaced. lore does
	// not wait for it (StartResident).
	OpServe = "serve"
	// OpStop asks a resident lore-index to go; OpPing asks it what it is
	// (Response.Resident). Only a resident answers them.
	OpStop = "stop"
	OpPing = "ping"
)

// Request is what lore asks lore-index.
type Request struct {
	Protocol int    `json:"protocol"`
	Op       string `json:"op"`
	// Root is the store root (holding .agent/), Dir the index directory.
	Root string `json:"root"`
	Dir  string `json:"dir"`
	// GitIndex is the git worktree's index file, Prefix the store root
	// relative to the worktree's top (both "" outside git).
	GitIndex string `json:"git_index,omitempty"`
	Prefix   string `json:"prefix,omitempty"`
	// Query is the search, for OpSearch.
	Query Query `json:"query"`
	// TimeoutMS bounds every wait for another process's lock.
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// Progress asks for a progress bar on stderr during a rebuild.
	Progress bool `json:"progress,omitempty"`
	// LockFD, for OpBuild, is the descriptor lore-index inherits holding
	// the index's write lock (0: none; lore-index takes the lock itself).
	LockFD int `json:"lock_fd,omitempty"`
	// Helper, to a resident lore-index, is the lore-index lore would
	// run: one that is not the resident's own executable is declined.
	Helper string `json:"helper,omitempty"`
}

// Response is lore-index's answer.
type Response struct {
	Protocol int     `json:"protocol"`
	Result   *Result `json:"result,omitempty"`
	Status   *Status `json:"status,omitempty"`
	Report   Report  `json:"report"`
	// Busy is set when another process held the index past the timeout.
	Busy bool `json:"busy,omitempty"`
	// Working is set when lore-index answered before it finished: it goes
	// on indexing the rest of the changes after letting lore go.
	Working bool   `json:"working,omitempty"`
	Error   string `json:"error,omitempty"`
	// Resident is a resident lore-index's answer to OpPing and OpStop.
	Resident *Resident `json:"resident,omitempty"`
}

// Report says what bringing the index up to date did.
type Report struct {
	// Rebuilt is set when the index was built from scratch, for Reason.
	Rebuilt bool   `json:"rebuilt,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Building, when set, says why the index is being built in the
	// background: a large store's search was answered by scanning the
	// files first (see bleveindex.Index.SearchThen).
	Building string `json:"building,omitempty"`
	// Files is how many entry files were read again.
	Files int `json:"files"`
	// Indexed and Removed count documents.
	Indexed int `json:"indexed"`
	Removed int `json:"removed"`
	// Warnings are the problems of the files that were read.
	Warnings []entry.Warning `json:"warnings,omitempty"`
	// LastError is what went wrong finishing an earlier update after its
	// search had been answered (see bleveindex.Serve), until an update
	// succeeds.
	LastError string `json:"last_error,omitempty"`
}

// Status is what `lore index status` shows.
type Status struct {
	Dir        string `json:"dir"`
	Format     int    `json:"format"`
	Documents  uint64 `json:"documents"`
	Files      int    `json:"files"`
	Fresh      bool   `json:"fresh"`
	StaleFiles int    `json:"stale_files"`
	// EveryFile is set when every file is checked before each search (a
	// small store); otherwise directories, memories.md and skills are.
	EveryFile bool `json:"every_file_checked"`
	// Problem says why there is no usable index ("" when there is one):
	// there is none yet, or it has another format.
	Problem string `json:"problem,omitempty"`
	// Damaged says what was found when the index's files are not what
	// lore wrote ("" when they are): every byte of them is checked.
	Damaged string `json:"damaged,omitempty"`
	// LastError is Report.LastError.
	LastError string `json:"last_error,omitempty"`
}

// StoreRequest is a request of op about store s.
func StoreRequest(s *mdstore.Store, op string) Request {
	gitIndex, prefix := s.GitIndex()
	return Request{Op: op, Root: s.Root(), Dir: Dir(s), GitIndex: gitIndex, Prefix: prefix}
}

// ErrNoHelper means lore-index is not installed (or LORE_INDEX=off).
var ErrNoHelper = errors.New(HelperName + " is not installed (go install ./cmd/...)")

// FindHelper locates lore-index: $LORE_INDEX (a path, or "off"), next to
// the running executable, or on PATH. A path that names no executable
// file is an error.
func FindHelper(getenv func(string) string) (string, error) {
	switch v := getenv("LORE_INDEX"); v {
	case "off", "scan":
		return "", ErrNoHelper
	case "":
	default:
		if _, err := exec.LookPath(v); err != nil {
			return "", fmt.Errorf("LORE_INDEX=%s: %w", v, err)
		}
		return v, nil
	}
	if p, ok := sibling.Find(HelperName); ok {
		return p, nil
	}
	return "", ErrNoHelper
}

// Call runs the helper with req and returns its response: Start, then
// Ask.
func Call(helper string, req Request, stderr io.Writer) (Response, error) {
	h, err := Start(helper, stderr)
	if err != nil {
		return Response{}, err
	}
	return h.Ask(req)
}

// Helper is a running lore-index waiting for its request.
type Helper struct {
	name   string
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	// copied is closed once the helper's stderr has been copied to its end.
	copied chan struct{}
	// claimed is set by Ask: a helper answers one request.
	claimed atomic.Bool
}

// Start runs the helper; stderr receives its progress output. Ask it
// once.
func Start(helper string, stderr io.Writer) (*Helper, error) {
	h := &Helper{name: helper, cmd: exec.Command(helper), copied: make(chan struct{})}
	var err error
	if h.stdin, err = h.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if h.stdout, err = h.cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	// The helper's stderr ends when it lets go of it, not only when it
	// exits: a file is handed over as it is (the helper lets go of its
	// copy), anything else is fed through a pipe read here to its end.
	var errW *os.File
	if f, ok := stderr.(*os.File); ok {
		h.cmd.Stderr = f
		close(h.copied)
	} else {
		var errR *os.File
		if errR, errW, err = os.Pipe(); err != nil {
			return nil, err
		}
		h.cmd.Stderr = errW
		go func() {
			io.Copy(stderr, errR)
			errR.Close()
			close(h.copied)
		}()
	}
	err = h.cmd.Start()
	if errW != nil {
		errW.Close()
	}
	if err != nil {
		h.stdin.Close()
		<-h.copied
		return nil, fmt.Errorf("%s failed: %v", helper, err)
	}
	return h, nil
}

// Ask sends req and returns the response. The helper may go on after
// answering (a search answered before all changes were indexed; see
// bleveindex.Serve): Ask then returns once the helper has answered and
// let go of its standard output and error, and its exit is collected in
// the background.
func (h *Helper) Ask(req Request) (Response, error) {
	if !h.claimed.CompareAndSwap(false, true) {
		return Response{}, fmt.Errorf("%s was asked twice", h.name)
	}
	req.Protocol = Protocol
	in, err := json.Marshal(req)
	if err != nil {
		h.stdin.Close()
		go h.cmd.Wait()
		return Response{}, err
	}
	_, werr := h.stdin.Write(in)
	h.stdin.Close()
	out, readErr := io.ReadAll(h.stdout)
	<-h.copied
	var resp Response
	if err := json.Unmarshal(out, &resp); err != nil {
		if runErr := h.cmd.Wait(); runErr != nil {
			return Response{}, fmt.Errorf("%s failed: %v", h.name, runErr)
		}
		if werr != nil || readErr != nil {
			return Response{}, fmt.Errorf("%s: %v", h.name, errors.Join(werr, readErr))
		}
		return Response{}, fmt.Errorf("%s answered something lore cannot read: %s", h.name, strings.TrimSpace(string(out)))
	}
	if resp.Working {
		go h.cmd.Wait()
	} else {
		h.cmd.Wait()
	}
	if resp.Protocol != Protocol {
		return Response{}, fmt.Errorf("%s speaks protocol %d, this lore %d: install both from the same source (go install ./cmd/...)", h.name, resp.Protocol, Protocol)
	}
	return resp, nil
}

// Tell runs the helper with req and does not wait for it, nor read what
// it says: its standard output and error are /dev/null, and nobody
// collects its exit but the process that inherits it once lore has gone.
// It is for a request that is answered by doing (index.OpBuild). lock,
// when not nil, is handed to the helper as Request.LockFD, and closed
// here: the helper then holds what lock held. wait waits for the helper
// to end. The helper starts at the lowest priority, so that it does not
// compete with lore's last steps.
func Tell(helper string, req Request, lock *os.File, wait bool) error {
	return launch(helper, req, lock, true, wait)
}

// StartResident runs the helper as the resident lore-index of the store
// req names (OpServe), in a session of its own, and returns once it
// listens — or has gone at once, finding another one serving the store.
func StartResident(helper string, req Request) error {
	req.Op = OpServe
	return launch(helper, req, nil, false, false)
}

// launch is Tell; lower starts the helper at the lowest priority, and a
// resident (OpServe) gets a session of its own.
func launch(helper string, req Request, lock *os.File, lower, wait bool) error {
	cmd := exec.Command(helper)
	if req.Op == OpServe {
		cmd.SysProcAttr = residentAttr()
	}
	if lock != nil {
		defer lock.Close()
		if runtime.GOOS != "windows" { // no descriptors but the three there
			cmd.ExtraFiles = []*os.File{lock}
			req.LockFD = 3
		}
	}
	req.Protocol = Protocol
	in, err := json.Marshal(req)
	if err != nil {
		return err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	// The request fits the pipe's buffer: it is written before the
	// helper starts, and the helper reads it to its end.
	_, err = w.Write(in)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	cmd.Stdin = r
	// A resident says on its standard output that it listens, then lets
	// go of it (or exits): lore waits for the end of that output.
	var listening, said *os.File
	if req.Op == OpServe {
		if listening, said, err = os.Pipe(); err != nil {
			return err
		}
		defer listening.Close()
		cmd.Stdout = said
	}
	// Started from a thread of the lowest priority (when lower), the
	// helper has it from its start-up on. The thread is never unlocked:
	// it ends with its goroutine, and lore's other threads keep theirs.
	started := make(chan error)
	go func() {
		if lower {
			runtime.LockOSThread()
			lowerThread()
		}
		started <- cmd.Start()
	}()
	err = <-started
	if said != nil {
		said.Close() // the resident holds its own copy, if it started
	}
	if err != nil {
		return fmt.Errorf("%s failed: %v", helper, err)
	}
	if listening != nil {
		io.Copy(io.Discard, listening)
	}
	if wait {
		return cmd.Wait()
	}
	go cmd.Wait()
	return nil
}
