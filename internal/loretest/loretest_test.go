package loretest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRepoIsDrivenAndCheckedByGit(t *testing.T) {
	r := NewRepo(t)
	r.Commit("initial", map[string]string{"a/b.txt": "b\n", "README.md": "# p\n"})
	r.AssertClean()
	if got := r.Git("log", "--format=%s %an <%ae>"); got != "initial Test Person <test@example.com>" {
		t.Errorf("log: %q", got)
	}
	if r.Read("a/b.txt") != "b\n" {
		t.Error("Read")
	}
	if _, err := r.GitErr("rev-parse", "no-such-ref"); err == nil {
		t.Error("GitErr hid a failure")
	}
	if r.Getenv("HOME") != r.Home || r.Getenv("USER") != "" {
		t.Error("Getenv")
	}
	r.Setenv("GIT_AUTHOR_NAME", "Env Author")
	r.Git("commit", "-q", "--allow-empty", "-m", "second")
	if got := r.Git("log", "-1", "--format=%an"); got != "Env Author" || r.Getenv("GIT_AUTHOR_NAME") != "Env Author" {
		t.Errorf("Setenv: author %q", got)
	}
	clone := filepath.Join(t.TempDir(), "clone")
	r.GitIn("", "clone", "-q", r.Dir, clone)
	if r.GitIn(clone, "rev-parse", "HEAD") != r.Git("rev-parse", "HEAD") {
		t.Error("GitIn")
	}
}

func TestGoldenComparesByteForByte(t *testing.T) {
	if Updating() {
		t.Skip("-update rewrites instead of comparing")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "testdata", "x.txt")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("same\n"), 0o644)
	Golden(t, path, "same\n")
	probe := &testing.T{}
	done := make(chan struct{})
	go func() { // Errorf on a bare T does not stop this test
		defer close(done)
		Golden(probe, path, "same")
	}()
	<-done
	if !probe.Failed() {
		t.Error("a missing line break went unnoticed")
	}
}

// TestHoldingFindsAValueWhereverGitKeepsIt: in a loose object, a packed
// one, an unreachable one, the worktree and the git directory; in any
// case; and nowhere for a value the repository never held.
func TestHoldingFindsAValueWhereverGitKeepsIt(t *testing.T) {
	r := NewRepo(t)
	r.Commit("initial", map[string]string{"a.txt": "the Needle-1 is here\n"})
	want := func(needle string, n int) {
		t.Helper()
		if got := r.Holding(needle); len(got) != n {
			t.Errorf("Holding(%q) = %v, want %d places", needle, got, n)
		}
	}
	want("NEEDLE-1", 2) // the loose blob and a.txt
	if got := r.Holding("needle-1"); !strings.HasPrefix(got[0], "object ") || !strings.HasSuffix(got[0], "(blob)") {
		t.Errorf("Holding names a loose object %q", got[0])
	}
	want("needle-2", 0) // every loose object now known clean of it
	want("needle-1", 2) // but not of another needle
	r.Git("commit", "-q", "--allow-empty", "-m", "subject with needle-2")
	want("needle-2", 4) // the commit, COMMIT_EDITMSG and two reflogs (HEAD's and main's)
	r.Git("gc", "-q")   // packs everything
	if loose := r.Git("count-objects"); !strings.HasPrefix(loose, "0 objects") {
		t.Fatalf("after git gc: %s", loose)
	}
	want("needle-1", 2)
	r.Write("b.txt", "needle-3\n")
	r.Git("add", "b.txt")
	r.Git("rm", "-q", "--cached", "b.txt") // an unreachable blob, loose beside the pack
	want("needle-3", 2)
	want("needle-4", 0)
	if got := r.Holding("needle-4", "needle-3"); len(got) != 2 {
		t.Errorf("Holding of two needles = %v, want the places of either", got)
	}
}

// The programs are built once and found again: the same paths, and each
// runs.
func TestBuiltPrograms(t *testing.T) {
	p := Built(t)
	if again := Built(t); again != p {
		t.Fatalf("built twice: %+v, %+v", p, again)
	}
	for _, bin := range []string{p.Lore, filepath.Join(p.Dir, "lore"), p.Index, p.SQLite, p.MCP} {
		if info, err := os.Stat(bin); err != nil || info.Mode()&0o111 == 0 {
			t.Fatalf("%s: %v", bin, err)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(p.Lore)); len(entries) != 1 {
		t.Fatalf("lore is not alone: %v", entries)
	}
	if out, err := exec.Command(p.Lore, "--version").CombinedOutput(); err != nil || !strings.HasPrefix(string(out), "lore ") {
		t.Fatalf("lore --version: %v\n%s", err, out)
	}
}

// The key of the programs changes with a source of a package they are
// built from, or go.sum, and not with a test, testdata or a package they
// do not import.
func TestSourcesKey(t *testing.T) {
	root := t.TempDir()
	write := func(p, content string) {
		t.Helper()
		p = filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module lore\n\ngo 1.21\n")
	write("go.sum", "")
	write("a/a.go", "package a\n")
	for _, name := range programNames {
		write("cmd/"+name+"/main.go", "package main\n\nimport _ \"lore/a\"\n\nfunc main() {}\n")
	}
	write("bench/main.go", "package main\n\nfunc main() {}\n")
	key := func() string {
		t.Helper()
		k, err := sourcesKey(root)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := key()
	for _, p := range []string{"a/a_test.go", "a/testdata/b.go", "bench/main.go", "a/notes.txt"} {
		write(p, "package a // "+p+"\n")
		if key() != first {
			t.Fatalf("%s changed the key", p)
		}
	}
	for _, p := range []string{"a/a.go", "a/b.go", "cmd/lore-mcp/main.go", "go.sum"} {
		write(p, "package a // changed\n")
		if p == "cmd/lore-mcp/main.go" {
			write(p, "package main\n\nfunc main() {} // changed\n")
		}
		if k := key(); k == first {
			t.Fatalf("%s did not change the key", p)
		} else {
			first = k
		}
	}
}

// NextTick parts what changed before it from what changes after it, by
// the file system's clock; a SettleClock stands still until Settle moves
// it the window past the tick.
func TestNextTickAndSettleClock(t *testing.T) {
	dir := t.TempDir()
	mtime := func(p string) time.Time {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, p), []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		return info.ModTime()
	}
	for range 20 {
		before := mtime("before")
		tick := NextTick(t)
		if after := mtime("after"); !before.Before(tick) || after.Before(tick) {
			t.Fatalf("changed at %v, then at %v, the tick between at %v", before, after, tick)
		}
	}
	c := NewSettleClock(t, 50*time.Millisecond)
	first := c.Now()
	written := mtime("settled")
	if !c.Now().Equal(first) {
		t.Fatal("the clock moved by itself")
	}
	c.Settle(t)
	if now := c.Now(); !written.Before(now.Add(-50*time.Millisecond)) || now.Add(-50*time.Millisecond).After(mtime("new")) {
		t.Fatalf("settled at %v: a file written before at %v, one after at %v", now, written, mtime("new"))
	}
}
