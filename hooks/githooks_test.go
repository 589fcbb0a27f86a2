package hooks

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/loretest"
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
	changes, err := InstallGitHooks(dir, HookSetup{Lore: lore})
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
	again, err := InstallGitHooks(dir, HookSetup{Lore: lore})
	if err != nil || actions(again) != "pre-commit: post-merge: post-checkout: post-rewrite:" {
		t.Fatalf("second install: %s, %v; want nothing done", actions(again), err)
	}
	states, _ := GitHooksStatus(dir, "")
	for _, st := range states {
		if !st.Installed || st.Shared || st.Chained || st.Lore != lore {
			t.Fatalf("status %+v", st)
		}
	}
	// Installed by another lore, the hooks run that one.
	other, err := InstallGitHooks(dir, HookSetup{Lore: "/usr/local/bin/lore"})
	if err != nil || actions(other) != "pre-commit:updated in post-merge:updated in post-checkout:updated in post-rewrite:updated in" {
		t.Fatalf("install with another lore: %s, %v", actions(other), err)
	}
	if states, _ := GitHooksStatus(dir, ""); !states[0].Installed || states[0].Lore != "/usr/local/bin/lore" {
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
	changes, err := InstallGitHooks(dir, HookSetup{Lore: lore})
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
	states, _ := GitHooksStatus(dir, "")
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
// nor one on PATH, pre-commit refuses a commit that changes .agent/ and
// says how to go on (it used to warn and let a commit carrying a token
// through); a commit that changes nothing there goes through (it used to
// be refused, which locked teammates without lore out of a shared hook);
// with the recorded lore gone, it falls back to lore on PATH; the other
// hooks never fail.
func TestPreCommitFailsClosed(t *testing.T) {
	dir := t.TempDir()
	gone := filepath.Join(t.TempDir(), "lore") // never created
	if _, err := InstallGitHooks(dir, HookSetup{Lore: gone}); err != nil {
		t.Fatal(err)
	}
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	runHook := func(name, path string) (string, error) {
		cmd := exec.Command("/bin/sh", filepath.Join(dir, name))
		cmd.Dir = r.Dir
		cmd.Env = append(r.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	noLore := filepath.Dir(gitPath(t)) + ":/usr/bin:/bin"
	r.Write("README.md", "# p, changed\n")
	r.Git("add", "README.md")
	if out, err := runHook("pre-commit", noLore); err != nil || out != "" {
		t.Fatalf("pre-commit without lore, nothing staged in .agent/: %v\n%s", err, out)
	}
	r.Write(".agent/memories.md", "# Memories\n")
	r.Git("add", ".agent/memories.md")
	out, err := runHook("pre-commit", noLore)
	if err == nil || !strings.Contains(out, "this commit changes .agent/, and lore, which checks it for secrets and broken entries, is not at "+gone+" nor on PATH") ||
		!strings.Contains(out, "go install ./cmd/...") || !strings.Contains(out, "git commit --no-verify") {
		t.Fatalf("pre-commit without lore: %v\n%s", err, out)
	}
	for _, h := range GitHooks[1:] {
		if out, err := runHook(h.Name, noLore); err != nil || out != "" {
			t.Errorf("%s without lore: %v\n%s", h.Name, err, out)
		}
	}
	onPath := standInLore(t)
	if out, err := runHook("pre-commit", filepath.Dir(onPath)+":"+noLore); err != nil {
		t.Fatalf("pre-commit with lore on PATH: %v\n%s", err, out)
	}
	if readFile(t, filepath.Join(filepath.Dir(onPath), "ran.txt")) != "validate --staged\n" {
		t.Fatal("the lore on PATH did not run")
	}
	// A lore that fails its check fails the commit.
	os.WriteFile(onPath, []byte("#!/bin/sh\necho 'a.md:1: error: secret' >&2\nexit 1\n"), 0o755)
	if out, err := runHook("pre-commit", filepath.Dir(onPath)+":"+noLore); err == nil || !strings.Contains(out, "error: secret") {
		t.Fatalf("pre-commit with a failing check: %v\n%s", err, out)
	}
}

// TestPreCommitWithoutLoreInAMerge: in a merge (or a cherry-pick) that
// stopped on a conflict, the store's files the commit takes as the other
// side has them are not this commit's changes, and pass without lore; a
// file of the store that differs from both sides (a hand edit, a merge by
// lines settled by hand) is refused.
func TestPreCommitWithoutLoreInAMerge(t *testing.T) {
	dir := t.TempDir()
	if _, err := InstallGitHooks(dir, HookSetup{}); err != nil {
		t.Fatal(err)
	}
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", ".agent/memories.md": "# Memories\n"})
	r.Git("checkout", "-q", "-b", "side")
	r.Commit("side", map[string]string{"README.md": "# p, side\n", ".agent/memories.md": "# Memories\n\nside\n", ".agent/knowledge/a b*.md": "new\n"})
	r.Git("checkout", "-q", "main")
	r.Commit("main", map[string]string{"README.md": "# p, main\n"})
	if _, err := r.GitErr("merge", "-q", "side"); err == nil {
		t.Fatal("the merge did not conflict")
	}
	r.Write("README.md", "# p, both\n")
	r.Git("add", "README.md")
	run := func() (string, error) {
		cmd := exec.Command("/bin/sh", "-e", filepath.Join(dir, "pre-commit"))
		cmd.Dir = r.Dir
		cmd.Env = append(r.Environ(), "PATH="+filepath.Dir(gitPath(t))+":/usr/bin:/bin")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run(); err != nil {
		t.Fatalf("a merge that takes the other side's memories: %v\n%s", err, out)
	}
	r.Write(".agent/memories.md", "# Memories\n\nside\nby hand\n")
	r.Git("add", ".agent/memories.md")
	if out, err := run(); err == nil || !strings.Contains(out, "this commit changes .agent/") {
		t.Fatalf("a merge with a memory by hand: %v\n%s", err, out)
	}
}

// TestSharedHooksNameLoreOnPath: a hook the project shares (husky's
// .husky/) records no one's path to lore; it runs lore on PATH, with
// --root for a store in a subdirectory, and without lore it checks the
// store's own directory.
func TestSharedHooksNameLoreOnPath(t *testing.T) {
	dir := t.TempDir()
	if _, err := InstallGitHooks(dir, HookSetup{Store: "sub dir"}); err != nil {
		t.Fatal(err)
	}
	for _, h := range GitHooks {
		got := readFile(t, filepath.Join(dir, h.Name))
		if strings.Contains(got, "lore_want") || !strings.Contains(got, "lore_bin=$(command -v lore)") {
			t.Fatalf("%s names a path to lore:\n%s", h.Name, got)
		}
	}
	states, _ := GitHooksStatus(dir, "sub dir")
	if !states[0].Installed || states[0].Lore != "" {
		t.Fatalf("status %+v", states[0])
	}
	if states, _ := GitHooksStatus(dir, ""); states[0].Installed {
		t.Fatalf("status for the store at the top %+v, want outdated", states[0])
	}
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	run := func(path string) (string, error) {
		cmd := exec.Command("/bin/sh", filepath.Join(dir, "pre-commit"))
		cmd.Dir = r.Dir
		cmd.Env = append(r.Environ(), "PATH="+path)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	noLore := filepath.Dir(gitPath(t)) + ":/usr/bin:/bin"
	r.Write(".agent/memories.md", "# Memories\n") // not the store's
	r.Git("add", ".agent/memories.md")
	if out, err := run(noLore); err != nil {
		t.Fatalf("a change beside the store: %v\n%s", err, out)
	}
	r.Write("sub dir/.agent/memories.md", "# Memories\n")
	r.Git("add", "sub dir/.agent/memories.md")
	if out, err := run(noLore); err == nil || !strings.Contains(out, "this commit changes sub dir/.agent/, and lore, which checks it for secrets and broken entries, is not on PATH") {
		t.Fatalf("a change to the store: %v\n%s", err, out)
	}
	lore := standInLore(t)
	if out, err := run(filepath.Dir(lore) + ":" + noLore); err != nil {
		t.Fatalf("with lore on PATH: %v\n%s", err, out)
	}
	if got := readFile(t, filepath.Join(filepath.Dir(lore), "ran.txt")); got != "--root sub dir validate --staged\n" {
		t.Fatalf("lore ran with %q", got)
	}
}

// TestHuskyHooks: husky 8's hooks source husky.sh, which runs the hook
// again under sh -e and exits: lore's lines go after that line, so that
// they run once. husky 9's own scripts (core.hooksPath .husky/_) are
// written again by every install; lore's lines go into the project's
// .husky/<hook>, which they run, and which has no #! line (nor gets one).
func TestHuskyHooks(t *testing.T) {
	dir := t.TempDir()
	v8 := "#!/usr/bin/env sh\n. \"$(dirname -- \"$0\")/_/husky.sh\"\n\nnpx lint-staged\n"
	v9 := "npm test\n"
	os.WriteFile(filepath.Join(dir, "pre-commit"), []byte(v8), 0o755)
	os.WriteFile(filepath.Join(dir, "post-merge"), []byte(v9), 0o644)
	if _, err := InstallGitHooks(dir, HookSetup{}); err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(v8, "\n\n")
	if got := readFile(t, filepath.Join(dir, "pre-commit")); !strings.HasPrefix(got, first+"\n"+blockStart) {
		t.Fatalf("husky 8's hook:\n%s", got)
	}
	if got := readFile(t, filepath.Join(dir, "post-merge")); !strings.HasPrefix(got, blockStart) || !strings.HasSuffix(got, blockEnd+"\n"+v9) {
		t.Fatalf("husky 9's hook:\n%s", got)
	}
	if _, err := UninstallGitHooks(dir); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(dir, "pre-commit")) != v8 || readFile(t, filepath.Join(dir, "post-merge")) != v9 {
		t.Fatal("uninstall did not give the files back")
	}
}

// TestGoRunBuild: the programs the go command builds for one run are
// told from installed ones.
func TestGoRunBuild(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build1028336377/b001/exe/lore": true,
		"/root/.cache/go-build/6b/6b2646d8ba9cb59b53e32672619081c77bcc629ca53c06c5a6c8a306f8e85d83-d/lore": true,
		"/tmp/go-build42/b001/lore.test": true,
		"/home/a/go/bin/lore":            false,
		"/usr/local/bin/lore":            false,
		"/home/a/go-builds/lore":         false,
		"/home/a/go-build/lore":          false,
		"/root/.cache/go-build/6b/7b2646d8ba9cb59b53e32672619081c77bcc629ca53c06c5a6c8a306f8e85d83-d/lore": false,
		"/opt/ab/ab2646d8ba9cb59b53e32672619081c77bcc629ca53c06c5a6c8a306f8e85d8-d/lore":                   false,
	} {
		if got := GoRunBuild(path); got != want {
			t.Errorf("GoRunBuild(%s) = %v, want %v", path, got, want)
		}
	}
	dir := filepath.Join(t.TempDir(), "go-build123", "b001", "exe")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "lore"), nil, 0o755)
	var goRun *GoRunError
	if path, err := LoreBinary(filepath.Join(dir, "lore")); !errors.As(err, &goRun) || path != "" {
		t.Fatalf("LoreBinary of a go run build: %q, %v", path, err)
	}
}

func gitPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	return p
}

