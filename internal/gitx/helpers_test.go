package gitx

import (
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
)

// testRepo is a real git repository in a temporary directory, driven with
// C git, which is also the oracle for what lore wrote.
type testRepo struct {
	*loretest.Repo
	t *testing.T
}

func newTestRepo(t *testing.T) *testRepo {
	t.Helper()
	return &testRepo{Repo: loretest.NewRepo(t), t: t}
}

// newTestRepoWithCommit adds README.md and src/main.go and commits them.
func newTestRepoWithCommit(t *testing.T) *testRepo {
	r := newTestRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# project\n", "src/main.go": "package main\n"})
	return r
}

func (r *testRepo) open() *Repo {
	r.t.Helper()
	repo, err := Discover(r.Dir, r.Getenv)
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
