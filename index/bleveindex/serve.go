package bleveindex

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"lore/index"
)

// Serve answers one index.Request read from stdin with one index.Response
// on stdout: the whole of the lore-index program. stderr gets a progress
// bar during a rebuild when the request asks for one. The exit status is
// 0 whenever a response was written.
//
// A search that had changes to index is answered as soon as the entries
// it can find are searchable (Index.SearchThen); then detach, when set,
// lets the caller go (see Detach) while the rest of the changes are
// indexed and written. What goes wrong after the answer is kept in the
// index directory and told with the next answer (Report.LastError).
func Serve(stdin io.Reader, stdout, stderr io.Writer, detach func()) int {
	var req index.Request
	resp := index.Response{Protocol: index.Protocol}
	err := json.NewDecoder(stdin).Decode(&req)
	switch {
	case err != nil:
		resp.Error = "lore-index reads one JSON request on stdin; it is run by lore, not by hand: " + err.Error()
	case req.Protocol != index.Protocol:
		resp.Error = fmt.Sprintf("lore speaks protocol %d, this lore-index %d: install both from the same source (go install ./cmd/...)", req.Protocol, index.Protocol)
	default:
		answered := false
		answer := func(resp index.Response) bool {
			answered = true
			if err := json.NewEncoder(stdout).Encode(resp); err != nil {
				fmt.Fprintln(stderr, "lore-index:", err)
				return false
			}
			return true
		}
		trace("%s request read", req.Op)
		resp = serve(req, stderr, func(early index.Response) {
			if answer(early) && detach != nil {
				detach()
			}
			trace("answered; finishing the update")
		})
		trace("done")
		if answered {
			return 0
		}
	}
	if err := json.NewEncoder(stdout).Encode(resp); err != nil {
		fmt.Fprintln(stderr, "lore-index:", err)
		return 1
	}
	return 0
}

// serve carries out req and returns the response; a search may instead
// give it to early as soon as it is known, and the response returned is
// then dropped.
func serve(req index.Request, stderr io.Writer, early func(index.Response)) index.Response {
	if req.Op == index.OpRebuild {
		// A rebuild is long and allocates a lot: keep its peak memory
		// down rather than its garbage collection short.
		debug.SetGCPercent(100)
	}
	opts := Options{Timeout: time.Duration(req.TimeoutMS) * time.Millisecond, GitIndex: req.GitIndex, Prefix: req.Prefix}
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
			return resp
		}
		resp.Result = &res
		resp.Report.LastError = lastError
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
	return resp
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
