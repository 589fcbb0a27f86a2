package gitx

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"lore/internal/loretest"
)

// Issue 15: files that are not what they seem. A write never goes through
// a symbolic link, never replaces what is not a regular file, and never
// leaves the index holding both .agent and .agent/….

// wantUnsafe checks that err refuses a write of path for reason.
func wantUnsafe(t *testing.T, err error, path, reason string) {
	t.Helper()
	var ue *UnsafePathError
	if !errors.As(err, &ue) {
		t.Fatalf("error %v, want an UnsafePathError", err)
	}
	if ue.Path != path || !strings.Contains(ue.Reason, reason) {
		t.Fatalf("refused %s because %q, want %s because of %q", ue.Path, ue.Reason, path, reason)
	}
}

// unchanged checks that the repository is as it was: HEAD, the index and
// git status.
func (r *testRepo) unchanged(head, index, status string) {
	r.t.Helper()
	r.AssertHealthy()
	if got := r.Git("rev-parse", "HEAD"); got != head {
		r.t.Errorf("HEAD moved to %s", got)
	}
	if got := r.Git("ls-files", "-s"); got != index {
		r.t.Errorf("the index changed:\n%s\nwant\n%s", got, index)
	}
	if got := r.Git("status", "--porcelain"); got != status {
		r.t.Errorf("git status:\n%s\nwant\n%s", got, status)
	}
}

func (r *testRepo) state() (head, index, status string) {
	return r.Git("rev-parse", "HEAD"), r.Git("ls-files", "-s"), r.Git("status", "--porcelain")
}

// emptyDir fails the test when dir holds anything: lore wrote there.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 0 {
		t.Errorf("%s holds %v (%v): lore wrote outside the repository", dir, entries, err)
	}
}

func TestALinkedAgentDirectoryIsNotWrittenThrough(t *testing.T) {
	t.Parallel()
	for _, link := range []string{".agent", ".agent/knowledge"} {
		t.Run(link, func(t *testing.T) {
			r := newTestRepoWithCommit(t)
			outside := t.TempDir()
			os.MkdirAll(filepath.Dir(r.Path(link)), 0o755)
			if err := os.Symlink(outside, r.Path(link)); err != nil {
				t.Fatal(err)
			}
			r.Git("add", "-A")
			r.Git("commit", "-q", "-m", "a link")
			head, index, status := r.state()
			for _, mode := range []Mode{ModeCommit, ModeStage, ModeFiles} {
				for _, p := range []string{link + "/x.md", ".agent/knowledge/x.md"} {
					_, err := r.update(mode, p, appendLine("through the link"), "lore: add\n")
					wantUnsafe(t, err, p, link+" is a symbolic link")
				}
			}
			emptyDir(t, outside)
			r.unchanged(head, index, status)
			if strings.Contains(index, link+"/") {
				t.Fatalf("the index holds both %s and files below it:\n%s", link, index)
			}
		})
	}
}

