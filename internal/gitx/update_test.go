package gitx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const memPath = ".agent/memories.md"

func TestCommitTouchesOnlyTheEditedPath(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	before := r.Git("rev-parse", "HEAD")

	res, err := r.update(ModeCommit, memPath, appendLine("first memory"), "lore: add pattern mem-1\n\nLore-Id: mem-1\nLore-Kind: memory\n")
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != ModeCommit || res.Commit.IsZero() || res.Branch != "main" || len(res.Notices) != 0 {
		t.Fatalf("result = %+v", res)
	}
	r.AssertClean()
	if got := r.Git("rev-parse", "HEAD"); got != res.Commit.String() {
		t.Fatalf("HEAD = %s, want %s", got, res.Commit)
	}
	if got := r.Git("rev-parse", "HEAD^"); got != before {
		t.Fatalf("parent = %s, want %s", got, before)
	}
	if got := r.Git("diff", "--name-only", "HEAD^", "HEAD"); got != memPath {
		t.Fatalf("commit changes %q", got)
	}
	if got := r.Git("show", "HEAD:"+memPath); got != "first memory" {
		t.Fatalf("committed content %q", got)
	}
	if got := r.Git("log", "-1", "--format=%s|%an|%ae|%(trailers:key=Lore-Id,valueonly)"); got != "lore: add pattern mem-1|Test Person|test@example.com|mem-1" {
		t.Fatalf("log = %q", got)
	}
	if got := r.Git("reflog", "-1", "--format=%gs"); got != "commit: lore: add pattern mem-1" {
		t.Fatalf("reflog = %q", got)
	}
	if got := r.Git("reflog", "-1", "--format=%gs", "main"); got != "commit: lore: add pattern mem-1" {
		t.Fatalf("branch reflog = %q", got)
	}

	// A second edit of the same file builds on the first.
	if _, err := r.update(ModeCommit, memPath, appendLine("second memory"), "lore: add pattern mem-2\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if got := r.Git("show", "HEAD:"+memPath); got != "first memory\nsecond memory" {
		t.Fatalf("committed content %q", got)
	}
}

func TestUnbornBranch(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	res, err := r.update(ModeCommit, memPath, appendLine("hello"), "lore: init\n")
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit.IsZero() {
		t.Fatal("no commit")
	}
	r.AssertClean()
	if got := r.Git("rev-list", "--count", "HEAD"); got != "1" {
		t.Fatalf("commits = %s", got)
	}
	if got := r.Git("reflog", "-1", "--format=%gs"); got != "commit (initial): lore: init" {
		t.Fatalf("reflog = %q", got)
	}
}

