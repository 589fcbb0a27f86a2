// Package catalog reads the store's files from the worktree as lore
// reads them (Worktree: regular files only, through no link, capped; the
// loaders, LoadSkills among them; ValidationFiles, the files lore
// validate judges, from the worktree or the git index) and keeps the
// per-clone caches that make reading a large store cheap: the
// entries cache that prime and stats read through (Entries, and Catalog,
// which decodes an entry only when asked), the memories cache, and the
// blob cache a write decides duplicates from. What changed since a cache
// was written is decided by internal/storewatch's rules, as the search
// index decides it. A cache is a copy: deleting it costs the next read its
// time, nothing else. Close releases the files a Cache mapped; what it
// returned (entries, memories, warnings) stays the caller's, a Catalog's
// heads alone are views of the mapping.
//
// # The entries cache
//
// Prime needs every knowledge entry, learning and journal entry; at 10,000
// entries reading and parsing them took ~450 ms. Cache.Entries reads them
// through <state dir>/entries.cache: the parsed entries of every file with
// the file's fsx.Stamp, the stamp of every directory listed, and the git
// index's stamp when it was last looked at. A directory whose stamp is the
// one recorded has the files the cache lists (a file created, deleted or
// renamed in it changes its mtime), so only changed directories are
// listed. In a store of at most storewatch.SweepLimit files every file is stamped
// (relative to its directory's descriptor, on every core), which catches
// in-place rewrites; a larger store stamps only the files of the changed
// directories that are new or under another inode than the cache has
// (replaced by a rename; fsx.ListDir gives inodes without a stat), and
// those git wrote since the last look
// (gitindex.WrittenSince, the rule the search index follows: a file
// rewritten in place by hand is seen when git sees it, or after lore index
// rebuild, which drops the cache). Only files whose stamp changed are read
// and parsed. A stamp within
// the racy window is not trusted, and a file that does not parse is cached
// with its warning, which is said on every read (a broken file must not
// cost every read of a large store a rewrite of the cache). The cache is a
// flat binary file (varints and strings) mapped read-only (it is replaced
// by a rename, never rewritten in place); an entry is decoded from a copy
// of its record, so the entries a caller keeps do not point into the
// mapping, which Close releases. cacheVersion must change with any entry
// type or with Head; a test counts their fields.
//
// Each entry is kept with a head (Head), the fields prime ranks and
// measures by: tags, times, a knowledge entry's title and the length of
// its body, a learning's status and seed-004 figures, a journal entry's
// run, task, feature and files. When no directory and not git's index
// changed, Store.Catalog reads only the heads, summed with a CRC, and
// decodes an entry when asked: prime ranks every entry by its head and
// reads whole only those its sections examine, a few dozen of 100,000
// (prompt.Shortlist). After a change the cache is not written
// whole again: a delta (entries.delta) over it holds the whole file table
// and only the entries that are not the cache's records, until those
// exceed deltaLimit (a sixteenth of the files), so that a write does not
// cost the next prime a rewrite of every entry. memories.md is kept parsed
// the same way (memcache.go: memories.cache, by the file's stamp, for a
// file of 256 KiB or more). Deleting any of these files is always safe.
//
// # The blob cache
//
// A write's duplicate checks (lore knowledge add, lore learning add,
// lore ingest) read every knowledge entry or every learning as HEAD has
// them. blobfile.go keeps each file parsed under its path and git blob id
// (blobs-knowledge.cache, blobs-learnings.cache in the state directory),
// with a learning's keywords, so a write reads from git only the files
// whose content it has not parsed before; keyed by content, it needs no
// invalidation. The write reads them before it takes the repository's
// lock (mdstore's Store.readAhead, from a gitx.Repo.Snapshot of HEAD: index.lock
// makes a git commit at that moment fail), and uses that read under the
// lock only while the directory's git tree is the one read; otherwise it
// reads again. So the lock is held for the decision and the commit, not
// for the reading.
package catalog
