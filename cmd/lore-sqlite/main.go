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
//
// A database may be made to hurt its reader. lore-sqlite reads within
// progressdb.DefaultLimits (a minute, 250,000 rows and 256 MiB of text,
// no value over 16 MiB, no temporary file) and, on Linux, within a memory
// limit of its own (1 GiB of data, or LORE_SQLITE_MEMORY bytes): a sort a
// view asks for that needs more ends in SQLite's "out of memory". lore
// kills it when lore itself ends.
package main

import (
	"fmt"
	"os"
	"strconv"

	"lore/progressdb"
)

// memoryLimit is the most data memory lore-sqlite may map.
const memoryLimit = 1 << 30

func main() {
	if len(os.Args) != 2 || os.Args[1] == "-h" || os.Args[1] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: lore-sqlite PROGRESS_DB  (writes its journal as a lore export to stdout)")
		os.Exit(2)
	}
	limit := int64(memoryLimit)
	if s := os.Getenv("LORE_SQLITE_MEMORY"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n <= 0 {
			fmt.Fprintln(os.Stderr, "lore-sqlite: LORE_SQLITE_MEMORY must be a number of bytes")
			os.Exit(2)
		}
		limit = n
	}
	limitMemory(limit)
	if err := progressdb.WriteExport(os.Stdout, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "lore-sqlite:", err)
		os.Exit(1)
	}
}
