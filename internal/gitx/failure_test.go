package gitx

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/loretest"
)

// The failures below are made with the real file system and C git: after
// each, the worktree must be as it was (git status and the bytes of the
// files), and a retry must do the work.

func (r *testRepo) pendingDir() string { return filepath.Join(r.Dir, ".git", "lore", "pending") }

// snapshot is what a person sees of the worktree: git status, and the
// bytes of the file lore edits.
func (r *testRepo) snapshot() string {
	r.t.Helper()
	data, err := os.ReadFile(r.Path(memPath))
	if err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	return r.Git("status", "--porcelain", "--untracked-files=all") + "\n--- " + memPath + "\n" + string(data)
}

// TestFailureAfterTheFilesAreWrittenPutsThemBack: the second file of a
// change cannot be written (its directory is read-only). The first was
// written already, over a person's unstaged edit; it is put back byte for
// byte, and the retry commits both.
func TestFailureAfterTheFilesAreWrittenPutsThemBack(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Commit("store", map[string]string{memPath: "committed\n", ".agent/knowledge/a.md": "a\n"})
	r.Write(memPath, "committed\nunstaged by the person\n")
	before := r.snapshot()
	loretest.ReadOnly(t, r.Path(".agent/knowledge"))
	change := func() (*Result, error) {
		return r.open().Update(Options{Mode: ModeCommit, LockTimeout: time.Second, Now: fixedNow, PendingDir: r.pendingDir()}, func(tx *Tx) error {
			tx.Edit(memPath, appendLine("from lore"))
			tx.Edit(".agent/knowledge/b.md", appendLine("b"))
			tx.SetMessage("lore: add\n")
			return nil
		})
	}
	if _, err := change(); err == nil || !strings.Contains(err.Error(), "read-only file system") {
		t.Fatalf("err = %v", err)
	}
	if got := r.snapshot(); got != before {
		t.Fatalf("after the failure:\n%s\nbefore:\n%s", got, before)
	}
	for _, p := range []string{".git/index.lock", ".git/refs/heads/main.lock", ".git/lore/pending"} {
		if _, err := os.Stat(r.Path(p)); !os.IsNotExist(err) {
			t.Errorf("%s left behind", p)
		}
	}
	loretest.Unmount(t, r.Path(".agent/knowledge"))
	if _, err := change(); err != nil {
		t.Fatal(err)
	}
	r.AssertHealthy()
	if got := r.Git("show", "HEAD:"+memPath); got != "committed\nfrom lore" {
		t.Fatalf("HEAD = %q", got)
	}
	if got := r.Read(memPath); got != "committed\nunstaged by the person\nfrom lore\n" {
		t.Fatalf("worktree = %q", got)
	}
	if got := r.Git("status", "--porcelain"); got != " M "+memPath {
		t.Fatalf("status = %q", got)
	}
}

// TestBranchThatKeepsMovingChangesNothing: another writer moves the
// branch before every one of the ten attempts. The compare-and-set is
// checked before anything is written, so the worktree is as it was.
func TestBranchThatKeepsMovingChangesNothing(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Commit("store", map[string]string{memPath: "committed\n"})
	r.Write(memPath, "committed\nunstaged by the person\n")
	before := r.snapshot()
	attempts := 0
	_, err := r.open().Update(Options{Mode: ModeCommit, LockTimeout: time.Second, Now: fixedNow, PendingDir: r.pendingDir()}, func(tx *Tx) error {
		attempts++
		tx.Edit(memPath, func(old []byte, exists bool) ([]byte, bool, error) {
			if string(old) == "committed\n" { // once per attempt: HEAD's version
				c := r.Git("commit-tree", r.Git("rev-parse", "HEAD^{tree}"), "-p", "HEAD", "-m", "concurrent")
				r.Git("update-ref", "refs/heads/main", c)
			}
			return appendLine("from lore")(old, exists)
		})
		tx.SetMessage("lore: add\n")
		return nil
	})
	if !errors.Is(err, ErrRefMoved) || attempts != maxCommitAttempts {
		t.Fatalf("err = %v after %d attempts", err, attempts)
	}
	if got := r.snapshot(); got != before {
		t.Fatalf("after the failure:\n%s\nbefore:\n%s", got, before)
	}
	r.AssertHealthy()
}

