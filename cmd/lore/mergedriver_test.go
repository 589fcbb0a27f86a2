package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// runLoreIn runs the lore binary bin in dir with the repository's
// environment and returns what it printed (stdout, then stderr).
func runLoreIn(t *testing.T, r *loretest.Repo, dir, bin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := r.Command(dir)
	cmd.Path, cmd.Args = bin, append([]string{"lore"}, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// mustLore is runLoreIn that fails the test when lore fails, and returns
// its stderr.
func mustLore(t *testing.T, r *loretest.Repo, dir, bin string, args ...string) string {
	t.Helper()
	out, errOut, err := runLoreIn(t, r, dir, bin, args...)
	if err != nil {
		t.Fatalf("lore %s: %v\n%s%s", strings.Join(args, " "), err, out, errOut)
	}
	return errOut
}

// addMemoryByHand writes a memory right under ## Patterns of the
// memories.md in dir, as lore add places it, and commits it with C git:
// two branches that each do so conflict line by line.
func addMemoryByHand(t *testing.T, r *loretest.Repo, dir, id, text string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(entry.MemoriesPath))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block := entry.FormatMemory(entry.Memory{ID: id, Content: text, Tags: []string{"t"}, Created: "2026-01-01"})
	next := strings.Replace(string(data), "## Patterns\n", "## Patterns\n\n"+block, 1)
	if err := os.WriteFile(path, []byte(next), 0o644); err != nil {
		t.Fatal(err)
	}
	r.GitIn(dir, "commit", "-q", "-am", "add "+id)
}

// conflicted is what C git lists as unmerged in dir.
func conflicted(r *loretest.Repo, dir string) string {
	return r.GitIn(dir, "diff", "--name-only", "--diff-filter=U")
}

// TestMergeDriverWithoutLoreOnPath: the merge driver was registered by
// its bare name, `lore merge-driver`. Where git runs without lore on its
// PATH (a GUI client, an IDE, a CI image) git reported a conflict in
// memories.md but left ours only, without markers, and resolving it
// dropped the other branch's memories. The driver now runs the lore that
// registered it, by its absolute path; with that one gone, lore on PATH;
// with neither, git merge-file, which leaves both sides between markers.
func TestMergeDriverWithoutLoreOnPath(t *testing.T) {
	built := buildLore(t)
	installed := filepath.Join(t.TempDir(), "lore")
	copyFile(t, built, installed)
	stripped := pathWithoutLore(t)
	r := loretest.NewRepo(t)
	r.Setenv("PATH", stripped)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	mustLore(t, r, "", installed, "init")

	n := 0
	// diverge adds a memory on a new branch and another on main, and
	// merges the branch into main with C git.
	diverge := func() (side, ours, out string, err error) {
		n++
		branch := fmt.Sprintf("side-%d", n)
		side, ours = fmt.Sprintf("Side memory %d", n), fmt.Sprintf("Main memory %d", n)
		r.Git("checkout", "-q", "-b", branch)
		addMemoryByHand(t, r, r.Dir, fmt.Sprintf("mem-17000000%02d-a%03x", n, n), side)
		r.Git("checkout", "-q", "main")
		addMemoryByHand(t, r, r.Dir, fmt.Sprintf("mem-17000001%02d-b%03x", n, n), ours)
		out, err = r.GitErr("merge", "--no-edit", branch)
		return side, ours, out, err
	}
	cleanMerge := func(what string) {
		t.Helper()
		side, ours, out, err := diverge()
		got := r.Read(entry.MemoriesPath)
		if err != nil || strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "> "+side+"\n") || !strings.Contains(got, "> "+ours+"\n") {
			t.Fatalf("%s: git merge: %v\n%s\n%s", what, err, out, got)
		}
		r.AssertClean()
	}

	cleanMerge("the lore that registered the driver, no lore on PATH")

	if err := os.Remove(installed); err != nil {
		t.Fatal(err)
	}
	onPath := t.TempDir()
	copyFile(t, built, filepath.Join(onPath, "lore"))
	r.Setenv("PATH", onPath+string(filepath.ListSeparator)+stripped)
	cleanMerge("that lore gone, lore on PATH")

	// Neither: git merge-file leaves both sides between markers, and the
	// driver says why.
	r.Setenv("PATH", stripped)
	side, ours, out, err := diverge()
	if err == nil {
		t.Fatalf("git merge with no lore to run succeeded:\n%s", out)
	}
	if got := conflicted(r, r.Dir); got != entry.MemoriesPath {
		t.Fatalf("unmerged paths %q\n%s", got, out)
	}
	got := r.Read(entry.MemoriesPath)
	for _, want := range []string{"<<<<<<< ours\n", "\n=======\n", ">>>>>>> theirs\n", "> " + side + "\n", "> " + ours + "\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("memories.md lacks %q:\n%s\ngit merge said:\n%s", want, got, out)
		}
	}
	if !strings.Contains(out, "no lore at "+installed+" nor on PATH") || !strings.Contains(out, "git merge-file merges .agent/memories.md by lines; lore resolve merges it entry by entry once lore is installed") {
		t.Errorf("git merge said:\n%s", out)
	}
	// With lore back, lore resolve merges it entry by entry, and the
	// merge concludes.
	r.Setenv("PATH", onPath+string(filepath.ListSeparator)+stripped)
	mustLore(t, r, "", filepath.Join(onPath, "lore"), "resolve")
	got = r.Read(entry.MemoriesPath)
	if strings.Contains(got, "<<<<<<<") || !strings.Contains(got, "> "+side+"\n") || !strings.Contains(got, "> "+ours+"\n") {
		t.Fatalf("after lore resolve:\n%s", got)
	}
	r.Git("commit", "-q", "--no-edit")
	r.AssertClean()
}

