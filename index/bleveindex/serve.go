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
func Serve(stdin io.Reader, stdout, stderr io.Writer) int {
	var req index.Request
	resp := index.Response{Protocol: index.Protocol}
	err := json.NewDecoder(stdin).Decode(&req)
	switch {
	case err != nil:
		resp.Error = "lore-index reads one JSON request on stdin; it is run by lore, not by hand: " + err.Error()
	case req.Protocol != index.Protocol:
		resp.Error = fmt.Sprintf("lore speaks protocol %d, this lore-index %d: install both from the same source (go install ./cmd/...)", req.Protocol, index.Protocol)
	default:
		resp = serve(req, stderr)
	}
	if err := json.NewEncoder(stdout).Encode(resp); err != nil {
		fmt.Fprintln(stderr, "lore-index:", err)
		return 1
	}
	return 0
}

func serve(req index.Request, stderr io.Writer) index.Response {
	if req.Op == index.OpRebuild {
		// A rebuild is long and allocates a lot: keep its peak memory
		// down rather than its garbage collection short.
		debug.SetGCPercent(100)
	}
	opts := Options{Timeout: time.Duration(req.TimeoutMS) * time.Millisecond}
	if req.Progress {
		opts.Progress = progressBar(stderr)
	}
	ix := New(req.Root, req.Dir, opts)
	resp := index.Response{Protocol: index.Protocol}
	var err error
	switch req.Op {
	case index.OpSearch:
		var res index.Result
		res, resp.Report, err = ix.Search(req.Query)
		resp.Result = &res
	case index.OpStatus:
		var st index.Status
		st, err = ix.Status()
		resp.Status = &st
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
