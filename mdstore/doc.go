// Package mdstore is lore's domain core: the kinds of entries an agent
// remembers, their Markdown files under .agent/ (layout.go says where each
// kind lives), and the Store that reads and changes them. Every change
// goes through one gitx transaction, so it becomes one commit that holds
// only the files it wrote.
//
// The files belong to the user. Parsers report problems as warnings with a
// line number and return every entry they could read; writers change only
// the bytes of the entry they add or remove and keep everything else
// (prose, other headings, damaged blocks) exactly as it was.
//
// # memories.md
//
// memfile.go reads the file line by line with seed 001's rules, so both
// read the same memories from a file. It never fails: each problem (an
// invalid id, an unclosed comment, a block without content, a duplicate
// id, a line that is not UTF-8) becomes one Warning and every valid memory
// is returned. It also records the byte range of every block and section
// header. Adding a memory inserts "\n" + block right after its section's
// header line (after an introductory paragraph glued to the header);
// removing one cuts its range and the blank line before it. Nothing else
// changes, so an add followed by a delete gives back the original bytes,
// which FuzzParseMemories checks on arbitrary files. Two deliberate
// differences from the seed's parser: a block ends at its metadata comment
// (the seed would append later quote lines to it, which let a memory
// inserted above a stray ">" line silently change), and ids must match
// mem-\d+-[0-9a-f]{4} exactly as the seed's own regex says.
//
// # Files with frontmatter
//
// Knowledge, learnings and journal entries are Markdown files with YAML
// frontmatter. frontmatter.go splits them with adrg/frontmatter and
// decodes the block into yaml.v3 nodes, so every problem names its file
// and line; it writes them in a fixed field order in the seeds' style
// (strings double-quoted with YAML's escapes, lists in flow style, free
// text never unquoted). A file that does not read is reported and
// skipped, never fatal. FuzzFrontmatterCodecs checks that whatever parses
// comes back the same after lore writes it.
//
// # Writes and ingest
//
// Decisions that depend on what the store holds — the knowledge entry a
// new one deduplicates into and its free slug, a learning's id and whether
// it nearly duplicates another (Duplicates), a journal entry's iteration
// and its file's tag (JournalPath) —
// are made once, under the lock, in a plan kept across a retried commit
// (the worktree may already hold the change by then). They are made from
// the store as the commit builds on it — HEAD's files, the index's when
// config.yaml says commit: stage, the files on disk only with commit:
// none — never from files on disk that are not committed: those are what a
// write that failed left behind, and a retry that took them for the store
// would answer "unchanged" and commit nothing. Files on disk only keep
// their names from being taken (an id, a slug), and a memory added there
// by hand can still be deleted. Store.Ingest runs
// the journal, knowledge and learning plans in one transaction: one commit
// per iteration, with Run-Id, Iteration and Task-Id trailers. The same run
// and iteration again yields no change and no commit. The current run of a
// clone is a file under the state directory (<git-dir>/lore, or
// .agent/.lore outside git), never committed.
//
// # Secrets
//
// Every text a caller gives lore to write is checked for credentials in
// one place, secretCheck (secrets.go): each input type's normalize —
// NewMemory, NewKnowledge, NewLearning, JournalEntry — passes every field
// it takes through it, before it reads the field otherwise, so that no
// message about a field can echo a secret either. Whatever reaches a
// file, a commit message or a trailer is made from those fields. The
// direct writes (AddMemory, AddKnowledge, AddLearning, AddJournal, and a
// run's name in StartRun) refuse: an InputError naming the field and the
// rule, never the value. Ingest redacts, with the same rules: first the
// agent's output whole, for what is taken from it as it is (a minimal
// failure report's stack trace), then each field of the journal entry,
// knowledge entries and learnings its sigils and its IngestInput make —
// which sees what the first pass could not, such as a key among a
// sigil's comma-separated tags. IngestResult.Redacted says where each
// secret was: its line in the output, or its field.
//
// # The queue: writes during a merge or a rebase
//
// While git is in the middle of a merge, rebase, cherry-pick, revert or
// am, a write touches neither the worktree nor the index: git merge
// --abort or git rebase --abort would throw away a staged change with the
// operation's own, and a commit would land in the middle of it. The write
// decides as usual (from HEAD, plus the changes already queued, plus the
// names the operation brings in) and the decided change — its edits
// (storeEdit: add a memory with its id and date, remove a memory, put a
// rendered file, create or merge a knowledge entry, remove a file) and
// its commit message — goes to <state dir>/pending/<n>.json, written with
// fsx and fsynced, under index.lock: it is the only copy of an
// acknowledged write. WriteResult.Queued says so.
//
// Store.Flush commits the queue, oldest first, each change as its own
// commit with its original message, by applying the same idempotent
// edits to the HEAD of that moment; a change HEAD already holds commits
// nothing and its file is removed all the same. The CLI flushes before
// any command but validate (the pre-commit hook runs while git holds
// index.lock), without waiting for a lock another process holds; a write
// flushes first and waits. A write that finds changes still queued (a
// flush failed: a conflicted file, a lock) is queued behind them, so the
// order holds. Open learns all this from one read of the pending
// directory, which exists only while something is pending (Store.Pending);
// it also holds gitx's intent record while a write is in progress.
// config.yaml's commit: stage and commit: none are the person's choice
// and do what they say during an operation too.
//
// # Validation
//
// Validate takes a list of files — the worktree's, or the staged blobs
// (the index git will commit, GIT_INDEX_FILE included, so that a
// pre-commit hook of git commit -a sees the temporary index) — and returns
// every problem as path:line: error|warning: message, sorted. It reuses the
// parsers, which collect every problem of a file (FileError carries them
// all), and adds what only a reviewer needs: fields lore does not read
// (with the nearest known name), memories under a heading that is not a
// memory section, tags lore would have written otherwise, size caps,
// leftover conflict markers, unmerged paths, a superseded_by naming no
// learning, and secrets. Errors are what lore would misread or must not
// commit; warnings what it reads as meant. A staged file that HEAD holds
// as it is is marked InHead, and InChanges keeps only the problems of the
// files a commit changes, for the pre-commit hook: what it judges is the
// commit, not what earlier commits hold.
//
// # Files that are not what they seem
//
// The store is the regular files under .agent/ and the skill directories
// of the worktree, read through no symbolic link: a committed link can
// point anywhere — /dev/zero (read whole, it ran lore out of memory), a
// FIFO or /dev/stdin (read, it hung the SessionStart hook), a directory
// outside the repository. Every reader opens a file with fsx.ReadRegular
// (no link followed, no FIFO or device read, at most ReadLimit bytes:
// 16 MiB for memories.md, 1 MiB for any other file) and lists a directory
// with fsx.ReadDir, which does not follow a link either; what it does not
// read it reports with Skipped, one warning naming the file and why
// ("skipped: a symbolic link", "skipped: not a regular file (a named
// pipe)", "skipped: larger than 1 MiB"), and reads the rest. A .agent that
// is a link is said once, when the store is opened (Config().Warnings),
// and the store reads as empty. The one exception is a skill linked from
// one skill directory to the other (SkillLink): it is read where it is,
// once, and the link is skipped without a word. index.LoadDocs and
// index/fresh follow the same rules, so a search finds the same entries
// with the index and without it. Validate reports each such file as an
// error, from the worktree and as staged (a link is mode 120000 in the
// index), so the pre-commit hook stops a link from being committed into
// the store.
//
// A write never goes through a link: gitx refuses it (an UnsafePathError,
// or the Tx's read of the file refuses first) before anything is written.
// A store root inside the git directory (lore --root .git) or reached
// through a link is refused when the store is opened.
//
// # The entries cache
//
// Prime needs every knowledge entry, learning and journal entry; at 10,000
// entries reading and parsing them took ~450 ms. Store.Entries reads them
// through <state dir>/entries.cache: the parsed entries of every file with
// the file's fsx.Stamp, the stamp of every directory listed, and the git
// index's stamp when it was last looked at. A directory whose stamp is the
// one recorded has the files the cache lists (a file created, deleted or
// renamed in it changes its mtime), so only changed directories are
// listed. In a store of at most SweepLimit files every file is stamped
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
// flat binary file (varints and strings) mapped read-only; the entries'
// strings point into the mapping, which is never unmapped (the file is
// replaced by a rename, never rewritten in place): a long-lived process
// will want to copy or unmap. cacheVersion must change with any entry
// type; a test counts their fields.
//
// Each entry is kept with a head, the fields prime ranks by (tags, status,
// run, task, feature, files). When no directory and not git's index
// changed, Store.Catalog reads only the heads, summed with a CRC, and
// decodes an entry when asked: prompt.Shortlist picks those a prime could
// show, a few hundred of 100,000. After a change the cache is not written
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
// them. blobcache.go keeps each file parsed under its path and git blob id
// (blobs-knowledge.cache, blobs-learnings.cache in the state directory),
// with a learning's keywords, so a write reads from git only the files
// whose content it has not parsed before; keyed by content, it needs no
// invalidation. The write reads them before it takes the repository's
// lock (Store.readAhead, from a gitx.Repo.Snapshot of HEAD: index.lock
// makes a git commit at that moment fail), and uses that read under the
// lock only while the directory's git tree is the one read; otherwise it
// reads again. So the lock is held for the decision and the commit, not
// for the reading.
package mdstore
