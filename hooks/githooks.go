package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore/entry"
)

// A GitHook is a git hook lore takes part in, and the lines it runs there.
type GitHook struct {
	Name string
	// body is lore's part: shell lines run with the hook's arguments,
	// after those that set $lore_bin to the lore to run ("" for none).
	body func(HookSetup) string
}

// HookSetup is what the hooks lore writes run, and for which store.
type HookSetup struct {
	// Lore is the lore the hooks run by its absolute path (LoreBinary),
	// else lore on PATH. "" runs lore on PATH alone: what a hook file the
	// project shares holds (GitHooksDir), and what is left when the
	// running lore cannot be told or is a build of go run.
	Lore string
	// Store is the store's directory relative to the top of the
	// worktree, "" for the top: pre-commit checks its .agent/.
	Store string
}

// GitHooks are the hooks `lore hooks install` writes. pre-commit refuses
// a commit whose changes to the staged .agent/ files do not validate.
// Without lore to run it checks with git alone whether the commit changes
// the store: a commit that does not passes, so that a teammate without
// lore commits as before; one that does is refused (nothing could check
// it for secrets), and told how to go on. The others bring the search
// index up to date after git moved the worktree, in the background, and
// never fail the git command; without lore they do nothing.
var GitHooks = []GitHook{
	{Name: "pre-commit", body: preCommit},
	{Name: "post-merge", body: refreshIndex},
	{Name: "post-checkout", body: refreshIndex},
	{Name: "post-rewrite", body: refreshIndex},
}

func preCommit(setup HookSetup) string {
	store := entry.Dir
	validate := `"$lore_bin" validate --staged`
	if setup.Store != "" {
		store = setup.Store + "/" + entry.Dir
		validate = `"$lore_bin" --root ` + ShellQuote(setup.Store) + ` validate --staged`
	}
	where := "on PATH"
	if setup.Lore != "" {
		where = "at $lore_want nor on PATH"
	}
	// git runs the hook at the top of the worktree, with GIT_INDEX_FILE
	// naming the index the commit is made of; an error of git's (exit
	// status above 1) refuses the commit too. In a merge or a cherry-pick
	// that stopped on a conflict, a file of the store that the commit
	// takes as the other side has it is not a change of this commit's (it
	// was checked where it was made): a teammate without lore who settles
	// a conflict in the code of a merge that brings memories commits it.
	// The script holds under sh -e (husky) and set -u.
	return `lore_store=` + ShellQuote(store) + `
if [ -n "$lore_bin" ]; then
	` + validate + ` || exit 1
else
	lore_changed=0
	git diff --cached --quiet --no-ext-diff -- "$lore_store" 2>/dev/null || lore_changed=$?
	if [ "$lore_changed" = 1 ] && lore_from=$(git rev-parse -q --verify MERGE_HEAD 2>/dev/null || git rev-parse -q --verify CHERRY_PICK_HEAD 2>/dev/null); then
		lore_changed=0
		lore_paths=$(git diff --cached --name-only --no-renames -- "$lore_store" 2>/dev/null) || lore_changed=1
		while IFS= read -r lore_path; do
			[ -z "$lore_path" ] || git --literal-pathspecs diff --cached --quiet --no-ext-diff "$lore_from" -- "$lore_path" 2>/dev/null || lore_changed=1
		done <<lore_paths_end
$lore_paths
lore_paths_end
	fi
	if [ "$lore_changed" != 0 ]; then
		echo "lore hooks: this commit changes $lore_store/, and lore, which checks it for secrets and broken entries, is not ` + where + `: the commit is refused." >&2
		echo "lore hooks: install lore (in a clone of lore: go install ./cmd/...; or as this project's README says) and commit again, or skip the check with git commit --no-verify." >&2
		exit 1
	fi
fi`
}

func refreshIndex(HookSetup) string {
	return `if [ -n "$lore_bin" ]; then
	("$lore_bin" index refresh >/dev/null 2>&1 &) # in the background: never slows or fails git
fi`
}

// block is lore's part of hook h.
func (h GitHook) block(setup HookSetup) string {
	find := FindLore(setup.Lore)
	if setup.Lore == "" {
		find = findLoreOnPath
	}
	return blockStart + "\n" + find + h.body(setup) + "\n" + blockEnd + "\n"
}

// findLoreOnPath sets $lore_bin in a hook that records no lore: one the
// project shares, which names no one's own path to lore.
const findLoreOnPath = "# lore on PATH: a hook the project shares names no one's own lore\n" +
	"lore_bin=$(command -v lore) || lore_bin=\n"