// killAtEnv names the point of stageAndMove where TestKilledUpdateHelper
// kills itself; killRepoEnv its repository.
const (
	killAtEnv   = "GITX_TEST_KILL_AT"
	killRepoEnv = "GITX_TEST_KILL_REPO"
)

// TestKilledUpdateHelper is the process TestKilledUpdateIsFinishedOrUndone
// runs and kills: it adds a line to memories.md and is killed (SIGKILL,
// which nothing can catch) at the point killAtEnv names.
func TestKilledUpdateHelper(t *testing.T) {
	point := os.Getenv(killAtEnv)
	if point == "" {
		t.Skip("a helper process of TestKilledUpdateIsFinishedOrUndone")
	}
	testHook = func(p string) {
		if p == point {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	dir := os.Getenv(killRepoEnv)
	repo, err := Discover(dir, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = repo.Update(Options{Mode: ModeCommit, LockTimeout: time.Second, PendingDir: filepath.Join(dir, ".git", "lore", "pending")}, func(tx *Tx) error {
		tx.Edit(memPath, appendLine("from the killed writer"))
		tx.SetMessage("lore: add\n")
		return nil
	})
	t.Fatalf("not killed at %q: %v", point, err)
}

// TestKilledUpdateIsFinishedOrUndone kills an Update at each step of
// stageAndMove. The person removes the index.lock it left (as lore's
// message says), then lore runs again: a change whose branch had not
// moved is undone on disk, one whose branch moved gets its index, so that
// a commit of other work by C git does not revert it.
func TestKilledUpdateIsFinishedOrUndone(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		point     string
		committed bool
	}{
		{"files", false},
		{"ref", true},
		{"index", true},
	} {
		t.Run(c.point, func(t *testing.T) {
			r := newTestRepoWithCommit(t)
			r.Commit("store", map[string]string{memPath: "committed\n"})
			r.Write(memPath, "committed\nunstaged by the person\n")
			before := r.snapshot()
			head := r.Git("rev-parse", "HEAD")

			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledUpdateHelper$")
			cmd.Env = append(r.Environ(), killAtEnv+"="+c.point, killRepoEnv+"="+r.Dir)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("helper was not killed: %v\n%s", err, out)
			}
			if records, _ := filepath.Glob(r.Path(".git/lore/pending/intent-*.json")); len(records) != 1 {
				t.Fatalf("intent records: %v", records)
			}
			if moved := r.Git("rev-parse", "HEAD") != head; moved != c.committed {
				t.Fatalf("branch moved: %v", moved)
			}
			os.Remove(r.Path(".git/index.lock")) // the person's recovery

			notices, err := r.open().Recover(Options{LockTimeout: time.Second, PendingDir: r.pendingDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("notices: %q", notices)
			if _, err := os.Stat(r.pendingDir()); !os.IsNotExist(err) {
				t.Errorf("pending directory left: %v", err)
			}
			r.AssertHealthy()
			if !c.committed {
				if got := r.snapshot(); got != before {
					t.Fatalf("after recovery:\n%s\nbefore:\n%s", got, before)
				}
				return
			}
			if got := r.Git("show", "HEAD:"+memPath); got != "committed\nfrom the killed writer" {
				t.Fatalf("HEAD = %q", got)
			}
			if got := r.Git("show", ":"+memPath); got != "committed\nfrom the killed writer" {
				t.Fatalf("index = %q", got)
			}
			if got := r.Read(memPath); got != "committed\nunstaged by the person\nfrom the killed writer\n" {
				t.Fatalf("worktree = %q", got)
			}
			// The person commits other work: the memory stays.
			r.Write("other.txt", "other\n")
			r.Git("add", "other.txt")
			r.Git("commit", "-q", "-m", "other")
			if got := r.Git("show", "HEAD:"+memPath); got != "committed\nfrom the killed writer" {
				t.Fatalf("the person's commit reverted the memory: HEAD = %q", got)
			}
			if got := r.Git("status", "--porcelain"); got != " M "+memPath {
				t.Fatalf("status = %q", got)
			}
		})
	}
}

// TestIntentRecordsAreEachWritersOwn: a writer removes its intent record
// after it let go of index.lock, when the next writer may already have
// written its own. With one shared file the first writer's removal took
// the second's record, and a kill of the second was then never repaired.
// Each record is its writer's; a record of a process that still runs is
// not recovered (its change is in place), one of a dead process is.
func TestIntentRecordsAreEachWritersOwn(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	dir := r.Path(".git/lore/pending")
	first := newIntent(ModeCommit, refUpdate{}, ZeroHash, nil, false)
	second := newIntent(ModeCommit, refUpdate{}, ZeroHash, nil, false)
	if first.name == second.name {
		t.Fatalf("two records share the name %s", first.name)
	}
	os.MkdirAll(dir, 0o755)
	for _, in := range []*intent{first, second} {
		if err := in.write(dir); err != nil {
			t.Fatal(err)
		}
	}
	removeIntent(dir, first.name)
	if _, err := os.Stat(filepath.Join(dir, second.name)); err != nil {
		t.Fatalf("the first writer's removal took the second's record: %v", err)
	}

	// A live process's record (this test's parent) is left alone; a dead
	// one's is recovered and removed.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	live := fmt.Sprintf("intent-%d-1.json", os.Getppid())
	gone := fmt.Sprintf("intent-%d-1.json", dead.Process.Pid)
	data, _ := json.Marshal(intent{Version: 1, Mode: ModeCommit.String()})
	for _, name := range []string{live, gone} {
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	os.Remove(filepath.Join(dir, second.name))
	if _, err := r.open().Recover(Options{PendingDir: dir, LockTimeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, live)); err != nil {
		t.Errorf("a live writer's record was recovered: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
		t.Errorf("a dead writer's record was left")
	}
}

// TestAnIntentThatCannotBeReplayedIsSetAside: an intent record that no
// Update could finish or undo stopped every write after it (issue 36,
// item 5: a killed import's record named a file whose name was too long,
// and each Update failed with "file name too long"). A name no file
// system takes names no file: there is nothing to put back. A record that
// fails for a reason of its own — here the blob it would put back is gone
// — is set aside in failed/, with why, and the writes go on.
func TestAnIntentThatCannotBeReplayedIsSetAside(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	dir := r.pendingDir()
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(r.Path("notes"), 0o755)
	long := intent{Version: 1, Mode: ModeFiles.String(), Files: []intentFile{{Path: "notes/" + strings.Repeat("a", 300) + ".md", WasGone: true, Is: "1696de04f68995dc32b843332fe0d6b7e593e04a"}}}
	readme := hashObject(plumbing.BlobObject, []byte(r.Read("README.md"))).String()
	gone := intent{Version: 1, Mode: ModeFiles.String(), Files: []intentFile{{Path: "README.md", Was: strings.Repeat("0", 39) + "1", Is: readme}}}
	for name, in := range map[string]intent{"intent-999999999-1.json": long, "intent-999999999-2.json": gone} {
		data, _ := json.Marshal(in)
		os.WriteFile(filepath.Join(dir, name), data, 0o644)
	}
	res, err := r.open().Update(Options{LockTimeout: time.Second, Now: fixedNow, PendingDir: dir}, func(tx *Tx) error {
		tx.Edit("notes/a.md", appendLine("next"))
		tx.SetMessage("next\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "could not finish or undo a write") || !strings.Contains(res.Notices[0], "object not found") {
		t.Fatalf("notices: %q", res.Notices)
	}
	if got := r.Git("log", "-1", "--format=%s"); got != "next" {
		t.Fatalf("HEAD: %s", got)
	}
	recs, err := SetAsideRecords(dir)
	if err != nil || len(recs) != 1 || recs[0].Name != "intent-999999999-2.json" || !strings.Contains(recs[0].Why, "object not found") {
		t.Fatalf("%+v %v", recs, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "intent-*.json")); len(left) != 0 {
		t.Fatalf("records left: %v", left)
	}
	if r.Read("README.md") != "# project\n" {
		t.Fatal("README.md changed")
	}
	r.AssertClean()
}
