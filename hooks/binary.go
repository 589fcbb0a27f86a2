package hooks

import (
	"os"
	"path/filepath"
	"strings"
)

// Which lore a hook runs. A hook that calls lore by name depends on the
// PATH of whatever runs git: a GUI client or an IDE often has none with
// lore on it, and a pre-commit hook that then lets the commit through
// lets a secret through. So what installs a hook of the clone's own
// records the lore that installed it, by absolute path (LoreBinary), and
// the hook runs that one, or lore on PATH when it is gone (FindLore). A
// hook file the project shares is everyone's, and records no one's path:
// it runs lore on PATH (HookSetup). Neither records a lore go run built,
// which does not last (GoRunBuild).

// LoreBinary is the path a hook records for the lore that installs it:
// executable — what os.Executable says of the running lore, which only
// package main may ask — made absolute, with symlinks resolved, so that
// the hook does not depend on the directory it runs in nor on a link
// that is later pointed elsewhere. A program the go command built for
// one run (`go run ./cmd/lore`, GoRunBuild) is no lore to record: it is
// refused with a *GoRunError, and the hooks and the merge driver run
// lore on PATH instead.
func LoreBinary(executable string) (string, error) {
	abs, err := filepath.Abs(executable)
	if err != nil {
		return "", err
	}
	path, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	if GoRunBuild(path) {
		return "", &GoRunError{Path: path}
	}
	return path, nil
}

// GoRunError is LoreBinary's refusal of a lore that `go run` built.
type GoRunError struct{ Path string }

func (e *GoRunError) Error() string {
	return e.Path + " is a build of go run, which the go command removes or replaces: nothing is to run it later"
}

// GoRunBuild reports whether path is a program the go command built for
// one run rather than installed: one in its work directory
// (<temp>/go-build<digits>/…, removed when go exits; go test's binaries
// are there too), or one go run keeps in the build cache since Go 1.24
// (<GOCACHE>/<2 hex>/<64 hex>-d/<name>, trimmed from the cache when
// unused). A hook or a merge driver that recorded it would run a program
// that is soon gone, or one of whatever the cache holds then.
func GoRunBuild(path string) bool {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for _, p := range parts[:len(parts)-1] {
		if digits, ok := strings.CutPrefix(p, "go-build"); ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			return true
		}
	}
	n := len(parts)
	if n < 3 {
		return false
	}
	shard, action := parts[n-3], parts[n-2]
	id, ok := strings.CutSuffix(action, "-d")
	return ok && len(shard) == 2 && len(id) == 64 && isHex(id) && strings.HasPrefix(id, shard)
}

func isHex(s string) bool {
	return strings.Trim(s, "0123456789abcdef") == ""
}

// LoreFound reports whether path is a program that can be run: what
// `lore hooks status` says of the lore a hook records.
func LoreFound(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0
}

// FindLore is shell code that sets $lore_bin to the lore to run: path
// (recorded with LoreBinary, and kept in $lore_want; "" for none) when it
// can be run, else lore on PATH, else "". It holds on in a script that
// runs under set -e.
func FindLore(path string) string {
	return "# the lore that ran `lore hooks install`, else lore on PATH\n" + strings.Join(findLoreLines(path), "\n") + "\n"
}

// findLoreLines are FindLore's commands, one a line; the merge driver
// runs them joined on one line.
func findLoreLines(path string) []string {
	return []string{
		"lore_want=" + ShellQuote(path),
		`lore_bin=$lore_want`,
		`if [ ! -f "$lore_bin" ] || [ ! -x "$lore_bin" ]; then lore_bin=$(command -v lore) || lore_bin=; fi`,
	}
}

// recordedLore returns the path FindLore's code in text records, and
// whether text holds such code.
func recordedLore(text string) (string, bool) {
	for _, line := range strings.Split(text, "\n") {
		if quoted, ok := strings.CutPrefix(line, "lore_want="); ok {
			return shellUnquote(quoted)
		}
	}
	return "", false
}

// ShellQuote quotes s as one word for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellUnquote undoes ShellQuote.
func shellUnquote(q string) (string, bool) {
	if len(q) < 2 || q[0] != '\'' || q[len(q)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(q[1:len(q)-1], `'\''`, "'"), true
}

// cutShellWord returns the word ShellQuote wrote at the start of s, as
// written: in single quotes, each quote inside closed, escaped and
// reopened.
func cutShellWord(s string) (string, bool) {
	n := 0
	for {
		if n >= len(s) || s[n] != '\'' {
			return "", false
		}
		end := strings.IndexByte(s[n+1:], '\'')
		if end < 0 {
			return "", false
		}
		n += end + 2
		if !strings.HasPrefix(s[n:], `\''`) {
			return s[:n], true
		}
		n += 2
	}
}