// TestFreshCloneGetsTheMergeDriver: a fresh clone (a teammate, a CI
// runner) has .gitattributes sending lore's files to the driver but no
// driver in its configuration, so memories.md merged line by line and
// stopped on a conflict, and no lore command said so. The first lore
// command run in the clone registers the driver there, once, and says so;
// one that cannot says, once, how to; a registration by bare name is
// upgraded. Without any lore command git's own merge keeps both sides
// between markers.
func TestFreshCloneGetsTheMergeDriver(t *testing.T) {
	built := buildLore(t)
	installed := filepath.Join(t.TempDir(), "lore")
	copyFile(t, built, installed)
	r := loretest.NewRepo(t)
	r.Setenv("PATH", pathWithoutLore(t))
	r.Git("config", "--global", "user.name", "Test Person") // for the clones
	r.Git("config", "--global", "user.email", "test@example.com")
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	mustLore(t, r, "", installed, "init")
	mustLore(t, r, "", installed, "add", "Shared memory", "--tags", "misc")
	r.Git("checkout", "-q", "-b", "team")
	mustLore(t, r, "", installed, "add", "Team memory", "--tags", "misc")
	mustLore(t, r, "", installed, "knowledge", "add", "--title", "Release", "--tags", "release", "Tag, build, publish.")
	r.Git("checkout", "-q", "main")

	clone := func(name string) string {
		dir := filepath.Join(t.TempDir(), name)
		r.Git("clone", "-q", r.Dir, dir)
		if _, err := r.GitErr("-C", dir, "config", "merge.lore.driver"); err == nil {
			t.Fatalf("%s: a fresh clone has a merge driver", name)
		}
		return dir
	}
	const registered = "registered lore's merge driver in .git/config"

	// One lore command registers it, and says so once.
	dir := clone("teammate")
	if errOut := mustLore(t, r, dir, installed, "list"); !strings.Contains(errOut, registered) {
		t.Fatalf("the first lore command in a fresh clone said:\n%s", errOut)
	}
	if errOut := mustLore(t, r, dir, installed, "list"); errOut != "" {
		t.Fatalf("the second lore command said:\n%s", errOut)
	}
	if driver := r.GitIn(dir, "config", "merge.lore.driver"); !strings.Contains(driver, installed) {
		t.Fatalf("driver %q", driver)
	}
	if status := r.GitIn(dir, "status", "--porcelain"); status != "" {
		t.Fatalf("registering changed the worktree:\n%s", status)
	}
	mustLore(t, r, dir, installed, "add", "Teammate memory", "--tags", "misc")
	if out, err := r.GitErr("-C", dir, "merge", "--no-edit", "origin/team"); err != nil {
		t.Fatalf("git merge in the clone: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(entry.MemoriesPath)))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"> Shared memory\n", "> Team memory\n", "> Teammate memory\n"} {
		if !strings.Contains(string(got), want) {
			t.Fatalf("merged memories.md lacks %q:\n%s", want, got)
		}
	}

	// No lore command: git's own line merge, both sides between markers.
	dir = clone("ci")
	addMemoryByHand(t, r, dir, "mem-1700000200-c001", "CI memory")
	if out, err := r.GitErr("-C", dir, "merge", "--no-edit", "origin/team"); err == nil {
		t.Fatalf("git merge without the driver succeeded:\n%s", out)
	}
	if got := conflicted(r, dir); got != entry.MemoriesPath {
		t.Fatalf("unmerged paths %q", got)
	}
	got, _ = os.ReadFile(filepath.Join(dir, filepath.FromSlash(entry.MemoriesPath)))
	if !strings.Contains(string(got), "<<<<<<<") || !strings.Contains(string(got), "> CI memory\n") || !strings.Contains(string(got), "> Team memory\n") {
		t.Fatalf("memories.md:\n%s", got)
	}
	r.GitIn(dir, "merge", "--abort")

	// A registration by bare name is upgraded by the next lore command,
	// after which the merge is clean with no lore on PATH.
	r.GitIn(dir, "config", "merge.lore.driver", "lore merge-driver %O %A %B %P")
	if errOut := mustLore(t, r, dir, installed, "list"); !strings.Contains(errOut, "lore's merge driver") || !strings.Contains(errOut, "PATH") {
		t.Fatalf("lore list with a driver registered by name said:\n%s", errOut)
	}
	if out, err := r.GitErr("-C", dir, "merge", "--no-edit", "origin/team"); err != nil {
		t.Fatalf("git merge after the upgrade: %v\n%s", err, out)
	}

	// A clone whose configuration cannot be written (config.lock held):
	// told once how to register it; registered once it can be.
	dir = clone("locked")
	lock := filepath.Join(dir, ".git", "config.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if errOut := mustLore(t, r, dir, installed, "list"); !strings.Contains(errOut, "lore init") || strings.Contains(errOut, registered) {
		t.Fatalf("lore list, configuration locked, said:\n%s", errOut)
	}
	if errOut := mustLore(t, r, dir, installed, "list"); errOut != "" {
		t.Fatalf("the second lore list, configuration locked, said:\n%s", errOut)
	}
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if errOut := mustLore(t, r, dir, installed, "list"); !strings.Contains(errOut, registered) {
		t.Fatalf("lore list, lock gone, said:\n%s", errOut)
	}
	if status := r.GitIn(dir, "status", "--porcelain"); status != "" {
		t.Fatalf("the worktree changed:\n%s", status)
	}
}