// GitHooksDir is where lore installs git's hooks in repo, and whether
// the files there are the project's, shared with everyone who clones it.
// It is git's hooks directory (core.hooksPath, else .git/hooks), except
// under husky 9: its core.hooksPath is .husky/_, scripts husky writes
// again on every install that each run the project's own .husky/<hook>,
// so lore's lines go into .husky/<hook>. A directory of the worktree
// (husky's .husky/, a .githooks/ the project tracks) is shared: the
// hooks there name lore on PATH, never one person's path to it.
func GitHooksDir(repo *gitx.Repo) (dir string, shared bool) {
	dir = repo.HooksDir()
	if filepath.Base(dir) == "_" {
		if info, err := os.Stat(filepath.Join(dir, "h")); err == nil && info.Mode().IsRegular() {
			dir = filepath.Dir(dir)
		}
	}
	return dir, within(repo.WorkTree, dir) && !within(repo.GitDir, dir) && !within(repo.CommonDir, dir)
}

// preCommitFrameworkMark is in every hook the pre-commit framework
// (pre-commit.com) writes.
const preCommitFrameworkMark = "File generated by pre-commit"

// PreCommitFramework reports whether the pre-commit hook in dir is the
// pre-commit framework's (or hands over to it, chained): `pre-commit
// install` writes such a hook again, without lore's lines, and the
// framework shares a check with the team through .pre-commit-config.yaml
// (lore's hook lore-validate) rather than through a hook file.
func PreCommitFramework(dir string) bool {
	for _, name := range []string{"pre-commit", "pre-commit" + userHookSuffix} {
		data, err := fsx.ReadRegular(filepath.Join(dir, name), 1<<20)
		if err == nil && bytes.Contains(data, []byte(preCommitFrameworkMark)) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or below it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Lore's lines in a hook file sit between these markers, so that they can
// be found, replaced and removed without touching the user's own lines.
const (
	blockStart = "# >>> lore: managed by `lore hooks install`; `lore hooks uninstall` removes it >>>"
	blockEnd   = "# <<< lore <<<"
	shebang    = "#!/bin/sh"
)

// userHookSuffix names the user's own hook when it is not a shell script:
// lore's hook runs its part, then hands over to it.
const userHookSuffix = ".lore-user"

// HookState is what a hook file holds of lore's.
type HookState struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Lore is the lore the hook runs, recorded when it was installed
	// ("" for none: it runs lore on PATH).
	Lore string `json:"lore,omitempty"`
	// Installed: the file runs lore's current lines; Outdated: it runs
	// an older version of them.
	Installed bool `json:"installed"`
	Outdated  bool `json:"outdated,omitempty"`
	// Shared: the file also holds the user's own lines (lore's block sits
	// in it); Chained: it hands over to the user's hook, kept beside it.
	Shared  bool `json:"shared,omitempty"`
	Chained bool `json:"chained,omitempty"`
}

// HookChange says what Install or Uninstall did to one hook.
type HookChange struct {
	Name, Path string
	// Action is "created", "added to", "updated in", "chained to",
	// "removed", "removed from", "unchained from", or "" (nothing to do).
	Action string
}

// InstallGitHooks writes lore's part of every hook in GitHooks into dir,
// creating it if needed; the hooks run what setup says. A hook that does
// not exist is created; a shell script of the user's gets lore's block
// right after its first line (after husky 8's line that sources
// husky.sh, which runs the hook again and exits; at the top of a script
// without a #! line, which git runs with sh); any other program is kept
// as <name>.lore-user and called by a new hook after lore's part.
// Installing twice changes nothing; installing with another lore updates
// the path.
func InstallGitHooks(dir string, setup HookSetup) ([]HookChange, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []HookChange
	for _, h := range GitHooks {
		c, err := installHook(dir, h, setup)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func installHook(dir string, h GitHook, setup HookSetup) (HookChange, error) {
	path := filepath.Join(dir, h.Name)
	change := HookChange{Name: h.Name, Path: path}
	block := h.block(setup)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		change.Action = "created"
		return change, writeHook(path, []byte(shebang+"\n"+block))
	case err != nil:
		return change, err
	}
	text := string(data)
	if start, end, ok := findBlock(text); ok {
		if text[start:end] == block {
			return change, nil
		}
		change.Action = "updated in"
		return change, writeHook(path, []byte(text[:start]+block+text[end:]))
	}
	if isShellScript(text) {
		// Right after the shebang, so that an "exit 0" at the end of the
		// user's script cannot skip it.
		change.Action = "added to"
		head, rest := "", text
		if first, after, _ := strings.Cut(text, "\n"); strings.HasPrefix(first, "#!") {
			head, rest = first+"\n", after
		}
		if second, after, ok := strings.Cut(rest, "\n"); ok && sourcesHuskySh(second) {
			head, rest = head+second+"\n", after
		}
		return change, writeHook(path, []byte(head+block+rest))
	}
	// Another program: keep it under another name and call it from a hook
	// of lore's.
	user := path + userHookSuffix
	if _, err := os.Stat(user); err == nil {
		return change, fmt.Errorf("%s is not a shell script and %s already exists; move one of them away and install again", path, user)
	}
	if err := os.Rename(path, user); err != nil {
		return change, err
	}
	change.Action = "chained to"
	chained := shebang + "\n" + block + chainLine(h.Name)
	return change, writeHook(path, []byte(chained))
}

// sourcesHuskySh says whether line is husky 8's second line of a hook,
// `. "$(dirname -- "$0")/_/husky.sh"`: husky.sh runs the hook again under
// sh -e and exits, so lines before it would run twice.
func sourcesHuskySh(line string) bool {
	line = strings.TrimSpace(line)
	return (strings.HasPrefix(line, ". ") || strings.HasPrefix(line, "source ")) && strings.Contains(line, "husky.sh")
}

// chainLine hands over to the user's hook, kept beside lore's.
func chainLine(name string) string {
	return `exec "$(dirname "$0")/` + name + userHookSuffix + `" "$@"` + "\n"
}

// UninstallGitHooks removes lore's part of every hook in dir and nothing
// else: a hook lore created goes, a user's hook loses lore's block, a
// chained user's hook is put back under its own name.
func UninstallGitHooks(dir string) ([]HookChange, error) {
	var out []HookChange
	for _, h := range GitHooks {
		path := filepath.Join(dir, h.Name)
		change := HookChange{Name: h.Name, Path: path}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			out = append(out, change)
			continue
		}
		if err != nil {
			return out, err
		}
		text := string(data)
		start, end, ok := findBlock(text)
		if !ok {
			out = append(out, change)
			continue
		}
		rest := text[:start] + text[end:]
		user := path + userHookSuffix
		switch {
		case rest == shebang+"\n"+chainLine(h.Name):
			if err := os.Rename(user, path); err != nil {
				return out, err
			}
			change.Action = "unchained from"
		case strings.TrimSpace(rest) == shebang || strings.TrimSpace(rest) == "":
			if err := os.Remove(path); err != nil {
				return out, err
			}
			change.Action = "removed"
		default:
			if err := writeHook(path, []byte(rest)); err != nil {
				return out, err
			}
			change.Action = "removed from"
		}
		out = append(out, change)
	}
	return out, nil
}

// GitHooksStatus says, for every hook in GitHooks, what its file in dir
// holds of lore's; store is the store's directory in the worktree
// (HookSetup.Store), which lore's current lines name.
func GitHooksStatus(dir, store string) ([]HookState, error) {
	var out []HookState
	for _, h := range GitHooks {
		st := HookState{Name: h.Name, Path: filepath.Join(dir, h.Name)}
		data, err := os.ReadFile(st.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		text := string(data)
		if start, end, ok := findBlock(text); ok {
			lore, _ := recordedLore(text[start:end])
			st.Lore = lore
			st.Installed = text[start:end] == h.block(HookSetup{Lore: lore, Store: store})
			st.Outdated = !st.Installed
			rest := text[:start] + text[end:]
			st.Chained = rest == shebang+"\n"+chainLine(h.Name)
			st.Shared = !st.Chained && strings.TrimSpace(rest) != shebang && strings.TrimSpace(rest) != ""
		}
		out = append(out, st)
	}
	return out, nil
}

// findBlock locates lore's block (both marker lines, through the newline
// after the end marker).
func findBlock(text string) (start, end int, ok bool) {
	start = strings.Index(text, blockStart)
	if start < 0 {
		return 0, 0, false
	}
	rel := strings.Index(text[start:], blockEnd)
	if rel < 0 {
		return 0, 0, false
	}
	end = start + rel + len(blockEnd)
	if end < len(text) && text[end] == '\n' {
		end++
	}
	return start, end, true
}

// isShellScript says whether a hook is a POSIX shell script (or has no
// interpreter line, which git runs with sh).
func isShellScript(text string) bool {
	first, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(first, "#!") {
		return !bytes.ContainsRune([]byte(text), 0)
	}
	fields := strings.Fields(strings.TrimPrefix(first, "#!"))
	if len(fields) == 0 {
		return false
	}
	interp := filepath.Base(fields[0])
	if interp == "env" && len(fields) > 1 {
		interp = fields[1]
	}
	switch interp {
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		return true
	}
	return false
}

// writeHook replaces a hook file atomically. An existing hook keeps its
// mode, made executable where it is readable (a 0700 hook stays 0700); a
// new one is 0755.
func writeHook(path string, data []byte) error {
	mode := os.FileMode(0o755)
	if info, err := os.Stat(path); err == nil {
		perm := info.Mode().Perm()
		mode = perm | (perm&0o444)>>2
	}
	if err := fsx.WriteFile(path, data, fsx.SyncAll); err != nil {
		return err
	}
	return os.Chmod(path, mode)
}
