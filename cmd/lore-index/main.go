// Command lore-index is lore's search index: lore runs it for `lore
// search` and `lore index`, handing it one JSON request on stdin and
// reading one JSON response from stdout. It is a separate binary because
// linking bleve adds 10–15 ms to the start of every process, which lore's
// write commands (add, ingest) cannot afford. Install it next to lore:
// go install ./cmd/...
//
// LORE_TRACE=<file> appends the time of each phase of its work to file,
// and bleve's own log lines, which otherwise go nowhere: stderr is lore's,
// and nothing of bleve's reaches the person at lore's terminal (Serve).
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	"lore/cmd/internal/detach"
	"lore/index/bleveindex"
	"lore/internal/fsx"
)

func main() {
	// lore-index lives for one request: collecting garbage it is about to
	// drop costs more than it saves. GOGC, when set, still decides (a
	// rebuild lowers it itself).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	exe, _ := os.Executable()
	err := bleveindex.Serve(os.Stdin, os.Stdout, os.Stderr, bleveindex.ServeOptions{Detach: detach.Detach, Lower: detach.Lower, Trace: os.Getenv("LORE_TRACE"), Exe: exe})
	fsx.Settle()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lore-index:", err)
		os.Exit(1)
	}
}
