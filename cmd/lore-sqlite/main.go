// Command lore-sqlite reads RefoundAI ralph's .ralph/progress.db (seed
// 000's journal table) and writes its iterations to stdout as a lore
// export, which lore import reads:
//
//	lore-sqlite .ralph/progress.db > journal.json && lore import journal.json
//
// lore import runs it itself when a directory it imports holds a
// progress.db. It is a separate binary because the SQLite driver adds more
// than a millisecond to the start of every process that links it, and
// lore's write commands cannot afford that. Install it next to lore:
// go install ./cmd/...
package main

import (
	"fmt"
	"os"

	"lore/progressdb"
)

func main() {
	if len(os.Args) != 2 || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: lore-sqlite PROGRESS_DB  (writes its journal as a lore export to stdout)")
		os.Exit(2)
	}
	if err := progressdb.WriteExport(os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "lore-sqlite:", err)
		os.Exit(1)
	}
}