func TestALinkedFileIsNotReplacedOrCommittedAsALink(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	os.MkdirAll(r.Path(".agent"), 0o755)
	if err := os.Symlink("../README.md", r.Path(memPath)); err != nil {
		t.Fatal(err)
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "memories.md is a link")
	head, index, status := r.state()
	_, err := r.update(ModeCommit, memPath, appendLine("a memory"), "lore: add\n")
	wantUnsafe(t, err, memPath, "it is a symbolic link")
	r.unchanged(head, index, status)
	if got := r.Read("README.md"); got != "# project\n" {
		t.Errorf("the link's target was written: %q", got)
	}
	if target, err := os.Readlink(r.Path(memPath)); err != nil || target != "../README.md" {
		t.Errorf("the link was replaced: %q, %v", target, err)
	}

	// The person replaces the link with a file but has not committed
	// that: lore still refuses, rather than commit Markdown as the target
	// of a link (mode 120000).
	os.Remove(r.Path(memPath))
	r.Write(memPath, "# Memories\n")
	_, err = r.update(ModeCommit, memPath, appendLine("a memory"), "lore: add\n")
	wantUnsafe(t, err, memPath, "the git index tracks it as a symbolic link")
	r.Git("add", memPath) // staged: the index has a file, HEAD a link
	_, err = r.update(ModeCommit, memPath, appendLine("a memory"), "lore: add\n")
	wantUnsafe(t, err, memPath, "HEAD holds it as a symbolic link")
	r.Git("commit", "-q", "-m", "memories.md is a file")
	if _, err := r.update(ModeCommit, memPath, appendLine("a memory"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if got := r.Git("ls-files", "-s", memPath); !strings.HasPrefix(got, "100644 ") {
		t.Errorf("memories.md committed as %s", got)
	}
}

func TestADirectoryTrackedAsALinkIsNotWrittenInto(t *testing.T) {
	t.Parallel()
	// .agent was committed as a link; the person made it a directory on
	// disk without telling git. Writing .agent/memories.md would leave the
	// index with both .agent and .agent/memories.md, and the person's next
	// git commit -a would then drop the memories.
	r := newTestRepoWithCommit(t)
	if err := os.Symlink("elsewhere", r.Path(".agent")); err != nil {
		t.Fatal(err)
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "a link")
	os.Remove(r.Path(".agent"))
	os.Mkdir(r.Path(".agent"), 0o755)
	head, index, status := r.state()
	for _, mode := range []Mode{ModeCommit, ModeStage} {
		_, err := r.update(mode, memPath, appendLine("a memory"), "lore: add\n")
		wantUnsafe(t, err, memPath, "the git index tracks .agent as a symbolic link")
	}
	r.unchanged(head, index, status)
	emptyDir(t, r.Path(".agent"))
}

func TestAPathInsideDotGitIsRefused(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	head, index, status := r.state()
	for _, p := range []string{".git/.agent/memories.md", "sub/.GIT/x.md", "a/../b.md", "./a.md", "a//b.md"} {
		for _, mode := range []Mode{ModeCommit, ModeStage, ModeFiles} {
			_, err := r.update(mode, p, appendLine("x"), "lore: add\n")
			var ue *UnsafePathError
			if !errors.As(err, &ue) {
				t.Fatalf("%s (%v): error %v, want an UnsafePathError", p, mode, err)
			}
		}
	}
	r.unchanged(head, index, status)
	if _, err := os.Stat(r.Path(".git/.agent")); err == nil {
		t.Error("lore wrote into .git")
	}
}

func TestAFIFOIsNeitherReadNorReplaced(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	os.MkdirAll(r.Path(".agent"), 0o755)
	if err := syscall.Mkfifo(r.Path(memPath), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	head, index, _ := r.state()
	done := loretest.NoHang(t, "a write of a FIFO")
	_, err := r.update(ModeCommit, memPath, appendLine("x"), "lore: add\n")
	done()
	wantUnsafe(t, err, memPath, "it is not a regular file (a named pipe)")
	if got := r.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("HEAD moved")
	}
	if got := r.Git("ls-files", "-s"); got != index {
		t.Errorf("the index changed: %s", got)
	}
	if info, err := os.Lstat(r.Path(memPath)); err != nil || info.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", info, err)
	}
}

func TestATxReadsNothingThroughALink(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "x.md"), []byte("outside"), 0o644)
	os.MkdirAll(r.Path(".agent"), 0o755)
	os.Symlink(outside, r.Path(".agent/knowledge"))
	os.Symlink(filepath.Join(outside, "x.md"), r.Path(".agent/memories.md"))
	_, err := r.open().Update(Options{Mode: ModeCommit, LockTimeout: time.Second, Now: fixedNow}, func(tx *Tx) error {
		if _, _, err := tx.ReadWorktreeFile(".agent/knowledge/x.md"); err == nil || err.Error() != "read .agent/knowledge/x.md: .agent/knowledge is a symbolic link (lore reads and writes only regular files, never through a symbolic link)" {
			t.Errorf("read below a link: %v", err)
		}
		if entries, err := tx.ReadWorktreeDir(".agent/knowledge"); err == nil || len(entries) != 0 {
			t.Errorf("listed a link: %v, %v", entries, err)
		}
		if _, _, err := tx.ReadWorktreeFile(memPath); err == nil || err.Error() != "read .agent/memories.md: it is a symbolic link (lore reads and writes only regular files, never through a symbolic link)" {
			t.Errorf("read a link: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A link HEAD or the index holds is not read as the file's text
	// either: its blob is the link's target.
	r.Git("add", memPath)
	r.Git("commit", "-qm", "a link")
	for _, mode := range []Mode{ModeCommit, ModeStage} {
		_, err := r.open().Update(Options{Mode: mode, LockTimeout: time.Second, Now: fixedNow}, func(tx *Tx) error {
			if data, _, err := tx.ReadFile(memPath); err == nil || !strings.Contains(err.Error(), "as a symbolic link") {
				t.Errorf("%s: read a tracked link: %q %v", mode, data, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestUpdateFilesWritesNothingThroughALink(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(root, ".agent")); err != nil {
		t.Fatal(err)
	}
	_, err := UpdateFiles(root, filepath.Join(root, ".lore-lock"), Options{LockTimeout: time.Second}, func(tx *Tx) error {
		tx.Edit(memPath, appendLine("x"))
		return nil
	})
	wantUnsafe(t, err, memPath, ".agent is a symbolic link")
	emptyDir(t, outside)
}

// HEAD naming a ref outside the git directory: lore refuses before it
// reads or writes anything there.
func TestAHeadOutsideRefsIsRefused(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	head := r.Git("rev-parse", "HEAD")
	outside := filepath.Dir(r.Dir)
	for _, target := range []string{"refs/heads/../../../X", "refs/heads/../../../../X", "../../X", "refs/heads/a.lock"} {
		if err := os.WriteFile(r.Path(".git/HEAD"), []byte("ref: "+target+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []Mode{ModeCommit, ModeStage} {
			if _, err := r.update(mode, memPath, appendLine("x"), "lore: add\n"); mode == ModeCommit && err == nil {
				t.Errorf("HEAD -> %s: lore committed", target)
			}
		}
		for _, p := range []string{filepath.Join(outside, "X"), filepath.Join(outside, "X.lock"), filepath.Join(filepath.Dir(outside), "X"), r.Path("X"), r.Path(".git/logs/X"), r.Path(".git/X")} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("HEAD -> %s: lore wrote %s", target, p)
			}
		}
	}
	os.WriteFile(r.Path(".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	if got := r.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("main moved to %s", got)
	}
}

// checkRefName agrees with git check-ref-format.
func TestRefNamesAsGitChecksThem(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	names := []string{
		"refs/heads/main", "refs/heads/feature/x", "refs/heads/../x", "refs/heads/.x", "refs/heads/x.lock",
		"refs/heads/x.lock/y", "refs/heads/a..b", "refs/heads/a b", "refs/heads/a~1", "refs/heads/a^",
		"refs/heads/a:b", "refs/heads/a?", "refs/heads/a*", "refs/heads/a[b", "refs/heads/a\\b",
		"refs/heads/a@{1}", "refs/heads/a@b", "refs/heads/x.", "refs/heads/x/", "refs/heads//x", "/refs/heads/x",
		"main", "@", "refs/heads/\x01", "refs/heads/\x7f", "refs/heads/ünïcode", "refs/heads/a.b", "refs/tags/v1.0",
		"refs/heads/.lock", "refs/heads/-x", "refs/heads/x-",
	}
	for _, name := range names {
		_, gitErr := r.GitErr("check-ref-format", name)
		err := checkRefName(name)
		if (gitErr == nil) != (err == nil) {
			t.Errorf("%q: git check-ref-format says ok=%v, checkRefName says %v", name, gitErr == nil, err)
		}
	}
}
