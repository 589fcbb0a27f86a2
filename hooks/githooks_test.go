package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func actions(changes []HookChange) string {
	var out []string
	for _, c := range changes {
		out = append(out, c.Name+":"+c.Action)
	}
	return strings.Join(out, " ")
}

// standInLore is a program in a directory of its own, named lore, that
// records its arguments in ran.txt beside it and exits 0: it stands in for
// lore where these tests run a hook by itself (cmd/lore's tests run the
// real lore through git).
func standInLore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "lore")
	script := "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/ran.txt\"\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestInstallIntoAnEmptyDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hooks")
	lore := "/opt/lore's tools/bin/lore" // a quote and a space, for the shell
	changes, err := InstallGitHooks(dir, lore)
	if err != nil {
		t.Fatal(err)
	}
	if got := actions(changes); got != "pre-commit:created post-merge:created post-checkout:created post-rewrite:created" {
		t.Fatalf("install: %s", got)
	}
	for _, h := range GitHooks {
		info, err := os.Stat(filepath.Join(dir, h.Name))
		if err != nil || info.Mode()&0o111 == 0 {
			t.Fatalf("%s: %v, mode %v; want an executable file", h.Name, err, info.Mode())
		}
	}
	if err := exec.Command("sh", "-n", filepath.Join(dir, "pre-commit")).Run(); err != nil {
		t.Fatalf("pre-commit is not valid sh: %v", err)
	}
	again, err := InstallGitHooks(dir, lore)
	if err != nil || actions(again) != "pre-commit: post-merge: post-checkout: post-rewrite:" {
		t.Fatalf("second install: %s, %v; want nothing done", actions(again), err)
	}
	states, _ := GitHooksStatus(dir)
	for _, st := range states {
		if !st.Installed || st.Shared || st.Chained || st.Lore != lore {
			t.Fatalf("status %+v", st)
		}
	}
	// Installed by another lore, the hooks run that one.
	other, err := InstallGitHooks(dir, "/usr/local/bin/lore")
	if err != nil || actions(other) != "pre-commit:updated in post-merge:updated in post-checkout:updated in post-rewrite:updated in" {
		t.Fatalf("install with another lore: %s, %v", actions(other), err)
	}
	if states, _ := GitHooksStatus(dir); !states[0].Installed || states[0].Lore != "/usr/local/bin/lore" {
		t.Fatalf("status %+v", states[0])
	}
	removed, err := UninstallGitHooks(dir)
	if err != nil || actions(removed) != "pre-commit:removed post-merge:removed post-checkout:removed post-rewrite:removed" {
		t.Fatalf("uninstall: %s, %v", actions(removed), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

// A user's shell hook gets lore's block after its first line; uninstall
// gives back the file byte for byte, and the user's lines still run.
func TestInstallBesideAUsersShellHook(t *testing.T) {
	dir := t.TempDir()
	user := "#!/bin/bash\n# the team's checks\necho user-hook-ran > \"$(dirname \"$0\")/ran\"\nexit 0\n"
	os.WriteFile(filepath.Join(dir, "pre-commit"), []byte(user), 0o755)
	lore := standInLore(t)
	changes, err := InstallGitHooks(dir, lore)
	if err != nil || !strings.HasPrefix(actions(changes), "pre-commit:added to ") {
		t.Fatalf("install: %s, %v", actions(changes), err)
	}
	got := readFile(t, filepath.Join(dir, "pre-commit"))
	if !strings.HasPrefix(got, "#!/bin/bash\n"+blockStart) || !strings.HasSuffix(got, user[len("#!/bin/bash\n"):]) {
		t.Fatalf("hook after install:\n%s", got)
	}
	// With no lore on PATH, the hook runs the lore that installed it, and
	// then the user's part.
	cmd := exec.Command("/bin/bash", filepath.Join(dir, "pre-commit"))
	cmd.Env = []string{"PATH=/usr/bin:/bin"} // no lore there
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("hook run: %v\n%s", err, out)
	}
	if readFile(t, filepath.Join(filepath.Dir(lore), "ran.txt")) != "validate --staged\n" {
		t.Fatal("the recorded lore did not run")
	}
	if readFile(t, filepath.Join(dir, "ran")) != "user-hook-ran\n" {
		t.Fatal("the user's lines did not run")
	}
	states, _ := GitHooksStatus(dir)
	if !states[0].Installed || !states[0].Shared {
		t.Fatalf("status %+v, want installed beside the user's lines", states[0])
	}
	if _, err := UninstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "pre-commit")); got != user {
		t.Fatalf("after uninstall:\n%q\nwant\n%q", got, user)
	}
}

