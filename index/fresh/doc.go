// Package fresh keeps lore's search index fresh without linking bleve: it
// owns the layout of the index directory, the manifest of what the index
// holds, and the check of what changed in the store since it was written.
//
// Layout of an index directory:
//
//	current               "lore-index <format> <generation>": the live index
//	<generation>/         the scorch index (package bleveindex)
//	<generation>.manifest what that index holds (see Manifest)
//	<generation>.seal     what its files were when lore finished writing them (see Seal)
//	write.lock            held (flock) by the one process updating the index
//	last-error            what went wrong finishing an update after its search
//	                      was answered; removed by the next update that succeeds
//
// A rebuild writes a new generation and switches current to it, so readers
// of the old one are never disturbed. A generation is believed only as
// its seal says (see Seal): bleve does not check what it reads.
//
// # The manifest
//
// One file, mapped read-only: a header, then per directory of the store a
// segment — a table of fixed-size records (name hash, stat and the FNV-64
// hash of the bytes indexed) sorted by name hash, followed by the names —
// the memory hashes of memories.md, and last the watched part (every
// directory with its stat and where its segment is, memories.md, every
// SKILL.md), which is all a search reads when nothing changed: a few
// kilobytes at 100k entries. A segment is looked at only when its
// directory changed, in place in the mapping (a name is found by
// interpolation on the sorted hashes, so a 25,000-file directory costs no
// allocation for the files that did not change); changes are kept beside
// it and merged when the next manifest is written, and the segments nobody
// touched are copied into it by the kernel (copy_file_range), unread. The
// manifest is not fsynced: the index is a cache, and a manifest lost in a
// crash means a rebuild.
//
// # The check
//
// Before every search the watched paths are stamped; a directory whose
// stamp changed is listed again with getdents64, which gives each entry's
// inode without a stat: new and missing files and subdirectories, and
// files whose inode changed (renamed over by an editor), are looked at.
// A directory that holds the names its segment records under the same
// inodes — after a pull that changed files — is known so by one sum
// (inodeMix of each name's key and inode, summed), without a lookup of
// each of its files. An inode is not a version, though: git writes a file it checks out
// (pull, checkout, stash, reset) by removing it and creating it again, and
// ext4 hands the new file the inode number just freed. git records the new
// stat in its index, so when the git index's stamp is not the one
// recorded, its .agent/ entries are walked in place (gitindex.EachStat:
// ~4 ms at 100k entries) and those written since the last look (less 2 s
// for coarse clocks, and those git left without a time, as git stash pop
// does) whose stat differs from the manifest's are looked at. A file whose
// stamp changed is read (in parallel), and reindexed if its hash changed
// (for memories.md, only the memories whose hash changed). A store of at
// most DefaultSweepLimit files also stamps every file each time, which
// catches in-place rewrites; bigger stores see those on a rebuild. A stamp
// within the racy window (fsx.Stamp.Settled) is recorded as unknown, so
// the file is looked at again.
//
// The check reads what index.LoadDocs and mdstore read, so the index and
// the scan agree: a directory is listed with O_NOFOLLOW and only after
// the directories above it are checked (fsx.CheckDirs: a .claude made a
// link to where .claude was has the same stamps, and is still not read);
// an entry is indexed only when its listing says it is a regular file
// (d_type, no stat), and read with fsx.ReadRegular, capped at its
// mdstore.ReadLimit. A link, a FIFO or a file over the cap where an entry
// would be is not indexed, and an entry that became one is dropped; the
// manifest records it with its warning (found again whenever its
// directory is listed), and every check says the warnings it holds, as a
// scan says them every time. A SkillLink is skipped without a word, its
// skill indexed where it is.
package fresh
