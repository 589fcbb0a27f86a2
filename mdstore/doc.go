// Package mdstore is the Store: one project's .agent/ directory and the
// git repository it lives in, opened (Open, Find), read (memories, each
// kind of entry, skills, an entry's versions in git's history) and
// changed. Every change is one gitx transaction, so it becomes one commit
// that holds only the files it wrote: the direct writes (AddMemory,
// AddKnowledge, AddLearning, AddJournal, deletes), Ingest, and the
// exported write transaction (Write, Tx, Edit) that mdstore/lifecycle's
// plans apply through. The kinds and their files are mdstore/entry's,
// config.yaml mdstore/config's, the reading and caching of the worktree's
// files mdstore/catalog's. A Store is for one goroutine; Close releases
// what it mapped.
//
// # Writes and ingest
//
// Decisions that depend on what the store holds — the knowledge entry a
// new one deduplicates into and its free slug, a learning's id and whether
// it nearly duplicates another (neardup), a journal entry's iteration
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
// it also holds gitx's intent record while a write is in progress. A
// queued change that can never be committed — it breaks lore's limits
// (an entry.InputError), or gitx.Unreplayable says so, or its file does
// not read — would hold back every change after it: Flush sets it aside
// (gitx.SetAside, into pending/failed/ with why), says so in its notices,
// and commits the rest; Store.SetAside lists what lore validate reports.
// A lock, an operation, a conflicted or damaged file keep the queue.
//
// # Limits
//
// lore never writes what it will not read back. Tx.Apply holds every edit
// to mdstore/entry's limits, whoever decided it (a command, Ingest, a
// lifecycle plan, an import, a queued change being committed): the name
// of a file it makes (entry.CheckName) before anything is read or
// written, the size of every file it makes or grows (entry.CheckSize:
// memories.md as a whole, an entry's file) when the edit is applied to
// the state the commit builds on — in gitx's plan, before anything is
// written — or, for a change that is queued, before it is queued.
// config.yaml's commit: stage and commit: none are the person's choice
// and do what they say during an operation too.
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
package mdstore
