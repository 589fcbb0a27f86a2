package gitx

import (
	"os"
	"strings"
	"testing"
	"time"
)

// conflictedMerge makes a merge in progress that C git left in conflict
// in the index version given: notes/a.txt changed on both sides,
// notes/b.txt added on both sides, notes/c.txt deleted on one side and
// changed on the other; z.txt, outside, conflicts too.
func conflictedMerge(t *testing.T, version string) *testRepo {
	r := newTestRepo(t)
	r.Git("config", "index.version", version)
	r.Commit("base", map[string]string{"notes/a.txt": "base\n", "notes/c.txt": "c\n", "z.txt": "z\n", "README.md": "r\n"})
	r.Git("checkout", "-q", "-b", "side")
	r.Commit("side", map[string]string{"notes/a.txt": "side\n", "notes/b.txt": "side b\n", "notes/c.txt": "c, side\n", "z.txt": "z side\n"})
	r.Git("checkout", "-q", "main")
	r.Git("rm", "-q", "notes/c.txt")
	r.Commit("main", map[string]string{"notes/a.txt": "main\n", "notes/b.txt": "main b\n", "z.txt": "z main\n"})
	if out, err := r.GitErr("merge", "-q", "side"); err == nil {
		t.Fatalf("the merge did not conflict:\n%s", out)
	}
	return r
}

// TestResolveIsGitAddOfAConflict: Conflicts reads the stages C git left;
// Resolve writes and stages a settled file as git add does (C git sees a
// resolved path, the merge commits, fsck is happy), writes a narrowed file
// without staging it, removes one the resolution deletes, and leaves the
// conflicts outside its paths and those whose stages changed meanwhile.
// In index versions 2, 3 and 4 (whose paths are stored relative to the
// entry before).
func TestResolveIsGitAddOfAConflict(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := conflictedMerge(t, version)
			repo := r.open()
			conflicts, err := repo.Conflicts("notes")
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range conflicts {
				got = append(got, c.Path+" "+stagesOf(c))
			}
			if want := "notes/a.txt 123 notes/b.txt -23 notes/c.txt 1-3"; strings.Join(got, " ") != want {
				t.Fatalf("conflicts: %s\nwant %s", strings.Join(got, " "), want)
			}
			a, b, c := conflicts[0], conflicts[1], conflicts[2]
			if a.Mode != 0o100644 || BlobHash([]byte("main\n")) != a.Ours || BlobHash([]byte("side\n")) != a.Theirs || BlobHash([]byte("base\n")) != a.Base {
				t.Fatalf("stages of a.txt: %+v", a)
			}
			stale := a
			stale.Theirs = BlobHash([]byte("another merge\n"))
			written, err := repo.Resolve([]Resolution{
				{Conflict: a, Data: []byte("main\nside\n"), Stage: true},
				{Conflict: b, Data: []byte("<<<<<<< ours\nmain b\n=======\nside b\n>>>>>>> theirs\n")},
				{Conflict: c, Stage: true},
				{Conflict: stale, Data: []byte("not this\n"), Stage: true},
			}, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(written, " ") != "notes/a.txt notes/b.txt notes/c.txt" {
				t.Fatalf("written: %v", written)
			}
			if got := r.Read("notes/a.txt"); got != "main\nside\n" {
				t.Fatalf("a.txt: %q", got)
			}
			if _, err := os.Stat(r.Path("notes/c.txt")); !os.IsNotExist(err) {
				t.Fatalf("c.txt is still there: %v", err)
			}
			if got := r.Git("status", "--porcelain"); got != "M  notes/a.txt\nAA notes/b.txt\nUU z.txt" { // c.txt: deleted, as in HEAD
				t.Fatalf("git status:\n%s", got)
			}
			if got := r.Git("ls-files", "-s", "notes/a.txt"); !strings.HasSuffix(got, " 0\tnotes/a.txt") {
				t.Fatalf("a.txt staged as %q", got)
			}
			if left, _ := repo.Conflicts(""); len(left) != 2 || left[0].Path != "notes/b.txt" || left[1].Path != "z.txt" {
				t.Fatalf("conflicts left: %+v", left)
			}
			r.Write("notes/b.txt", "main b\nside b\n")
			r.Write("z.txt", "z both\n")
			r.Git("add", "notes/b.txt", "z.txt")
			r.Git("commit", "-q", "--no-edit")
			r.AssertHealthy()
			if got := r.Git("show", "HEAD:notes/a.txt"); got != "main\nside" {
				t.Fatalf("committed a.txt: %q", got)
			}
			if got := r.Git("ls-tree", "--name-only", "HEAD", "notes/"); got != "notes/a.txt\nnotes/b.txt" {
				t.Fatalf("committed notes: %q", got)
			}
		})
	}
}

// stagesOf is "123" for a conflict with all three stages, "-" for a
// missing one.
func stagesOf(c Conflict) string {
	var b strings.Builder
	for i, h := range []Hash{c.Base, c.Ours, c.Theirs} {
		if h.IsZero() {
			b.WriteByte('-')
		} else {
			b.WriteByte("123"[i])
		}
	}
	return b.String()
}