// TestPreCommitFailsClosed: with neither the lore that installed the hook
// nor one on PATH, pre-commit refuses the commit and says how to go on
// (it used to warn and let a commit carrying a token through); with the
// recorded one gone, it falls back to lore on PATH; the other hooks never
// fail.
func TestPreCommitFailsClosed(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(t.TempDir(), "lore") // never created
	if _, err := InstallGitHooks(dir, gone); err != nil {
		t.Fatal(err)
	}
	runHook := func(name, path string) (string, error) {
		cmd := exec.Command("/bin/sh", filepath.Join(dir, name))
		cmd.Env = []string{"PATH=" + path}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := runHook("pre-commit", "/usr/bin:/bin")
	if err == nil || !strings.Contains(out, "lore is not at "+gone+" and not on PATH") || !strings.Contains(out, "git commit --no-verify") {
		t.Fatalf("pre-commit without lore: %v\n%s", err, out)
	}
	for _, h := range GitHooks[1:] {
		if out, err := runHook(h.Name, "/usr/bin:/bin"); err != nil || out != "" {
			t.Errorf("%s without lore: %v\n%s", h.Name, err, out)
		}
	}
	onPath := standInLore(t)
	if out, err := runHook("pre-commit", filepath.Dir(onPath)+":/usr/bin:/bin"); err != nil {
		t.Fatalf("pre-commit with lore on PATH: %v\n%s", err, out)
	}
	if readFile(t, filepath.Join(filepath.Dir(onPath), "ran.txt")) != "validate --staged\n" {
		t.Fatal("the lore on PATH did not run")
	}
	// A lore that fails its check fails the commit.
	os.WriteFile(onPath, []byte("#!/bin/sh\necho 'a.md:1: error: secret' >&2\nexit 1\n"), 0o755)
	if out, err := runHook("pre-commit", filepath.Dir(onPath)+":/usr/bin:/bin"); err == nil || !strings.Contains(out, "error: secret") {
		t.Fatalf("pre-commit with a failing check: %v\n%s", err, out)
	}
}

// A hook that is not a shell script is kept under another name and called
// after lore's part; uninstall puts it back.
func TestInstallChainsToAnotherProgram(t *testing.T) {
	dir := t.TempDir()
	py := "#!/usr/bin/env python3\nprint('hello')\n"
	os.WriteFile(filepath.Join(dir, "post-merge"), []byte(py), 0o755)
	changes, err := InstallGitHooks(dir, "")
	if err != nil || !strings.Contains(actions(changes), "post-merge:chained to") {
		t.Fatalf("install: %s, %v", actions(changes), err)
	}
	if readFile(t, filepath.Join(dir, "post-merge"+userHookSuffix)) != py {
		t.Fatal("the user's hook was not kept")
	}
	states, _ := GitHooksStatus(dir)
	if !states[1].Chained {
		t.Fatalf("status %+v, want chained", states[1])
	}
	if _, err := InstallGitHooks(dir, ""); err != nil {
		t.Fatalf("second install: %v", err)
	}
	if _, err := UninstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(dir, "post-merge")) != py {
		t.Fatal("the user's hook was not put back")
	}
	if _, err := os.Stat(filepath.Join(dir, "post-merge"+userHookSuffix)); err == nil {
		t.Fatal("the kept copy is still there")
	}
}

// An older version of lore's block is replaced in place.
func TestInstallUpdatesAnOldBlock(t *testing.T) {
	dir := t.TempDir()
	old := "#!/bin/sh\necho mine\n" + blockStart + "\nlore validate\n" + blockEnd + "\necho after\n"
	os.WriteFile(filepath.Join(dir, "pre-commit"), []byte(old), 0o755)
	states, _ := GitHooksStatus(dir)
	if !states[0].Outdated {
		t.Fatalf("status %+v, want outdated", states[0])
	}
	changes, err := InstallGitHooks(dir, "")
	if err != nil || !strings.HasPrefix(actions(changes), "pre-commit:updated in") {
		t.Fatalf("install: %s, %v", actions(changes), err)
	}
	got := readFile(t, filepath.Join(dir, "pre-commit"))
	if !strings.HasPrefix(got, "#!/bin/sh\necho mine\n"+blockStart) || !strings.HasSuffix(got, blockEnd+"\necho after\n") || strings.Count(got, blockStart) != 1 {
		t.Fatalf("after the update:\n%s", got)
	}
}

// TestInstallKeepsAHooksMode: a user's 0700 hook stays 0700 through
// install and uninstall (install used to widen it to 0755); a readable
// hook that was not executable becomes executable where it is readable.
func TestInstallKeepsAHooksMode(t *testing.T) {
	dir := t.TempDir()
	for name, mode := range map[string]os.FileMode{"pre-commit": 0o700, "post-merge": 0o640} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte("#!/bin/sh\necho mine\n"), 0o600)
		os.Chmod(path, mode)
	}
	if _, err := InstallGitHooks(dir, standInLore(t)); err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{"pre-commit": 0o700, "post-merge": 0o750, "post-checkout": 0o755}
	for name, mode := range want {
		if info, err := os.Stat(filepath.Join(dir, name)); err != nil || info.Mode().Perm() != mode {
			t.Errorf("%s after install: %v %v, want %v", name, info.Mode().Perm(), err, mode)
		}
	}
	if _, err := UninstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(dir, "pre-commit")); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("pre-commit after uninstall: %v %v", info.Mode().Perm(), err)
	}
}
