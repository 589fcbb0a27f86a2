package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/loretest"
)

// TestPreCommitHookWithoutLoreOnPath: git run from a GUI client or an IDE
// often has no lore on its PATH, and the pre-commit hook used to warn and
// let a commit carrying a token through. Real git commits drive the hook
// lore installed, with a PATH that holds git and the shell's tools but no
// lore: the hook runs the lore that installed it, by the path it recorded
// (symlinks resolved); with that one gone it runs lore on PATH; with
// neither it refuses the commit and says how to go on.
func TestPreCommitHookWithoutLoreOnPath(t *testing.T) {
	built := buildLore(t)
	installed := filepath.Join(t.TempDir(), "lore")
	copyFile(t, built, installed)
	links := t.TempDir() // where a package manager would put its link
	if err := os.Symlink(installed, filepath.Join(links, "lore")); err != nil {
		t.Fatal(err)
	}
	stripped := pathWithoutLore(t)

	r := loretest.NewRepo(t)
	r.Setenv("PATH", stripped)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	bin := filepath.Join(links, "lore")
	lore := func(args ...string) (string, error) {
		cmd := r.Command("")
		cmd.Path, cmd.Args = bin, append([]string{"lore"}, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.String(), err
	}
	for _, args := range [][]string{{"init"}, {"hooks", "install"}} {
		if out, err := lore(args...); err != nil {
			t.Fatalf("lore %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	status, err := lore("hooks", "status")
	if err != nil || !strings.Contains(status, "  runs:          "+installed+"\n") {
		t.Fatalf("hooks status: %v\n%s", err, status)
	}

	commit := func(file, content string, args ...string) (string, error) {
		r.Write(file, content)
		r.Git("add", file)
		return r.GitErr(append([]string{"commit", "-q", "-m", "edit " + file}, args...)...)
	}
	secret := "---\ntitle: \"Deploy\"\ntags: [\"deploy\"]\n---\n\nUse postgres://app:Z1U9ueHK7CN1w4zPbW@db:5432/app.\n"

	// The recorded lore runs: a secret is refused, a clean change passes.
	if out, err := commit(".agent/knowledge/deploy.md", secret); err == nil || !strings.Contains(out, "error: password in a URL (rule url-password)") {
		t.Fatalf("a commit with a secret: %v\n%s", err, out)
	}
	r.Git("reset", "-q")
	if out, err := commit("notes.txt", "a note\n"); err != nil {
		t.Fatalf("a clean commit: %v\n%s", err, out)
	}

	// The recorded lore is gone and none is on PATH: a commit that
	// changes .agent/ is refused, and told how to go on; --no-verify goes
	// through. One that changes nothing there goes through (there is
	// nothing to check). post-checkout says nothing.
	if err := os.Remove(installed); err != nil {
		t.Fatal(err)
	}
	if out, err := commit("notes.txt", "a second note\n"); err != nil {
		t.Fatalf("a commit outside .agent/ with no lore to run: %v\n%s", err, out)
	}
	out, err := commit(".agent/knowledge/deploy.md", strings.ReplaceAll(secret, "postgres://app:Z1U9ueHK7CN1w4zPbW@db:5432/app", "the usual database"))
	if err == nil || !strings.Contains(out, "lore, which checks it for secrets and broken entries, is not at "+installed+" nor on PATH") || !strings.Contains(out, "git commit --no-verify") {
		t.Fatalf("a commit of .agent/ with no lore to run: %v\n%s", err, out)
	}
	if out, err := r.GitErr("commit", "-q", "--no-verify", "-m", "skip the check"); err != nil {
		t.Fatalf("git commit --no-verify: %v\n%s", err, out)
	}
	if out, err := r.GitErr("checkout", "-q", "-b", "other"); err != nil || out != "" {
		t.Fatalf("git checkout with no lore to run: %v\n%s", err, out)
	}

	// With lore on PATH, the hook falls back to it.
	onPath := t.TempDir()
	copyFile(t, built, filepath.Join(onPath, "lore"))
	r.Setenv("PATH", onPath+string(filepath.ListSeparator)+stripped)
	bin = filepath.Join(onPath, "lore")
	status, err = lore("hooks", "status")
	if want := "  runs:          " + installed + ", which is missing, so the hooks run lore on PATH, " + bin + "\n"; err != nil || !strings.Contains(status, want) {
		t.Fatalf("hooks status: %v\n%s\nwant %s", err, status, want)
	}
	if out, err := commit(".agent/knowledge/deploy.md", secret); err == nil || !strings.Contains(out, "(rule url-password)") {
		t.Fatalf("a commit with a secret, lore on PATH: %v\n%s", err, out)
	}
	r.Git("reset", "-q")
	if out, err := commit("notes.txt", "a third note\n"); err != nil {
		t.Fatalf("a clean commit, lore on PATH: %v\n%s", err, out)
	}
	if got := r.Git("log", "--all", "--format=%s", "-p"); strings.Contains(got, "Z1U9ueHK7CN1w4zPbW") {
		t.Fatalf("a commit holds the secret:\n%s", got)
	}
}

// pathWithoutLore is a PATH that holds git and the shell's tools but no
// lore, as a GUI client or an IDE may run git with; the test is skipped
// when there is none.
func pathWithoutLore(t *testing.T) string {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	stripped := filepath.Dir(gitPath) + string(filepath.ListSeparator) + "/usr/bin" + string(filepath.ListSeparator) + "/bin"
	for _, dir := range filepath.SplitList(stripped) {
		if _, err := os.Stat(filepath.Join(dir, "lore")); err == nil {
			t.Skipf("%s holds a lore: no PATH without one here", dir)
		}
	}
	return stripped
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o755); err != nil {
		t.Fatal(err)
	}
}
