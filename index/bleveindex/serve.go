package bleveindex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"lore/index"
)

// ServeOptions are what the process running Serve decides.
type ServeOptions struct {
	// Detach, when set, lets the caller go once a search is answered
	// (cmd/internal/detach): the rest of the update goes on unwatched. It
	// also lets go of what the process inherited beyond its standard
	// descriptors, but those of keep (the lock of OpBuild), so that it
	// holds none of its starter's pipes while it goes on.
	Detach func(keep ...int)
	// Trace, when set, is a file each phase of the work is appended to
	// (see trace).
	Trace string
	// Lower, when set, lowers the process's priority: it runs after the
	// caller was let go and before an index is built in the background
	// (index.OpBuild, or a search of a large store whose index must be
	// built afresh), so that the build does not slow down what the
	// caller does with its answer.
	Lower func()
	// Exe is the running executable, for a resident lore-index
	// (index.OpServe, see Resident).
	Exe string
}

// Serve answers one index.Request read from stdin with one index.Response
// on stdout: the whole of the lore-index program. stderr gets a progress
// bar during a rebuild when the request asks for one. The error is non-nil
// only when no response could be written.
//
// A search that had changes to index is answered as soon as the entries
// it can find are searchable (Index.SearchThen); then opts.Detach lets the
// caller go while the rest of the changes are indexed and written. What
// goes wrong after the answer is kept in the index directory and told with
// the next answer (Report.LastError).
//
// Serve owns the process while it runs: bleve's own log lines (the
// standard logger's) go to the trace, or nowhere, never to stderr, which
// is lore's; a fault on a mapped file (a segment truncated while it is
// read) is a panic rather than a crash; and a panic becomes the error of
// the response, so that lore scans instead.
func Serve(stdin io.Reader, stdout, stderr io.Writer, opts ServeOptions) error {
	startTrace(opts.Trace)
	log.SetFlags(0)
	log.SetOutput(traceWriter{})
	debug.SetPanicOnFault(true)
	var req index.Request
	resp := index.Response{Protocol: index.Protocol}
	err := json.NewDecoder(stdin).Decode(&req)
	switch {
	case err != nil:
		resp.Error = "lore-index reads one JSON request on stdin; it is run by lore, not by hand: " + err.Error()
	case req.Protocol != index.Protocol:
		resp.Error = fmt.Sprintf("lore speaks protocol %d, this lore-index %d: install both from the same source (go install ./cmd/...)", req.Protocol, index.Protocol)
	case req.Op == index.OpServe:
		// lore waits until it listens (index.StartResident), then goes.
		return Resident(req, ResidentOptions{Exe: opts.Exe, Listening: func() {
			fmt.Fprintln(stdout, "listening")
			if opts.Detach != nil {
				opts.Detach()
			}
		}})
	default:
		answered := false
		var answerErr error
		answer := func(resp index.Response) bool {
			answered = true
			answerErr = json.NewEncoder(stdout).Encode(resp)
			return answerErr == nil
		}
		trace("%s request read", req.Op)
		if req.Op == index.OpBuild {
			// lore does not wait for an answer (index.Tell): it has
			// answered its search, and may be gone.
			if opts.Detach != nil {
				opts.Detach(req.LockFD)
			}
			if opts.Lower != nil {
				opts.Lower()
			}
		}
		resp, _ = serveRecovered(req, stderr, nil, func(early index.Response) {
			if answer(early) && opts.Detach != nil {
				opts.Detach()
			}
			if early.Report.Building != "" && opts.Lower != nil {
				opts.Lower()
				trace("answered; building at a low priority")
				return
			}
			trace("answered; finishing the update")
		})
		trace("done")
		if answered {
			return answerErr
		}
	}
	return json.NewEncoder(stdout).Encode(resp)
}

// serveRecovered is serve, with a panic — of bleve's, on data it did not
// expect, where no method of this package recovered it — made the
// response's error, and err errPanicked.
func serveRecovered(req index.Request, stderr io.Writer, watch *Watch, early func(index.Response)) (resp index.Response, err error) {
	defer func() {
		if p := recover(); p != nil {
			resp = index.Response{Protocol: index.Protocol, Error: fmt.Sprintf("lore-index failed: %v", p)}
			err = errPanicked
		}
	}()
	return serve(req, stderr, watch, early)
}

// errPanicked is serveRecovered's error after a panic: what the process
// holds may be half done, and a resident lore-index exits.
var errPanicked = errors.New("lore-index panicked")

// serve carries out req and returns the response; a search may instead
// give it to early as soon as it is known, and the response returned is
// then dropped. err is what went wrong, the response's error or, after an
// early answer, that of the update that followed it. watch is a resident
// lore-index's (Options.Watch).
func serve(req index.Request, stderr io.Writer, watch *Watch, early func(index.Response)) (index.Response, error) {
	opts := Options{Timeout: time.Duration(req.TimeoutMS) * time.Millisecond, GitIndex: req.GitIndex, Prefix: req.Prefix, Watch: watch}
	if req.Progress {
		opts.Progress = progressBar(stderr)
	}
	ix := New(req.Root, req.Dir, opts)
	resp := index.Response{Protocol: index.Protocol}
	var err error
	switch req.Op {
	case index.OpSearch:
		lastError := ix.dir.LastError()
		answered := false
		var res index.Result
		res, resp.Report, err = ix.SearchThen(req.Query, func(res index.Result, rep index.Report) {
			answered = true
			rep.LastError = lastError
			early(index.Response{Protocol: index.Protocol, Result: &res, Report: rep, Working: true})
		})
		if answered {
			// The caller has its answer: what is left to say is for the
			// next one.
			ix.dir.SetLastError(err)
			return resp, err
		}
		resp.Result = &res
		resp.Report.LastError = lastError
	case index.OpBuild:
		var held *os.File
		if req.LockFD > 0 {
			// Believed only if it is the lock file.
			held = os.NewFile(uintptr(req.LockFD), index.LockFile)
			got, err := held.Stat()
			want, werr := os.Stat(filepath.Join(req.Dir, index.LockFile))
			if err != nil || werr != nil || !os.SameFile(got, want) {
				held = nil
			}
		}
		resp.Report, err = ix.BuildUnbuilt(held)
	case index.OpStatus:
		var st index.Status
		st, err = ix.Status()
		resp.Status = &st
	case index.OpRefresh:
		resp.Report, err = ix.Refresh()
	case index.OpRebuild:
		resp.Report, err = ix.Rebuild("asked for")
		if err == nil {
			var st index.Status
			st, err = ix.Status()
			resp.Status = &st
		}
	default:
		err = fmt.Errorf("unknown operation %q", req.Op)
	}
	if errors.Is(err, ErrBusy) {
		resp.Busy = true
	}
	if err != nil {
		resp.Error = err.Error()
	}
	return resp, err
}

// progressBar draws "Indexing [#####     ] 1234/5678" on a terminal,
// redrawn in place, and ends the line when done.
func progressBar(w io.Writer) func(done, total int) {
	const width = 30
	return func(done, total int) {
		if total <= 0 {
			return
		}
		n := done * width / total
		fmt.Fprintf(w, "\rIndexing [%-*s] %d/%d files", width, strings.Repeat("#", n), done, total)
		if done >= total {
			fmt.Fprintln(w)
		}
	}
}
