package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"lore/mdstore"
)

// The bleve index lives in a second binary, lore-index: linking bleve adds
// 10–15 ms to the start of every process, which lore's write commands
// cannot afford. lore runs lore-index for search and index commands and
// talks to it in JSON: one Request on its stdin, one Response on its
// stdout; its stderr is lore's (progress, nothing else).

// Protocol is the version of Request and Response; lore and lore-index
// must agree on it.
const Protocol = 1

// FormatVersion is the version of the index on disk: what is indexed and
// how, and the manifest of what it holds. An index written with another
// version is rebuilt. Bump it whenever either changes.
const FormatVersion = 4

// HelperName is the name of the index binary.
const HelperName = "lore-index"

// Operations a Request can ask for.
const (
	OpSearch  = "search"
	OpStatus  = "status"
	OpRebuild = "rebuild"
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
}

// Report says what bringing the index up to date did.
type Report struct {
	// Rebuilt is set when the index was built from scratch, for Reason.
	Rebuilt bool   `json:"rebuilt,omitempty"`
	Reason  string `json:"reason,omitempty"`
	// Files is how many entry files were read again.
	Files int `json:"files"`
	// Indexed and Removed count documents.
	Indexed int `json:"indexed"`
	Removed int `json:"removed"`
	// Warnings are the problems of the files that were read.
	Warnings []mdstore.Warning `json:"warnings,omitempty"`
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
	// Problem says why there is no usable index ("" when there is one).
	Problem string `json:"problem,omitempty"`
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
// the running executable, or on PATH.
func FindHelper(getenv func(string) string) (string, error) {
	switch v := getenv("LORE_INDEX"); v {
	case "off", "scan":
		return "", ErrNoHelper
	case "":
	default:
		return v, nil
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), HelperName)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		}
	}
	if p, err := exec.LookPath(HelperName); err == nil {
		return p, nil
	}
	return "", ErrNoHelper
}

// Call runs the helper with req and returns its response. stderr receives
// the helper's progress output. The helper may go on after answering (a
// search answered before all changes were indexed; see
// bleveindex.Serve): Call then returns once the helper has answered and
// let go of its standard output and error, and collects its exit in the
// background.
func Call(helper string, req Request, stderr io.Writer) (Response, error) {
	req.Protocol = Protocol
	in, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	cmd := exec.Command(helper)
	cmd.Stdin = bytes.NewReader(in)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return Response{}, err
	}
	// The helper's stderr ends when it lets go of it, not only when it
	// exits: a file is handed over as it is (the helper lets go of its
	// copy), anything else is fed through a pipe read here to its end.
	copied := make(chan struct{})
	var errW *os.File
	if f, ok := stderr.(*os.File); ok {
		cmd.Stderr = f
		close(copied)
	} else {
		var errR *os.File
		if errR, errW, err = os.Pipe(); err != nil {
			return Response{}, err
		}
		cmd.Stderr = errW
		go func() {
			io.Copy(stderr, errR)
			errR.Close()
			close(copied)
		}()
	}
	err = cmd.Start()
	if errW != nil {
		errW.Close()
	}
	if err != nil {
		<-copied
		return Response{}, fmt.Errorf("%s failed: %v", helper, err)
	}
	out, readErr := io.ReadAll(stdout)
	<-copied
	var resp Response
	if err := json.Unmarshal(out, &resp); err != nil {
		if runErr := cmd.Wait(); runErr != nil {
			return Response{}, fmt.Errorf("%s failed: %v", helper, runErr)
		}
		if readErr != nil {
			return Response{}, fmt.Errorf("%s: %v", helper, readErr)
		}
		return Response{}, fmt.Errorf("%s answered something lore cannot read: %s", helper, strings.TrimSpace(string(out)))
	}
	if resp.Working {
		go cmd.Wait()
	} else {
		cmd.Wait()
	}
	if resp.Protocol != Protocol {
		return Response{}, fmt.Errorf("%s speaks protocol %d, this lore %d: install both from the same source (go install ./cmd/...)", helper, resp.Protocol, Protocol)
	}
	return resp, nil
}
