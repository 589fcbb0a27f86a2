// Package loretest is what lore's tests share, written once: golden files
// under testdata/ that `go test -update` rewrites, real git repositories
// in temporary directories, driven and checked with C git — the oracle
// users trust — and NoHang, the guard of a step that could block. Only
// tests import it.
package loretest

import (
	"bytes"
	"compress/zlib"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files (and testscript cmp files) under testdata")

// Updating reports whether the tests run with -update: golden files are
// then rewritten instead of compared.
func Updating() bool { return *update }

// Golden compares got with the file at path (relative to the test's
// package, such as testdata/list.txt), byte for byte; with -update it
// writes got there instead.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// NoHang guards a step that could block for ever (a read of a FIFO or of
// /dev/stdin waits for a writer): if done has not been called after a
// minute, the test binary crashes naming the test and the step, rather
// than wait for go test's own timeout. It asserts nothing about time.
func NoHang(t testing.TB, what string) (done func()) {
	timer := time.AfterFunc(time.Minute, func() {
		panic(t.Name() + ": " + what + ": still blocked after a minute")
	})
	return func() { timer.Stop() }
}

// Repo is a git repository in a temporary directory, made and checked
// with C git. Its git runs with a HOME of its own, without the system
// configuration, and with an identity in the repository's configuration;
// lore, given Getenv, sees the same environment.
type Repo struct {
	t    testing.TB
	Dir  string // the worktree
	Home string // HOME for git and for lore
	env  map[string]string
	// clean holds the loose objects Holding found without its needles,
	// by needles and path: an object's file never changes.
	clean map[string]bool
}

// NewRepo makes an empty repository on branch main. Without git installed
// the test is skipped.
func NewRepo(t testing.TB) *Repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &Repo{t: t, Dir: filepath.Join(t.TempDir(), "repo"), Home: t.TempDir()}
	r.env = map[string]string{
		"HOME":                r.Home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"XDG_CONFIG_HOME":     filepath.Join(r.Home, ".config"),
		// A search's index build, started after the answer, is waited
		// for: it would write into the repository while the test's
		// temporary directory is removed.
		"LORE_INDEX_BUILD": "wait",
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("init", "-q", "-b", "main")
	r.Git("config", "user.name", "Test Person")
	r.Git("config", "user.email", "test@example.com")
	return r
}

// Getenv is the environment lore sees beside this repository: its HOME,
// no system git configuration, and what Setenv set; nothing else.
func (r *Repo) Getenv(key string) string { return r.env[key] }

// Setenv sets (or, with "", unsets) a variable for C git and for lore.
func (r *Repo) Setenv(key, value string) {
	if value == "" {
		delete(r.env, key)
		return
	}
	r.env[key] = value
}

// At is the repository seen from another directory (a linked worktree, a
// subdirectory), with the same environment.
func (r *Repo) At(dir string) *Repo {
	at := *r
	at.Dir = dir
	return &at
}

// Command is C git with args, to run in dir (the repository when "") with
// the repository's environment.
func (r *Repo) Command(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.Dir
	if dir != "" {
		cmd.Dir = dir
	}
	cmd.Env = r.Environ()
	return cmd
}

// Environ is the environment C git runs with, for another program that
// must see the repository as git and lore do here (a lore binary, a test
// binary run as a helper process): this process's, without its GIT_*,
// HOME and XDG_CONFIG_HOME, plus the repository's (Getenv).
func (r *Repo) Environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	for k, v := range r.env {
		env = append(env, k+"="+v)
	}
	return env
}

// Git runs C git in the repository and returns its output without the
// final line breaks, failing the test if git fails.
func (r *Repo) Git(args ...string) string {
	r.t.Helper()
	return r.GitIn("", args...)
}

// GitIn is Git in another directory (a clone, a second worktree).
func (r *Repo) GitIn(dir string, args ...string) string {
	r.t.Helper()
	out, err := r.run(r.Command(dir, args...))
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// GitErr runs C git in the repository and returns its output and error.
func (r *Repo) GitErr(args ...string) (string, error) {
	return r.run(r.Command("", args...))
}

func (r *Repo) run(cmd *exec.Cmd) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return strings.TrimRight(out.String(), "\n"), err
}

// Path is the absolute path of p, slash-separated and relative to the
// worktree.
func (r *Repo) Path(p string) string { return filepath.Join(r.Dir, filepath.FromSlash(p)) }

