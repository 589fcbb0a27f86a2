//go:build !linux

package main

import "runtime/debug"

// limitMemory holds Go's heap below bytes; elsewhere than on Linux the
// kernel's data limit does not bound mappings, and SQLite's own memory is
// bounded by the time and row limits only.
func limitMemory(bytes int64) { debug.SetMemoryLimit(bytes / 2) }
