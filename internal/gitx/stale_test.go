package gitx

import (
	"slices"
	"testing"
	"time"
)

// TestRestageHeadIsGitRestoreStagedWhereTheWorktreeIsHEADs: each path
// whose worktree file is HEAD's gets HEAD's version back in the index, as
// git restore --staged would give it; a path a person changed in the
// worktree keeps what is staged. C git is the oracle: afterwards git
// status shows no staged change for the restaged paths, and git fsck is
// clean.
func TestRestageHeadIsGitRestoreStagedWhereTheWorktreeIsHEADs(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.Commit("first", map[string]string{".agent/a.md": "a1\n", ".agent/b.md": "b1\n", ".agent/gone.md": "g\n"})
	r.Git("tag", "before")
	r.Commit("second", map[string]string{".agent/a.md": "a2\n", ".agent/b.md": "b2\n", ".agent/new.md": "n\n"})
	r.Git("rm", "-q", ".agent/gone.md")
	r.Git("commit", "-q", "-m", "third")
	// The index as a racing git command left it: every file as it was
	// at the tag; and a person's own edit of b.md in the worktree.
	r.Git("read-tree", "before")
	r.Write(".agent/b.md", "b3\n")
	if got, want := r.Git("status", "--porcelain", ".agent"), "MM .agent/a.md\nMM .agent/b.md\nAD .agent/gone.md\nD  .agent/new.md\n?? .agent/new.md"; got != want {
		t.Fatalf("git status before: %q, want %q", got, want)
	}

	repo := r.open()
	paths := []string{".agent/a.md", ".agent/b.md", ".agent/gone.md", ".agent/new.md"}
	changes, err := repo.StagedChangesOf(paths)
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	for _, c := range changes {
		changed = append(changed, c.Path)
	}
	if !slices.Equal(changed, paths) {
		t.Fatalf("StagedChangesOf = %q, want all of %q", changed, paths)
	}
	restaged, err := repo.RestageHead(paths, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{".agent/a.md", ".agent/gone.md", ".agent/new.md"}; !slices.Equal(restaged, want) {
		t.Fatalf("RestageHead = %q, want %q", restaged, want)
	}
	if got := r.Git("diff", "--cached", "--name-only"); got != ".agent/b.md" {
		t.Fatalf("git diff --cached after: %q, want only the person's b.md", got)
	}
	if got := r.Git("show", ":.agent/b.md"); got != "b1" {
		t.Fatalf("b.md staged: %q, want the version left as it was", got)
	}
	if got := r.Git("status", "--porcelain", ".agent"); got != "MM .agent/b.md" {
		t.Fatalf("git status after: %q", got)
	}
	r.Git("fsck", "--strict", "--no-progress")
	// Nothing left to do: a second call changes nothing.
	if again, err := repo.RestageHead(paths, time.Second); err != nil || len(again) != 0 {
		t.Fatalf("second RestageHead = %q, %v", again, err)
	}
}
