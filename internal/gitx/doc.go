// Package gitx is lore's path into a git repository. It finds the repository
// around a directory and records a set of file edits as one commit on the
// current branch the way C git would: it takes git's own lock files
// (index.lock, <ref>.lock), writes only the objects along the changed paths,
// changes only the index entries of those paths, and moves the branch with
// compare-and-set, appending to the reflog. It never scans the worktree, so
// its cost does not grow with the number of tracked files beyond one pass
// over the index.
//
// go-git reads objects (loose, packed, alternates) and parses config files.
// Everything that writes is here, for reasons measured or read in go-git v5:
// its index encoder drops every extension and the assume-valid bit and cannot
// read a split index, its object writer never fsyncs, and its worktree layer
// (Worktree.Add/Status/Commit) takes none of git's locks and scans the whole
// worktree.
//
// An edit is a function from a file's old content to its new content. The
// same edit is applied to the version in HEAD (what gets committed), the
// version in the index and the version in the worktree, so a user's staged or
// unstaged changes to the same file are neither swept into lore's commit nor
// lost.
package gitx
