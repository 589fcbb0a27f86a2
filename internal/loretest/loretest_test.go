package loretest

import (
	"os"
	"path/filepath"
	"testing"
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
