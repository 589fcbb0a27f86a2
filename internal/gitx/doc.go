// Package gitx is lore's path into a git repository: it finds the
// repository around a directory (linked worktrees, commondir, an allowlist
// of [extensions]), reads its objects and refs, and records a set of file
// edits as one commit on the current branch the way C git would. It never
// scans the worktree, so its cost does not grow with the number of
// tracked files beyond one pass over the index. The index file format is
// package gitindex, the configuration format package gitconfig.
//
// # Why not go-git's worktree
//
// go-git is used for its plumbing types and packfile.PatchDelta. The rest
// is here, for reasons measured in go-git v5.19: its index encoder writes no
// extensions and drops the assume-valid bit, its decoder cannot read a
// split index, its object writer never fsyncs, its storage layer decodes a
// whole pack index to find one object (+40 ms per command after git gc at
// 100k files) and costs 1.5 ms of start-up, and its worktree layer
// (Worktree.Add/Status/Commit) takes none of git's locks and scans the
// whole worktree.
//
// # A change is a function of the file
//
// The caller registers edits as EditFunc(old, exists) (new, keep, err).
// Repo.Update applies the same function to three versions of each file:
// HEAD's (the result is committed); the index's (if the user staged
// something else for this file, their staged version plus lore's change is
// what stays staged); the worktree's (likewise for unstaged edits). So
// lore's commit holds exactly lore's change, and the user's work on the
// same file is neither committed nor lost. A file HEAD lacks starts from
// the staged version, then from the file on disk. Edits must be
// idempotent: the whole change is rebuilt and applied again when the
// branch moved under it.
//
// The build function reads the state the change builds on: Tx.ReadFile and
// Tx.ReadDir show HEAD's tree when the change is committed, the index when
// it is staged, the worktree when only files are written. Whatever it
// decides from them (a free id, "nothing to change", the next number)
// holds in the commit; a file on disk that is not committed — left by a
// write that failed, or a person's edit — is read only through
// Tx.ReadWorktreeFile and Tx.ReadWorktreeDir, to keep from taking its
// name. Objects read during an Update are kept until it returns, so the
// plan does not inflate HEAD's version of a file a second time.
//
// A change decided during an operation is committed after it, onto a
// branch that may hold the operation's commits again: Tx.ReadDir then
// also lists the names in the commits the operation brings in (the
// branch's tip before a rebase, MERGE_HEAD, CHERRY_PICK_HEAD,
// REVERT_HEAD), so a new file does not take a name one of them has.
//
// # The protocol
//
//	1  index.lock         O_EXCL; held for the whole change. Busy: jittered backoff up to
//	                      the lock timeout, then a LockError naming the file. Never
//	                      removed if not ours.
//	2  recover            an intent record a killed Update left (see below): finish or
//	                      undo that change first
//	3  read               the index (mapped; checksum verified in the background), HEAD
//	                      (loose ref or packed-refs), HEAD's tree; the build function
//	                      reads the state the change builds on
//	4  plan               apply each EditFunc to the HEAD, index and worktree versions
//	5  objects            blobs, the trees on the changed paths (others reused), the
//	                      commit: temp files, fsynced, renamed into objects/; a
//	                      signed commit is made by git commit-tree -S, then fsynced
//	6  <ref>.lock         O_EXCL, compare-and-set: the branch must still be at the commit
//	                      read in 3; the new value written and fsynced
//	7  intent record      what the change is about to do, in Options.PendingDir
//	8  worktree files     temp file, fsync, rename (fsx.WriteFile)
//	9  index → index.lock changed entries encoded, all others copied byte for byte
//	10 rename ref, rename index.lock, back to back (see below)
//	11 fsync the ref's directory, remove the intent record, append the reflogs
//
// Before step 10 nothing git shows has changed but the files on disk. If
// the branch moved (a writer that does not take index.lock, such as git
// update-ref or a fetch), step 6 fails with ErrRefMoved and the change is
// rebuilt from step 3, up to 10 times; the branch lock is taken before the
// worktree is touched, so a branch that keeps moving, or a branch lock
// another process holds, changes nothing. Any other failure before the
// rename of the ref (a file that cannot be written, a full disk, an index
// that cannot be written) puts back the files on disk that still hold what
// the change wrote, from the old contents the plan read: the worktree is
// as it was, and a retry does the work. The rename of the ref is the
// commit point; after it a failure to put the index in place is a notice,
// not an error, and the next Update repairs the index.
//
// Why the two renames are adjacent: C git's partial commit (git commit --
// <paths>) reads the index before it takes index.lock. A reader between
// the ref rename and the index rename sees the new HEAD with the old
// index, and git would write that stale entry back with a passing
// compare-and-set. The same race exists between two C git processes; lore
// keeps its window to two system calls, with every fsync and the reflog
// outside it. The concurrency test once caught the wider window as MM in
// git status.
//
// # The intent record
//
// A process killed between steps 7 and 11 cannot undo anything. The
// record it wrote (PendingDir/intent-<pid>-<n>.json: each writer its own,
// for a writer removes its record at step 11, after the next one may have
// written its) names the ref, its old and new
// value, and for each file what was on disk before (the blob that has
// that content, or the bytes), the blob lore wrote, and the index entry
// before and after. The next Update (or Repo.Recover, for a command that
// only reads) reads every record under index.lock but those of writers
// that still run (their change is in place; a record older than two
// minutes is taken for a dead writer's whose id was given again):
//
//	branch at the new commit   the commit landed: index entries still as before get
//	                           the recorded new ones (stat data only for a file still
//	                           holding what lore wrote). Left as it was, the index would
//	                           make the person's next git commit revert lore's change.
//	branch at the old value    the change did not land: files on disk that still hold
//	                           what lore wrote, with the index as before, are put back
//	branch elsewhere           the branch went on without lore; the record is dropped
//
// A change that stages without committing landed when the index holds
// the recorded entries. Files someone changed since are left alone, and a
// file whose name no file system takes was never written. The record is
// not fsynced (it is for a killed process, not a lost machine), and one
// that does not read is dropped. One that cannot be finished or undone
// for a reason of its own (Unreplayable: a path lore refuses to write, a
// blob it names is gone) would stop every Update after it: it is moved to
// PendingDir/failed/ with why (SetAside), said in the Result's notices,
// and the Update goes on. A lock or a full disk leaves it for the next.
//
// # Objects
//
// A loose object is read from its file, a packed one by binary search in
// the mapped .idx (fan-out, names, offsets, large offsets) and a read of
// its entry in the .pack, following OFS and REF deltas and
// objects/info/alternates. A pack that is not found is rescanned once, for
// a concurrent repack. Loose objects are written with one reused zlib
// writer, at git's loose level (1), except a tree of 64 KiB or more, which
// is stored (object names do not compress, and the next write reads the
// tree back). zlib is klauspost/compress's: at that
// level it deflates a 3 MB memories.md in about half the time of the
// standard library's in a fresh process (25 against 43 ms), and git's
// writes are lore's budget.
//
// # Fallbacks
//
//	unborn branch                         first commit, no parent; the branch is created
//	                                      with compare-and-set against "absent"
//	detached HEAD                         commits on HEAD (under HEAD.lock) and says so
//	merge, rebase, cherry-pick, revert,   touches neither the worktree nor the index:
//	am in progress                        the change goes to Options.Defer (mdstore queues
//	                                      it and commits it when the operation is over);
//	                                      without Defer, an error. git's --abort would
//	                                      throw away a staged change with its own, and
//	                                      a commit would land inside the operation.
//	                                      ModeStage still stages: the person chose it
//	commit.gpgSign                        C git makes the commit object (git commit-tree -S
//	                                      with lore's tree, parents, identities and dates),
//	                                      signed as git commit would sign it; lore moves
//	                                      the ref and the index as usual. When signing
//	                                      fails (no key, no agent) the change goes to
//	                                      Options.Defer with the reason
//	a conflicted path                     refuses, changes nothing
//	an unknown required index extension,  writes files only; says so
//	a path inside a sparse directory
//	objectFormat=sha256, reftable, other  refuses to open the repository
//	unknown [extensions]
//	not a git repository (UpdateFiles)    files only, with a lock beside the store
//	ModeStage, ModeFiles                  stage only, files only
//
// # Files that are not what they seem
//
// A change never writes through a symbolic link, never replaces what is
// not a regular file, and never records a path git refuses. Before
// anything is written, each edited path is checked (worktree.go): every
// directory on its way in the worktree must be a directory, not a link
// (.agent committed as a link to /home/…/elsewhere would otherwise have
// lore write there, and leave the index holding both .agent and
// .agent/memories.md, after which git commit -a drops every memory); the
// file must be missing or a regular file (a link would be replaced, or
// committed as mode 120000 with Markdown for a target; a FIFO would hang
// the read); neither the index nor HEAD may track a directory on its way
// as anything but a directory, nor the file as a link or a submodule; and
// no component may be empty, ".", ".." or ".git" in any case (git fsck's
// hasDotgit). A refusal is an UnsafePathError naming the path, and
// changes nothing. A Tx reads the same way: ReadFile and ReadDir read
// only regular files and directories, through no link (fsx.ReadRegular),
// each directory checked once per Tx. Ref names are checked as git
// check-ref-format does before they become paths under the git directory,
// so HEAD holding "ref: refs/heads/../../../x" is refused rather than
// followed out of it.
//
// # Durability
//
// What must survive power loss is an acknowledged change and a repository
// whose refs name existing objects. Every object, every worktree file and
// the ref are fsynced before they are renamed into place; after the
// renames, one fsync of the ref's directory makes the commit point durable
// (on a journaling file system it commits the earlier renames with it).
// The index is not fsynced: it is derived state, C git does not fsync it by
// default, and git reset rebuilds it. That is 7 fsyncs per lore add; C git
// 2.39's defaults make none for git add and git commit.
//
// A process killed at any point leaves a consistent repository: objects
// not yet named are garbage for git gc; a stale index.lock stops lore and
// git until a person removes it, as the LockError says; lore's next write
// then finishes or undoes the change from its intent record. A killed
// writer's temporary worktree file is removed by the next write to the
// same file (fsx); its temporary object files (objects/xx/tmp_obj_*) are
// left to git gc, like C git's own. .git/config is edited the same way,
// under config.lock, which is never waited for or taken over.
package gitx
