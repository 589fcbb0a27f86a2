// Package gitindex reads and writes git's index file (.git/index), every
// version (2, 3, 4) with its extensions, as C git does.
//
// File keeps the index as the bytes git wrote: Open walks entry boundaries
// without decoding them (an entry's size follows from the name length in
// its flags; version 4 paths are rebuilt into one arena), binary-searches
// paths in place, and Write writes the new index as runs of unchanged
// bytes copied from the mapping plus the few encoded entries (and, in
// version 4, the entry after each change, whose path is prefix-compressed
// against its predecessor's). The checksum is computed while streaming.
// At 100,000 entries that is about a tenth of the cost of decoding and
// re-encoding every entry; a differential test and a fuzz target
// (FuzzSplicedIndex) check it against doing exactly that (Read, which
// decodes every entry, and encode).
//
// Extensions: the cache tree (TREE) is kept with the nodes on each
// changed path invalidated, as git does; resolve-undo (REUC) and the
// sparse-index marker (sdir) are kept; caches that describe entry
// positions or the worktree (UNTR, FSMN, EOIE, IEOT, unknown optional
// ones) are dropped and git rebuilds them; an unknown required extension
// is ErrUnsupported, and the caller writes files without staging them. A
// split index (link) is merged with its shared index (EWAH bitmaps) and
// written back whole; git splits it again if core.splitIndex asks.
//
// Racy entries: an entry whose file changed in the same instant the old
// index was written is only trusted by git because its mtime is not older
// than the index. Writing a newer index would remove that protection, so
// such entries get their size zeroed on the way through ("smudged"), as C
// git does.
//
// EachStat walks the stat data of the entries under a prefix in place,
// for the search index's freshness check: git records the new stat of
// every file it writes.
package gitindex