// Write writes a file of the worktree, making its directories.
func (r *Repo) Write(p, content string) {
	r.t.Helper()
	full := r.Path(p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// Read reads a file of the worktree.
func (r *Repo) Read(p string) string {
	r.t.Helper()
	data, err := os.ReadFile(r.Path(p))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

// Commit writes files (path → content), adds everything and commits it.
func (r *Repo) Commit(message string, files map[string]string) {
	r.t.Helper()
	for p, content := range files {
		r.Write(p, content)
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", message)
}

// AssertHealthy checks with git fsck --strict that the repository is
// consistent.
func (r *Repo) AssertHealthy() {
	r.t.Helper()
	if out, err := r.GitErr("fsck", "--strict", "--no-progress"); err != nil {
		r.t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

// AssertClean checks that the repository is healthy, that git status has
// nothing to say, and that the index's cache tree is not stale (git
// write-tree uses it).
func (r *Repo) AssertClean() {
	r.t.Helper()
	r.AssertHealthy()
	if out := r.Git("status", "--porcelain"); out != "" {
		r.t.Fatalf("git status not clean:\n%s", out)
	}
	if tree, head := r.Git("write-tree"), r.Git("rev-parse", "HEAD^{tree}"); tree != head {
		r.t.Fatalf("git write-tree = %s, HEAD^{tree} = %s", tree, head)
	}
}

// Holding returns where the repository holds any of needles, compared
// without regard to ASCII case: each object in its object store, loose or
// packed, reachable or not, as "object <hash> (<type>)"; and each file of
// its worktree and git directory as it lies on disk (the index, logs,
// COMMIT_EDITMSG, lore's state), by its path relative to the worktree. It
// returns nothing when they are nowhere. Loose objects are inflated here;
// packs, when there are any, are read with git cat-file
// --batch-all-objects. A loose object found clean is not read again by
// the next Holding of the same needles (its file never changes).
func (r *Repo) Holding(needles ...string) []string {
	r.t.Helper()
	var lower [][]byte
	for _, n := range needles {
		lower = append(lower, bytes.ToLower([]byte(n)))
	}
	holds := func(data []byte) bool {
		data = bytes.ToLower(data)
		for _, n := range lower {
			if bytes.Contains(data, n) {
				return true
			}
		}
		return false
	}
	var where []string
	if r.clean == nil {
		r.clean = map[string]bool{}
	}
	key := strings.Join(needles, "\x00") + "\x00"
	objects := filepath.Join(r.Dir, ".git", "objects")
	packs, _ := filepath.Glob(filepath.Join(objects, "pack", "*.pack"))
	if len(packs) > 0 {
		where = append(where, r.holdingInObjects(holds)...)
	}
	err := filepath.WalkDir(r.Dir, func(p string, d os.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case len(packs) > 0 && d.IsDir() && p == objects:
			return filepath.SkipDir // read through git above
		case !d.Type().IsRegular(), r.clean[key+p]:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(objects, p)
		if dir, file, ok := strings.Cut(filepath.ToSlash(rel), "/"); ok && isHex(dir, 2) && isHex(file, 38) {
			// A loose object: "<type> <size>\0<content>", deflated.
			z, err := zlib.NewReader(bytes.NewReader(data))
			if err == nil {
				data, err = io.ReadAll(z)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			if holds(data) {
				typ, _, _ := strings.Cut(string(data[:min(len(data), 10)]), " ")
				where = append(where, "object "+dir+file+" ("+typ+")")
			} else {
				r.clean[key+p] = true
			}
			return nil
		}
		if holds(data) {
			rel, _ := filepath.Rel(r.Dir, p)
			where = append(where, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		r.t.Fatal(err)
	}
	return where
}

// isHex reports whether s is n lower-case hexadecimal digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < n; i++ {
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f') {
			return false
		}
	}
	return true
}

// holdingInObjects is Holding's search of every object, through git
// cat-file --batch-all-objects.
func (r *Repo) holdingInObjects(holds func([]byte) bool) []string {
	r.t.Helper()
	cmd := r.Command("", "cat-file", "--batch-all-objects", "--batch", "--unordered")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		r.t.Fatalf("git cat-file --batch-all-objects: %v\n%s", err, errOut.String())
	}
	var where []string
	for rest := out.Bytes(); len(rest) > 0; {
		header, body, ok := bytes.Cut(rest, []byte("\n"))
		var hash, typ string
		var size int
		if _, err := fmt.Sscanf(string(header), "%s %s %d", &hash, &typ, &size); !ok || err != nil || size+1 > len(body) {
			r.t.Fatalf("git cat-file --batch: cannot read %q", header)
		}
		if holds(body[:size]) {
			where = append(where, "object "+hash+" ("+typ+")")
		}
		rest = body[size+1:]
	}
	return where
}

// Populate commits n files spread over nested directories
// (dir<i%3>/sub<i%5>/file-<i>.txt): a worktree and an index with some
// depth to them.
func (r *Repo) Populate(n int) {
	r.t.Helper()
	for i := 0; i < n; i++ {
		r.Write(fmt.Sprintf("dir%d/sub%d/file-%03d.txt", i%3, i%5, i), fmt.Sprintf("content %d\n", i))
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "populate")
}
