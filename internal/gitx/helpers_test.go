package gitx

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testRepo is a real git repository in a temporary directory, driven with
// C git, which is also the oracle for what lore wrote.
type testRepo struct {
	t    *testing.T
	dir  string
	home string
	env  map[string]string
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := &testRepo{t: t, dir: filepath.Join(t.TempDir(), "repo"), home: t.TempDir()}
	r.env = map[string]string{
		"HOME":                r.home,
		"GIT_CONFIG_NOSYSTEM": "1",
		"XDG_CONFIG_HOME":     filepath.Join(r.home, ".config"),
	}
	if err := os.MkdirAll(r.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	r.git("init", "-q", "-b", "main")
	r.git("config", "user.name", "Test Person")
	r.git("config", "user.email", "test@example.com")
	return r
}

// newTestRepoWithCommit adds README.md and src/main.go and commits them.
func newTestRepoWithCommit(t *testing.T) *testRepo {
	r := newTestRepo(t)
	r.write("README.md", "# project\n")
	r.write("src/main.go", "package main\n")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "initial")
	return r
}

func (r *testRepo) getenv(key string) string { return r.env[key] }

func (r *testRepo) command(args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range r.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return cmd
}

// git runs C git and returns its trimmed output, failing the test on error.
func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	out, err := r.gitErr(args...)
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (r *testRepo) gitErr(args ...string) (string, error) {
	var out bytes.Buffer
	cmd := r.command(args...)
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return strings.TrimRight(out.String(), "\n"), err
}

func (r *testRepo) write(path, content string) {
	r.t.Helper()
	full := filepath.Join(r.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) read(path string) string {
	r.t.Helper()
	data, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(path)))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(data)
}

func (r *testRepo) open() *Repo {
	r.t.Helper()
	repo, err := Discover(r.dir, r.getenv)
	if err != nil {
		r.t.Fatal(err)
	}
	return repo
}

// update runs one Update that applies fn to path with a fixed clock.
func (r *testRepo) update(mode Mode, path string, fn EditFunc, message string) (*Result, error) {
	return r.open().Update(Options{Mode: mode, LockTimeout: time.Second, Now: fixedNow}, func(tx *Tx) error {
		tx.Edit(path, fn)
		tx.SetMessage(message)
		return nil
	})
}

func fixedNow() time.Time { return time.Unix(1737372000, 0).UTC() }

// appendLine is an idempotent edit that adds line to a file once.
func appendLine(line string) EditFunc {
	return func(old []byte, exists bool) ([]byte, bool, error) {
		for _, l := range strings.Split(string(old), "\n") {
			if l == line {
				return old, true, nil
			}
		}
		return append(append([]byte{}, old...), line+"\n"...), true, nil
	}
}

// assertHealthy checks with C git that the repository is consistent and
// that the index agrees with HEAD and the worktree for lore's paths.
func (r *testRepo) assertHealthy() {
	r.t.Helper()
	if out, err := r.gitErr("fsck", "--strict", "--no-progress"); err != nil {
		r.t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

func (r *testRepo) assertClean() {
	r.t.Helper()
	r.assertHealthy()
	if out := r.git("status", "--porcelain"); out != "" {
		r.t.Fatalf("git status not clean:\n%s", out)
	}
	// The cache tree must not claim a stale tree: write-tree uses it.
	if tree, head := r.git("write-tree"), r.git("rev-parse", "HEAD^{tree}"); tree != head {
		r.t.Fatalf("git write-tree = %s, HEAD^{tree} = %s", tree, head)
	}
}
