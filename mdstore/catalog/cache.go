package catalog

import "time"

// Cache is the per-clone caches of the worktree's entries, in the state
// directory and never committed: entries.cache and its delta (Entries,
// Catalog) and memories.cache. A cache is a copy: removing it costs the
// next read its time, nothing else.
type Cache struct {
	files    *Worktree
	stateDir string
	// gitIndex is git's index file, "" outside git, and gitPrefix the
	// store root below the worktree's top: which files git wrote.
	gitIndex, gitPrefix string
	now                 func() time.Time
	// sweep, when not 0, replaces SweepLimit (tests).
	sweep int
	// mapped are the cache files mapped, released by Close.
	mapped mappings
}

// Close releases the cache files mapped: a Catalog read before must not
// be used after. Entries, warnings and memories it returned are the
// caller's.
func (s *Cache) Close() { s.mapped.release() }

// NewCache is the caches of the files in stateDir; gitIndex is git's
// index file ("" outside git) and gitPrefix the store root below the
// worktree's top.
func NewCache(files *Worktree, stateDir, gitIndex, gitPrefix string, now func() time.Time) *Cache {
	return &Cache{files: files, stateDir: stateDir, gitIndex: gitIndex, gitPrefix: gitPrefix, now: now}
}