// A hook that is not a shell script is kept under another name and called
// after lore's part; uninstall puts it back.
func TestInstallChainsToAnotherProgram(t *testing.T) {
	dir := t.TempDir()
	py := "#!/usr/bin/env python3\nprint('hello')\n"
	os.WriteFile(filepath.Join(dir, "post-merge"), []byte(py), 0o755)
	changes, err := InstallGitHooks(dir, HookSetup{Lore: ""})
	if err != nil || !strings.Contains(actions(changes), "post-merge:chained to") {
		t.Fatalf("install: %s, %v", actions(changes), err)
	}
	if readFile(t, filepath.Join(dir, "post-merge"+userHookSuffix)) != py {
		t.Fatal("the user's hook was not kept")
	}
	states, _ := GitHooksStatus(dir, "")
	if !states[1].Chained {
		t.Fatalf("status %+v, want chained", states[1])
	}
	if _, err := InstallGitHooks(dir, HookSetup{Lore: ""}); err != nil {
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
	states, _ := GitHooksStatus(dir, "")
	if !states[0].Outdated {
		t.Fatalf("status %+v, want outdated", states[0])
	}
	changes, err := InstallGitHooks(dir, HookSetup{Lore: ""})
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
	if _, err := InstallGitHooks(dir, HookSetup{Lore: standInLore(t)}); err != nil {
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
