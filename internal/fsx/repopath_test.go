package fsx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRepoPath(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		f, want string
		ok      bool
	}{
		{"src/a.go", "src/a.go", true},
		{"./src//a.go", "src/a.go", true},
		{"src/../b.go", "b.go", true},
		{filepath.Join(root, "src", "a.go"), "src/a.go", true},
		{filepath.Join(link, "src", "a.go"), "src/a.go", true}, // the top named through a link
		{"", "", true},
		{"../elsewhere/a.go", "", false},
		{"src/../../a.go", "", false},
		{"..", "", false},
		{"/etc/passwd", "", false},
		{root, "", false},            // the top itself is no file of it
		{root + "x/a.go", "", false}, // beside it, sharing its name's start
		{filepath.Join(root, "..", "a.go"), "", false},
	} {
		if got, ok := RepoPath(root, c.f); got != c.want || ok != c.ok {
			t.Errorf("RepoPath(%q) = %q, %v; want %q, %v", c.f, got, ok, c.want, c.ok)
		}
	}
}
