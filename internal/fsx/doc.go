// Package fsx is what every layer of lore shares about files, written once:
//
//   - Stamp, a file's stat as far as telling it from its next version
//     goes, and the racy rule that says when a stamp can be trusted
//     (git's "racily clean" rule);
//   - WriteFile and Pending, the temporary-file-and-rename that replaces a
//     file atomically, fsynced as far as the caller needs;
//   - Map, a read-only mapping of a file;
//   - TryLock, an advisory lock the kernel drops with the process;
//   - ReadRegular, ReadDir and CheckDirs, the one way to read a file of a
//     store: only a regular file, never through a symbolic link, never a
//     FIFO or a device, and never more than a cap. What is not read is a
//     *SkipError that says why ("a symbolic link", "not a regular file
//     (a named pipe)", "larger than 16 MiB"), for the caller to report.
//
// It imports nothing of lore's and is used by internal/gitx (the commit
// path), mdstore (the entries cache), index/fresh (the search index's
// freshness), index (the scan) and usage.
package fsx
