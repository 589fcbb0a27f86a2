package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore"
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
	path := filepath.Join(dir, filepath.FromSlash(mdstore.MemoriesPath))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block := mdstore.FormatMemory(mdstore.Memory{ID: id, Content: text, Tags: []string{"t"}, Created: "2026-01-01"})
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
		got := r.Read(mdstore.MemoriesPath)
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
	if got := conflicted(r, r.Dir); got != mdstore.MemoriesPath {
		t.Fatalf("unmerged paths %q\n%s", got, out)
	}
	got := r.Read(mdstore.MemoriesPath)
	for _, want := range []string{"<<<<<<< ours\n", "\n=======\n", ">>>>>>> theirs\n", "> " + side + "\n", "> " + ours + "\n"} {
		if !strings.Contains(got, want) {
			t.Fatalf("memories.md lacks %q:\n%s\ngit merge said:\n%s", want, got, out)
		}
	}
	if !strings.Contains(out, "no lore at "+installed+" nor on PATH") || !strings.Contains(out, "git merge-file") {
		t.Errorf("git merge said:\n%s", out)
	}
	r.Git("merge", "--abort")
}
