// Command lore-index is lore's search index: lore runs it for `lore
// search` and `lore index`, handing it one JSON request on stdin and
// reading one JSON response from stdout. It is a separate binary because
// linking bleve adds 10–15 ms to the start of every process, which lore's
// write commands (add, ingest) cannot afford. Install it next to lore:
// go install ./cmd/...
package main

import (
	"os"
	"runtime/debug"

	"lore/index/bleveindex"
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(bleveindex.Serve(os.Stdin, os.Stdout, os.Stderr, bleveindex.Detach))
}