func TestUnbornBranchKeepsUserStagedFiles(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.Write("staged.txt", "staged\n")
	r.Git("add", "staged.txt")
	if _, err := r.update(ModeCommit, memPath, appendLine("hello"), "lore: init\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertHealthy()
	if got := r.Git("ls-tree", "-r", "--name-only", "HEAD"); got != memPath {
		t.Fatalf("HEAD tree = %q", got)
	}
	if got := r.Git("status", "--porcelain"); got != "A  staged.txt" {
		t.Fatalf("status = %q", got)
	}
}

func TestUserStagedAndUnstagedChangesSurvive(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Write("README.md", "# project\nstaged line\n")
	r.Git("add", "README.md")
	r.Write("src/main.go", "package main\n// unstaged\n")
	r.Write("new.txt", "untracked\n")
	r.Git("add", "-N", "new.txt") // intent to add

	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertHealthy()
	if got := r.Git("diff", "--name-only", "HEAD^", "HEAD"); got != memPath {
		t.Fatalf("commit swept in other paths: %q", got)
	}
	if got := r.Git("status", "--porcelain"); got != "M  README.md\n A new.txt\n M src/main.go" {
		t.Fatalf("status = %q", got)
	}
	if got := r.Git("diff", "--cached"); !strings.Contains(got, "+staged line") {
		t.Fatalf("staged change lost: %s", got)
	}
}

func TestUserEditsOfTheSameFileAreNeitherCommittedNorLost(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Write(memPath, "committed\n")
	r.Git("add", memPath)
	r.Git("commit", "-q", "-m", "add memories")
	r.Write(memPath, "committed\nstaged by user\n")
	r.Git("add", memPath)
	r.Write(memPath, "committed\nstaged by user\nunstaged by user\n")

	if _, err := r.update(ModeCommit, memPath, appendLine("from lore"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertHealthy()
	if got := r.Git("show", "HEAD:"+memPath); got != "committed\nfrom lore" {
		t.Fatalf("HEAD = %q", got)
	}
	if got := r.Git("show", ":"+memPath); got != "committed\nstaged by user\nfrom lore" {
		t.Fatalf("index = %q", got)
	}
	if got := r.Read(memPath); got != "committed\nstaged by user\nunstaged by user\nfrom lore\n" {
		t.Fatalf("worktree = %q", got)
	}
}

func TestDetachedHeadCommitsOnHead(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	main := r.Git("rev-parse", "main")
	r.Git("checkout", "-q", "--detach")
	res, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n")
	if err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if res.Branch != "" || len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "detached") {
		t.Fatalf("result = %+v", res)
	}
	if got := r.Git("rev-parse", "HEAD"); got != res.Commit.String() {
		t.Fatalf("HEAD = %s", got)
	}
	if got := r.Git("rev-parse", "main"); got != main {
		t.Fatal("branch moved")
	}
}

// deferringUpdate runs one Update that adds a line to memories.md with a
// Defer that records what it was given.
func (r *testRepo) deferringUpdate(got *[]Deferral) (*Result, error) {
	return r.open().Update(Options{Mode: ModeCommit, LockTimeout: time.Second, Now: fixedNow, Defer: func(d Deferral) error {
		*got = append(*got, d)
		return nil
	}}, func(tx *Tx) error {
		tx.Edit(memPath, appendLine("m"))
		tx.SetMessage("lore: add\n")
		return nil
	})
}

// TestMergeInProgressDefers: during a merge lore touches neither the
// worktree nor the index (git merge --abort would throw its change away
// with the merge's); the change goes to Options.Defer.
func TestMergeInProgressDefers(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Git("checkout", "-q", "-b", "other")
	r.Write("other.txt", "other\n")
	r.Git("add", "other.txt")
	r.Git("commit", "-q", "-m", "other")
	r.Git("checkout", "-q", "main")
	r.Write("mainline.txt", "main\n")
	r.Git("add", "mainline.txt")
	r.Git("commit", "-q", "-m", "main")
	r.Git("merge", "-q", "--no-commit", "--no-ff", "other")
	head := r.Git("rev-parse", "HEAD")
	status := r.Git("status", "--porcelain")
	index := r.Git("ls-files", "--stage")

	var got []Deferral
	res, err := r.deferringUpdate(&got)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Operation != "a merge" || res.Deferred == nil || !res.Commit.IsZero() {
		t.Fatalf("deferrals %+v, result %+v", got, res)
	}
	r.AssertHealthy()
	if r.Git("rev-parse", "HEAD") != head || r.Git("status", "--porcelain") != status || r.Git("ls-files", "--stage") != index {
		t.Fatal("lore changed the repository during a merge")
	}
	if _, err := os.Stat(r.Path(memPath)); !os.IsNotExist(err) {
		t.Fatal("memories.md was written during a merge")
	}
	// Without Defer the change is refused, and nothing is written either.
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err == nil || !strings.Contains(err.Error(), "a merge is in progress") {
		t.Fatalf("err = %v", err)
	}
	// commit: stage is the person's choice, and stays what it was.
	if _, err := r.update(ModeStage, memPath, appendLine("m"), ""); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("status", "--porcelain"); got != "A  .agent/memories.md\nA  other.txt" {
		t.Fatalf("status = %q", got)
	}
}

func TestRebaseInProgressDefers(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Write("a.txt", "a\n")
	r.Git("add", "a.txt")
	r.Git("commit", "-q", "-m", "a")
	r.Setenv("GIT_SEQUENCE_EDITOR", "sed -i -e s/^pick/edit/")
	r.Git("rebase", "-q", "-i", "HEAD~1")
	r.Setenv("GIT_SEQUENCE_EDITOR", "")
	head := r.Git("rev-parse", "HEAD")
	var got []Deferral
	if _, err := r.deferringUpdate(&got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Operation != "a rebase" {
		t.Fatalf("deferrals %+v", got)
	}
	r.AssertHealthy()
	if r.Git("rev-parse", "HEAD") != head || r.Git("status", "--porcelain", "--untracked-files=all") != "" {
		t.Fatal("lore changed the repository during a rebase")
	}
}

// TestDuringAnOperationNamesTheOperationBringsInAreTaken: a change
// decided during a rebase is committed after it, onto a branch that has
// the rebased commits' files again: ReadDir lists them already.
func TestDuringAnOperationNamesTheOperationBringsInAreTaken(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Commit("journal 1", map[string]string{".agent/journal/run-1/0001.md": "1\n"})
	r.Commit("journal 2", map[string]string{".agent/journal/run-1/0002.md": "2\n"})
	r.Setenv("GIT_SEQUENCE_EDITOR", "sed -i -e 1s/^pick/edit/")
	r.Git("rebase", "-q", "-i", "HEAD~2") // stops after journal 1
	r.Setenv("GIT_SEQUENCE_EDITOR", "")
	var names []string
	_, err := r.open().Update(Options{Mode: ModeCommit, LockTimeout: time.Second, Defer: func(Deferral) error { return nil }}, func(tx *Tx) error {
		entries, err := tx.ReadDir(".agent/journal/run-1")
		for _, e := range entries {
			names = append(names, e.Name())
		}
		if _, ok, _ := tx.ReadFile(".agent/journal/run-1/0002.md"); ok {
			t.Error("ReadFile shows a file HEAD does not have")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, " "); got != "0001.md 0002.md" {
		t.Fatalf("ReadDir = %q", got)
	}
}

func TestStaleIndexLockIsReportedNeverRemoved(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	lockPath := filepath.Join(r.Dir, ".git", "index.lock")
	if err := os.WriteFile(lockPath, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	head := r.Git("rev-parse", "HEAD")
	start := time.Now()
	_, err := r.open().Update(Options{LockTimeout: 200 * time.Millisecond}, func(tx *Tx) error {
		tx.Edit(memPath, appendLine("m"))
		return nil
	})
	var lerr *LockError
	if !errors.As(err, &lerr) || lerr.Path != lockPath {
		t.Fatalf("err = %v", err)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Fatalf("gave up after %s", waited)
	}
	if !strings.Contains(err.Error(), lockPath) || !strings.Contains(err.Error(), "remove") {
		t.Fatalf("message does not say what to do: %v", err)
	}
	if _, err := os.Stat(lockPath); err != nil {
		t.Fatal("lock was removed")
	}
	if _, err := os.Stat(filepath.Join(r.Dir, memPath)); !os.IsNotExist(err) {
		t.Fatal("file written without the lock")
	}
	if r.Git("rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved")
	}
}

func TestBranchLockHeldByAnotherProcessFailsCleanly(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	refLock := filepath.Join(r.Dir, ".git", "refs", "heads", "main.lock")
	if err := os.WriteFile(refLock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	head := r.Git("rev-parse", "HEAD")
	// The branch lock is waited for as long as Options.LockTimeout says:
	// a short one keeps the test from waiting out the default.
	_, err := r.open().Update(Options{Mode: ModeCommit, LockTimeout: 100 * time.Millisecond, Now: fixedNow}, func(tx *Tx) error {
		tx.Edit(memPath, appendLine("m"))
		tx.SetMessage("lore: add\n")
		return nil
	})
	var lerr *LockError
	if !errors.As(err, &lerr) || lerr.Path != refLock {
		t.Fatalf("err = %v", err)
	}
	if r.Git("rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved")
	}
	// The branch lock is taken before anything is written: the worktree
	// is as it was, so the retry does the work.
	r.AssertHealthy()
	if got := r.Git("status", "--porcelain"); got != "" {
		t.Fatalf("status = %q", got)
	}
	os.Remove(refLock)
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if got := r.Git("show", "HEAD:"+memPath); got != "m" {
		t.Fatalf("HEAD = %q", got)
	}
}

func TestPackedRefsAndPackedObjects(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Write(memPath, "packed\n")
	r.Git("add", memPath)
	r.Git("commit", "-q", "-m", "memories")
	r.Git("gc", "-q", "--prune=now")
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "refs", "heads", "main")); !os.IsNotExist(err) {
		t.Fatal("expected main to be packed")
	}
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if got := r.Git("show", "HEAD:"+memPath); got != "packed\nm" {
		t.Fatalf("HEAD = %q", got)
	}
}

func TestLinkedWorktree(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	wtDir := filepath.Join(filepath.Dir(r.Dir), "wt")
	r.Git("worktree", "add", "-q", "-b", "feature", wtDir)
	main := r.Git("rev-parse", "main")

	wt := &testRepo{Repo: r.At(wtDir), t: t}
	res, err := wt.update(ModeCommit, memPath, appendLine("from worktree"), "lore: add\n")
	if err != nil {
		t.Fatal(err)
	}
	if res.Branch != "feature" {
		t.Fatalf("branch = %q", res.Branch)
	}
	wt.AssertClean()
	r.AssertClean()
	if r.Git("rev-parse", "main") != main {
		t.Fatal("main moved")
	}
	if got := r.Git("show", "feature:"+memPath); got != "from worktree" {
		t.Fatalf("feature = %q", got)
	}
}

func TestBranchMovedByAnotherWriterIsRetried(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	calls, moved := 0, false
	res, err := r.open().Update(Options{Mode: ModeCommit, LockTimeout: time.Second, Now: fixedNow}, func(tx *Tx) error {
		calls++
		tx.Edit(memPath, func(old []byte, exists bool) ([]byte, bool, error) {
			if !moved {
				// Between lore reading HEAD and moving the branch,
				// another writer that does not take index.lock (git
				// update-ref, a fetch into this branch) moves main.
				moved = true
				tree := r.Git("rev-parse", "HEAD^{tree}")
				c := r.Git("commit-tree", tree, "-p", "HEAD", "-m", "concurrent")
				r.Git("update-ref", "refs/heads/main", c)
			}
			return appendLine("m")(old, exists)
		})
		tx.SetMessage("lore: add\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 2 {
		t.Fatalf("build called %d times", calls)
	}
	if got := r.Git("log", "--format=%s", "-2"); got != "lore: add\nconcurrent" {
		t.Fatalf("log = %q", got)
	}
	if res.Commit.String() != r.Git("rev-parse", "HEAD") {
		t.Fatal("result commit is not HEAD")
	}
	r.AssertClean()
}

func TestStageAndFilesModes(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	head := r.Git("rev-parse", "HEAD")
	if _, err := r.update(ModeStage, memPath, appendLine("staged"), ""); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("status", "--porcelain"); got != "A  .agent/memories.md" {
		t.Fatalf("status = %q", got)
	}
	if _, err := r.update(ModeFiles, memPath, appendLine("file only"), ""); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("status", "--porcelain"); got != "AM .agent/memories.md" {
		t.Fatalf("status = %q", got)
	}
	if r.Git("rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved")
	}
	r.AssertHealthy()
}

// TestGpgSignedCommit: with commit.gpgSign lore has C git make the commit
// object, signed with the person's key: the commit lore would have made
// (author, dates, message, tree), plus a signature git verifies.
func TestGpgSignedCommit(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	fpr := r.SigningKey()
	res, err := r.update(ModeCommit, memPath, appendLine("signed"), "lore: add pattern mem-1\n\nLore-Id: mem-1\n")
	if err != nil {
		t.Fatal(err)
	}
	if res.Commit.String() != r.Git("rev-parse", "HEAD") || res.Deferred != nil {
		t.Fatalf("result %+v", res)
	}
	r.AssertClean()
	if _, err := r.GitErr("verify-commit", "HEAD"); err != nil {
		t.Fatalf("git verify-commit: %v", err)
	}
	if got := r.Git("log", "-1", "--format=%G?|%GF|%an|%ae|%at|%ct|%B"); got != "G|"+fpr+"|Test Person|test@example.com|1737372000|1737372000|lore: add pattern mem-1\n\nLore-Id: mem-1" {
		t.Fatalf("log = %q", got)
	}
	if got := r.Git("show", "HEAD:"+memPath); got != "signed" {
		t.Fatalf("HEAD = %q", got)
	}
}

// TestFailingSignerDefers: a signer that fails (no key, no agent) makes
// no commit; the change goes to Options.Defer, and nothing is written.
func TestFailingSignerDefers(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Git("config", "commit.gpgSign", "true")
	r.Git("config", "gpg.program", "false")
	head := r.Git("rev-parse", "HEAD")
	var got []Deferral
	res, err := r.deferringUpdate(&got)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !strings.Contains(got[0].Signing, "gpg failed to sign the data") || res.Deferred == nil || !res.Commit.IsZero() {
		t.Fatalf("deferrals %+v, result %+v", got, res)
	}
	if r.Git("rev-parse", "HEAD") != head || r.Git("status", "--porcelain", "--untracked-files=all") != "" {
		t.Fatal("the repository changed")
	}
	r.AssertHealthy()
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err == nil || !strings.Contains(err.Error(), "lore could not sign the commit") {
		t.Fatalf("without Defer: err = %v", err)
	}
}

func TestRemoveFile(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Write(".agent/knowledge/a.md", "a\n")
	r.Git("add", ".agent")
	r.Git("commit", "-q", "-m", "knowledge")
	_, err := r.update(ModeCommit, ".agent/knowledge/a.md", func([]byte, bool) ([]byte, bool, error) { return nil, false, nil }, "lore: delete\n")
	if err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if got := r.Git("ls-tree", "-r", "--name-only", "HEAD"); got != "README.md\nsrc/main.go" {
		t.Fatalf("tree = %q", got)
	}
}

func TestEditErrorChangesNothing(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	head := r.Git("rev-parse", "HEAD")
	boom := errors.New("boom")
	_, err := r.update(ModeCommit, memPath, func([]byte, bool) ([]byte, bool, error) { return nil, false, boom }, "x\n")
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	r.AssertClean()
	if r.Git("rev-parse", "HEAD") != head {
		t.Fatal("HEAD moved")
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "index.lock")); !os.IsNotExist(err) {
		t.Fatal("index.lock left behind")
	}
}

// TestConflictedPathIsRefused: git stash pop left a conflict (with no
// operation in progress, so nothing to wait for).
func TestConflictedPathIsRefused(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Write(memPath, "base\n")
	r.Git("add", memPath)
	r.Git("commit", "-q", "-m", "base")
	r.Write(memPath, "stashed\n")
	r.Git("stash", "-q")
	r.Write(memPath, "mine\n")
	r.Git("commit", "-q", "-am", "mine")
	if _, err := r.GitErr("stash", "pop", "-q"); err == nil {
		t.Fatal("expected a conflict")
	}
	before := r.Read(memPath)
	_, err := r.update(ModeCommit, memPath, appendLine("m"), "x\n")
	if err == nil || !strings.Contains(err.Error(), "unresolved merge conflicts") {
		t.Fatalf("err = %v", err)
	}
	if r.Read(memPath) != before {
		t.Fatal("conflicted file was changed")
	}
}

func TestUnsupportedExtensionIsRefused(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Git("config", "core.repositoryFormatVersion", "1")
	r.Git("config", "extensions.objectFormat", "sha256")
	if _, err := Discover(r.Dir, r.Getenv); err == nil || !strings.Contains(err.Error(), "objectformat=sha256") {
		t.Fatalf("err = %v", err)
	}
}

func TestWorktreeConfigExtensionIsAccepted(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Git("config", "core.repositoryFormatVersion", "1")
	r.Git("config", "extensions.worktreeConfig", "true")
	r.Git("config", "--worktree", "user.name", "Worktree Person")
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("log", "-1", "--format=%an"); got != "Worktree Person" {
		t.Fatalf("author = %q", got)
	}
	r.AssertClean()
}

func TestNotARepository(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := Discover(dir, func(string) string { return "" }); !errors.Is(err, ErrNotRepository) {
		t.Fatalf("err = %v", err)
	}
}

func TestDiscoverFromSubdirectory(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	repo, err := Discover(filepath.Join(r.Dir, "src"), r.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if repo.WorkTree != r.Dir {
		t.Fatalf("worktree = %s", repo.WorkTree)
	}
}

func TestUpdateFilesOutsideGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	res, err := UpdateFiles(dir, filepath.Join(dir, ".agent", "lore"), Options{}, func(tx *Tx) error {
		tx.Edit(memPath, appendLine("m"))
		return nil
	})
	if err != nil || res.Mode != ModeFiles {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, memPath))
	if string(data) != "m\n" {
		t.Fatalf("file = %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, ".agent", "lore.lock")); !os.IsNotExist(err) {
		t.Fatal("lock left behind")
	}
}

// git repack -ad and git prune-packed remove emptied objects/xx/
// directories while lore writes loose objects into them: no write fails.
func TestWritesBesideRepackAndPrune(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		rounds := 0
		for {
			select {
			case <-stop:
				done <- rounds
				return
			default:
			}
			r.GitErr("repack", "-adq")
			r.GitErr("prune-packed")
			rounds++
		}
	}()
	failures := 0
	for i := 0; i < 150; i++ {
		if _, err := r.update(ModeCommit, fmt.Sprintf(".agent/knowledge/n%03d.md", i), appendLine(fmt.Sprintf("note %d", i)), "lore: add\n"); err != nil {
			failures++
			t.Logf("write %d: %v", i, err)
		}
	}
	close(stop)
	rounds := <-done
	if failures > 0 {
		t.Fatalf("%d of 150 writes failed beside %d rounds of repack and prune-packed", failures, rounds)
	}
	r.AssertHealthy()
	if got := r.Git("ls-tree", "-r", "--name-only", "HEAD", ".agent/knowledge"); strings.Count(got, "\n")+1 != 150 {
		t.Fatalf("HEAD holds %d notes, want 150", strings.Count(got, "\n")+1)
	}
}

// TestBuildReadsTheStateItBuildsOn: ReadFile and ReadDir show HEAD's
// files for a commit, the index's for a change that is staged, the disk's
// for files only; a file left on disk is seen only through the
// worktree readers.
func TestBuildReadsTheStateItBuildsOn(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Commit("memories", map[string]string{memPath: "committed\n", ".agent/knowledge/a.md": "a\n"})
	r.Write(memPath, "committed\nstaged\n")
	r.Git("add", memPath)
	r.Write(memPath, "committed\nstaged\nleft on disk\n")
	r.Write(".agent/knowledge/leftover.md", "x\n")
	for _, c := range []struct {
		mode      Mode
		file, dir string
	}{
		{ModeCommit, "committed\n", "a.md knowledge/ memories.md"},
		{ModeStage, "committed\nstaged\n", "a.md knowledge/ memories.md"},
		{ModeFiles, "committed\nstaged\nleft on disk\n", "a.md leftover.md knowledge/ memories.md"},
	} {
		_, err := r.open().Update(Options{Mode: c.mode, LockTimeout: time.Second, Now: fixedNow}, func(tx *Tx) error {
			data, ok, err := tx.ReadFile(memPath)
			if err != nil || !ok || string(data) != c.file {
				t.Errorf("%s: ReadFile = %q %v %v", c.mode, data, ok, err)
			}
			if data, _, _ := tx.ReadWorktreeFile(memPath); string(data) != "committed\nstaged\nleft on disk\n" {
				t.Errorf("%s: ReadWorktreeFile = %q", c.mode, data)
			}
			var names []string
			for _, dir := range []string{".agent/knowledge", ".agent"} {
				entries, err := tx.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range entries {
					name := e.Name()
					if e.IsDir() {
						name += "/"
					}
					names = append(names, name)
				}
			}
			if got := strings.Join(names, " "); got != c.dir {
				t.Errorf("%s: ReadDir = %q, want %q", c.mode, got, c.dir)
			}
			if _, ok, _ := tx.ReadFile(".agent/knowledge/leftover.md"); ok != (c.mode == ModeFiles) {
				t.Errorf("%s: the leftover file is seen: %v", c.mode, ok)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
