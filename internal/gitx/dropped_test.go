package gitx

import (
	"os"
	"strings"
	"testing"
)

// subjects lists the first lines of the commits' messages.
func subjects(lost []LostCommit) string {
	var out []string
	for _, c := range lost {
		s, _, _ := strings.Cut(c.Message, "\n")
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// TestDroppedSinceFindsWhatARewindTookOffTheBranch: after a mark, an
// agent commits through lore, then resets the branch below the mark and
// commits its own work: lore's commits the branch held at the mark or
// since, and no longer reaches, are found oldest first; a person's and
// the agent's own commits are not lore's; what was dropped before the
// mark, or what the branch still reaches, is not found.
func TestDroppedSinceFindsWhatARewindTookOffTheBranch(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.Commit("initial", map[string]string{"README.md": "r\n"})
	r.Commit("lore: add fix a", map[string]string{".agent/memories.md": "a\n"})
	r.Commit("lore: add fix dropped before the mark", map[string]string{".agent/memories.md": "a\nz\n"})
	r.Git("reset", "-q", "--hard", "HEAD~1")
	r.Commit("a person's change", map[string]string{"src.go": "x\n"})
	r.Commit("lore: add fix b", map[string]string{".agent/memories.md": "a\nb\n"})
	repo := r.open()
	mark, err := repo.Mark()
	if err != nil {
		t.Fatal(err)
	}
	if mark.Branch != "refs/heads/main" || mark.Tip.String() != r.Git("rev-parse", "HEAD") || mark.ReflogEnd == 0 {
		t.Fatalf("mark = %+v", mark)
	}
	if lost, err := repo.DroppedSince(mark); err != nil || len(lost) != 0 {
		t.Fatalf("right after the mark: %q, %v", subjects(lost), err)
	}

	// The agent: a memory through lore, then a reset three commits back
	// (below the mark), then its own commit.
	r.Commit("lore: add fix c", map[string]string{".agent/memories.md": "a\nb\nc\n"})
	r.Git("reset", "-q", "--hard", "HEAD~3")
	r.Commit("the agent's work", map[string]string{"src.go": "y\n"})
	lost, err := repo.DroppedSince(mark)
	if err != nil {
		t.Fatal(err)
	}
	if got := subjects(lost); got != "lore: add fix b, lore: add fix c" {
		t.Fatalf("dropped: %q", got)
	}
	// Each with its parent, for the change it made.
	if got := lost[1].Parent; got != lost[0].Commit {
		t.Fatalf("parent of c = %s, want b %s", got, lost[0].Commit)
	}
	// C git agrees: neither is reachable from the branch.
	for _, c := range lost {
		if _, err := r.GitErr("merge-base", "--is-ancestor", c.Commit.String(), "main"); err == nil {
			t.Fatalf("%s is reachable from main", c.Commit)
		}
	}

	// An amend and a rebase rewrite rather than drop: the old commits
	// are off the branch all the same.
	mark, _ = repo.Mark()
	r.Commit("lore: add fix d", map[string]string{".agent/memories.md": "a\nd\n"})
	r.Git("commit", "-q", "--amend", "-m", "the agent's work, amended")
	if got := subjects(must(repo.DroppedSince(mark))); got != "lore: add fix d" {
		t.Fatalf("after an amend: %q", got)
	}

	// What the branch still reaches, through a merge's second parent,
	// is not dropped.
	mark, _ = repo.Mark()
	r.Git("checkout", "-q", "-b", "side")
	r.Commit("lore: add fix e", map[string]string{".agent/e.md": "e\n"})
	r.Git("checkout", "-q", "main")
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	if lost := must(repo.DroppedSince(mark)); len(lost) != 0 {
		t.Fatalf("after a merge: %q", subjects(lost))
	}

	// Without a reflog, the tip at the mark still tells.
	r.Git("config", "core.logAllRefUpdates", "false")
	if err := os.RemoveAll(r.Path(".git/logs")); err != nil {
		t.Fatal(err)
	}
	r.Commit("lore: add fix f", map[string]string{".agent/f.md": "f\n"})
	mark, _ = repo.Mark()
	r.Git("reset", "-q", "--hard", "HEAD~1")
	if got := subjects(must(repo.DroppedSince(mark))); got != "lore: add fix f" {
		t.Fatalf("without a reflog: %q", got)
	}
}

// TestOffBranchHistoryListsVersionsOnlyTheReflogHolds: the versions of a
// file that commits the branch no longer reaches made, newest first, each
// with the blob before it.
func TestOffBranchHistoryListsVersionsOnlyTheReflogHolds(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.Commit("initial", map[string]string{".agent/memories.md": "a\n"})
	r.Commit("lore: add b", map[string]string{".agent/memories.md": "a\nb\n"})
	r.Commit("unrelated", map[string]string{"src.go": "x\n"})
	r.Commit("lore: add c", map[string]string{".agent/memories.md": "a\nb\nc\n"})
	r.Git("reset", "-q", "--hard", "HEAD~3")
	r.Commit("lore: add d", map[string]string{".agent/memories.md": "a\nd\n"})
	var got []string
	err := r.open().OffBranchHistory(".agent/memories.md", func(v Version) bool {
		got = append(got, v.Subject+" "+r.Git("cat-file", "-p", v.Before.String())+" -> "+r.Git("cat-file", "-p", v.Blob.String()))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "lore: add c a\nb -> a\nb\nc|lore: add b a -> a\nb"
	if strings.Join(got, "|") != want {
		t.Fatalf("off-branch versions:\n%q\nwant\n%q", strings.Join(got, "|"), want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
