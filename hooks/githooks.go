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
)

// A GitHook is a git hook lore takes part in, and the lines it runs there.
type GitHook struct {
	Name string
	// Body is lore's part: shell lines run with the hook's arguments,
	// after FindLore's, so $lore_bin is the lore to run or "" for none.
	Body string
}

// GitHooks are the hooks `lore hooks install` writes. pre-commit refuses
// a commit whose changes to the staged .agent/ files do not validate, and
// fails closed: with no lore to run, it refuses the commit and says how
// to go on. The others bring the search index up to date after git moved
// the worktree, in the background, and never fail the git command.
var GitHooks = []GitHook{
	{Name: "pre-commit", Body: `if [ -z "$lore_bin" ]; then
	echo "lore hooks: lore is not at ${lore_want:-a recorded path} and not on PATH, so the staged .agent/ files cannot be checked for secrets: the commit is refused." >&2
	echo "lore hooks: install lore and run lore hooks install again (or put lore on PATH), or commit with git commit --no-verify to skip the check." >&2
	exit 1
fi
"$lore_bin" validate --staged || exit 1`},
	{Name: "post-merge", Body: refreshIndex},
	{Name: "post-checkout", Body: refreshIndex},
	{Name: "post-rewrite", Body: refreshIndex},
}

const refreshIndex = `if [ -n "$lore_bin" ]; then
	("$lore_bin" index refresh >/dev/null 2>&1 &) # in the background: never slows or fails git
fi`

// block is lore's part of hook h, running the lore at path.
func (h GitHook) block(lore string) string {
	return blockStart + "\n" + FindLore(lore) + h.Body + "\n" + blockEnd + "\n"
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
// creating it if needed; the hooks run the lore at path (LoreBinary; ""
// for lore on PATH alone). A hook that does not exist is created; a shell
// script of the user's gets lore's block right after its first line; any
// other program is kept as <name>.lore-user and called by a new hook
// after lore's part. Installing twice changes nothing; installing with
// another lore updates the path.
func InstallGitHooks(dir, lore string) ([]HookChange, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []HookChange
	for _, h := range GitHooks {
		c, err := installHook(dir, h, lore)
		if err != nil {
			return out, err
		}
		out = append(out, c)
	}
	return out, nil
}

func installHook(dir string, h GitHook, lore string) (HookChange, error) {
	path := filepath.Join(dir, h.Name)
	change := HookChange{Name: h.Name, Path: path}
	block := h.block(lore)
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
		first, rest, _ := strings.Cut(text, "\n")
		change.Action = "added to"
		if !strings.HasPrefix(first, "#!") {
			first, rest = shebang, text
		}
		return change, writeHook(path, []byte(first+"\n"+block+rest))
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
// holds of lore's.
func GitHooksStatus(dir string) ([]HookState, error) {
	var out []HookState
	for _, h := range GitHooks {
		st := HookState{Name: h.Name, Path: filepath.Join(dir, h.Name)}
		data, err := os.ReadFile(st.Path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		text := string(data)
		if start, end, ok := findBlock(text); ok {
			lore, recorded := recordedLore(text[start:end])
			st.Lore = lore
			st.Installed = recorded && text[start:end] == h.block(lore)
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
