package hooks

import (
	"os"
	"path/filepath"
	"strings"
)

// Which lore a hook runs. A hook that calls lore by name depends on the
// PATH of whatever runs git: a GUI client or an IDE often has none with
// lore on it, and a pre-commit hook that then lets the commit through
// lets a secret through. So what installs a hook records the lore that
// installed it, by absolute path (LoreBinary), and the hook runs that
// one, or lore on PATH when it is gone (FindLore).

// LoreBinary is the path a hook records for the lore that installs it:
// executable — what os.Executable says of the running lore, which only
// package main may ask — made absolute, with symlinks resolved, so that
// the hook does not depend on the directory it runs in nor on a link
// that is later pointed elsewhere.
func LoreBinary(executable string) (string, error) {
	abs, err := filepath.Abs(executable)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
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
