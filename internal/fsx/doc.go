// Package fsx is what every layer of lore shares about files, written once:
//
//   - Stamp, a file's stat as far as telling it from its next version
//     goes, and the racy rule that says when a stamp can be trusted
//     (git's "racily clean" rule);
//   - WriteFile and Pending, the temporary-file-and-rename that replaces a
//     file atomically, fsynced as far as the caller needs;
//   - Map, a read-only mapping of a file;
//   - TryLock, an advisory lock the kernel drops with the process.
//
// It imports nothing of lore's and is used by internal/gitx (the commit
// path), mdstore (the entries cache), index/fresh (the search index's
// freshness) and usage.
package fsx
