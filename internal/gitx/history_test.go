package gitx

import (
	"strings"
	"testing"
)

// History lists the commits that changed a file, newest first, as
// git log --first-parent does, a removal included, and follows a file
// that HEAD no longer has.
func TestHistoryFollowsAFileAsGitLogDoes(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Commit("add", map[string]string{"notes/a.md": "one\n"})
	r.Commit("other file", map[string]string{"notes/b.md": "b\n"})
	r.Commit("change", map[string]string{"notes/a.md": "two\n"})
	r.Git("rm", "-q", "notes/a.md")
	r.Git("commit", "-q", "-m", "remove")
	r.Commit("unrelated", map[string]string{"README.md": "# changed\n"})
	repo := r.open()
	var got []string
	var blobs []Hash
	if err := repo.History("notes/a.md", func(v Version) bool {
		got = append(got, v.Commit.String()+" "+v.Subject)
		blobs = append(blobs, v.Blob)
		if v.Author == "" || v.When.IsZero() {
			t.Errorf("%s: no author or time: %+v", v.Subject, v)
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	want := r.Git("log", "--first-parent", "--format=%H %s", "--", "notes/a.md")
	if strings.Join(got, "\n") != want {
		t.Fatalf("History:\n%s\ngit log:\n%s", strings.Join(got, "\n"), want)
	}
	if !blobs[0].IsZero() {
		t.Errorf("the removal left blob %s", blobs[0])
	}
	data, err := repo.ReadBlob(blobs[1])
	if err != nil || string(data) != "two\n" {
		t.Errorf("the last version: %q %v", data, err)
	}
	// fn stops the walk.
	n := 0
	repo.History("notes/a.md", func(Version) bool { n++; return false })
	if n != 1 {
		t.Errorf("fn returned false and was called %d times", n)
	}
	// A path that never was has no history.
	repo.History("notes/never.md", func(v Version) bool { t.Errorf("a version of a file that never was: %+v", v); return true })
}

func TestFirstParentsIsGitLogFirstParent(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Commit("one", map[string]string{"a.md": "one\n"})
	r.Git("checkout", "-q", "-b", "side")
	r.Commit("side", map[string]string{"b.md": "b\n"})
	r.Git("checkout", "-q", "-")
	r.Commit("two", map[string]string{"a.md": "two\n"})
	r.Git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	r.Commit("three", map[string]string{"a.md": "three\n"})
	repo := r.open()
	head, err := repo.HeadCommit()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := repo.FirstParents(head, func(v Version) bool {
		got = append(got, v.Commit.String()+" "+v.Parent.String()+" "+v.Subject)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	var wantLines []string
	for _, l := range strings.Split(r.Git("log", "--first-parent", "--format=%H%x00%P%x00%s"), "\n") {
		f := strings.Split(l, "\x00")
		parent, _, _ := strings.Cut(f[1], " ") // the first of them; a root commit has none
		if parent == "" {
			parent = ZeroHash.String()
		}
		wantLines = append(wantLines, f[0]+" "+parent+" "+f[2])
	}
	if strings.Join(got, "\n") != strings.Join(wantLines, "\n") {
		t.Fatalf("FirstParents:\n%s\ngit log --first-parent:\n%s", strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
	}
	n := 0
	repo.FirstParents(head, func(Version) bool { n++; return n < 2 })
	if n != 2 {
		t.Errorf("fn returned false and was called %d times", n)
	}
}
