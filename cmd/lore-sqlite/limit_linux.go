package main

import (
	"runtime/debug"
	"syscall"
)

// limitMemory bounds the data memory the process may map (RLIMIT_DATA):
// SQLite's allocations fail past it, and a query that needs more ends
// with SQLite's "out of memory". Go's heap is held below it, so that the
// runtime gives memory back before it would fail.
func limitMemory(bytes int64) {
	debug.SetMemoryLimit(bytes / 2)
	lim := syscall.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &lim) // best effort: a lower limit already set stays
}
