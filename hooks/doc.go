// Package hooks is what lore installs around a repository and an agent,
// and what it reads back from them.
//
// Git hooks: InstallGitHooks writes lore's part of pre-commit,
// post-merge, post-checkout and post-rewrite into the hooks directory
// GitHooksDir names: the one git uses (core.hooksPath, relative to the
// worktree's top when relative, else .git/hooks of the common directory),
// but under husky 9 (core.hooksPath .husky/_, scripts husky writes again
// on every install) the project's .husky/, whose files husky's run.
// lore's part is a block between "# >>> lore: …" and "# <<< lore <<<": in
// a new hook after #!/bin/sh, in a user's shell hook right after its
// first line (so that an exit 0 at its end cannot skip it; after husky
// 8's line that sources husky.sh, which runs the hook again; first in a
// script with no #! line); a user's hook in another language is kept as
// <hook>.lore-user and exec'd after lore's block. Uninstall removes the
// block, deletes a hook that held nothing else, and puts a kept hook
// back. Which lore the hooks run (HookSetup): in .git/hooks, the lore
// that installed them, by the absolute path InstallGitHooks records
// (LoreBinary: os.Executable's answer, symlinks resolved), else lore on
// PATH (FindLore) — git run from a GUI client or an IDE often has no lore
// on its PATH; in a directory of the worktree (GitHooksDir's shared: the
// files are the project's, everyone who clones it runs them), lore on
// PATH alone, so that no one's path is committed. A lore that go run
// built (GoRunBuild) is never recorded. pre-commit runs `lore validate
// --staged`, which judges what the commit changes from HEAD; with no lore
// to run it asks git whether the commit changes the store's .agent/ (git
// diff --cached --quiet; in a merge or a cherry-pick, a file taken as the
// other side has it is not this commit's change): a commit that does not
// passes, one that does is refused and told how to go on (install lore,
// or git commit --no-verify). The post-* hooks start `lore index
// refresh` in the background, return at once, and without lore do
// nothing. GitHooksStatus reads back the path each hook records;
// PreCommitFramework tells a hook the pre-commit framework wrote.
//
// The merge driver: .gitattributes (committed with the store, through
// AttributesEdit) sends .agent/memories.md and .agent/**/*.md to the
// driver named "lore"; each clone's .git/config says what it runs
// (RegisterMergeDriver, which changes only the lines of [merge "lore"],
// under config.lock): `lore merge-driver %O %A %B %P` by the lore that
// registered it (LoreBinary), else lore on PATH (FindLore's code on one
// line), else — or when lore could not merge, an exit status above 1 —
// `git merge-file`, which leaves markers around both sides. Without the
// configuration git falls back to its own line merge (lore resolve,
// package mdstore/resolve, merges a file it left in conflict again while
// git's index holds the file's stages; the driver's message names it when
// it finds no lore); CheckMergeDriver, which every lore command runs,
// registers the driver in a fresh clone, upgrades one that runs lore by
// name, a lore that is gone, one go run built or lore's previous
// command, and says once when it cannot. lore hooks uninstall leaves it:
// it belongs to the store. The merge itself is package mdstore/merge.
//
// Claude Code: its .claude/settings.json gets lore's SessionStart and Stop
// hooks spliced into the user's text, never written again lore's way. The
// file is read with the offset of every value (jsonText: encoding/json's
// tokenizer and its input offsets), lore decides on the decoded values —
// its entries are found by their command — and its edits are byte ranges
// of the text. Install only inserts: a group at the end of an event's
// list, an event at the end of "hooks", "hooks" at the end of the
// settings, each written like its siblings (their separator and
// indentation, tabs or spaces, CRLF or LF, on one line in a one-line
// list or object). Uninstall cuts each entry with the separator install
// put before it, and the lists and objects that held only lore's, so
// install then uninstall gives back the file byte for byte — but for an
// event list or "hooks" that was empty, which goes too, and a file lore
// cannot tell from its own. Where there is no file lore writes its own,
// with two spaces, and removes it on uninstall. A "hooks" that is not an
// object, or an event that is not a list, is refused, as is a file that
// is not JSON. The Stop hook's payload and the session transcript are
// read back so that `lore ingest --hook claude` records the agent's last
// turn (LastTurn): its text, its model, how long it took (the timestamps
// of the message the person typed and of the last answer) and the files
// its Edit, Write, MultiEdit and NotebookEdit tool uses name
// (FilesRelativeTo makes them the repository's). The SessionStart
// payload only names the session: prime does without it.
package hooks
