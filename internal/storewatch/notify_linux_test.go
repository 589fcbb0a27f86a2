package storewatch

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNotifyHearsWhatTheSweepWouldFind: a file rewritten in place (its
// directory's stamp unchanged) is heard; so are a new file, a removed
// directory and one moved away, whose path is watched again when asked.
func TestNotifyHearsWhatTheSweepWouldFind(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "knowledge")
	file := filepath.Join(dir, "a.md")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := NewNotify()
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	watch := func(want bool) {
		t.Helper()
		added, err := n.Watch([]string{dir})
		if err != nil || added != want {
			t.Fatalf("Watch = %v, %v; want %v", added, err, want)
		}
	}
	heard := func(want bool, what string) {
		t.Helper()
		if got := n.Changed(); got != want {
			t.Fatalf("after %s: Changed = %v, want %v", what, got, want)
		}
	}
	watch(true)
	heard(false, "nothing")
	watch(false)

	f, err := os.OpenFile(file, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte("two"), 0) // in place: same size, same inode
	f.Close()
	heard(true, "a rewrite in place")
	heard(false, "the events drained")

	os.WriteFile(filepath.Join(dir, "b.md"), []byte("b\n"), 0o644)
	heard(true, "a new file")

	if err := os.Rename(dir, filepath.Join(root, "moved")); err != nil {
		t.Fatal(err)
	}
	heard(true, "the directory moved away")
	os.MkdirAll(dir, 0o755)
	heard(false, "a new directory where nothing is watched")
	watch(true) // the new directory at the old path
	os.WriteFile(filepath.Join(dir, "c.md"), []byte("c\n"), 0o644)
	heard(true, "a file in the new directory")
	os.WriteFile(filepath.Join(root, "moved", "d.md"), []byte("d\n"), 0o644)
	heard(false, "a file in the directory moved away, watched no more")

	os.RemoveAll(dir)
	heard(true, "the directory removed")
	if _, err := n.Watch([]string{dir}); err == nil {
		t.Fatal("watching a missing directory succeeded")
	}
}

// TestLocalFS: the test's own temporary directory is on a local file
// system here (tmpfs or ext4 on the machines this runs on), and /proc is
// not one inotify speaks for.
func TestLocalFS(t *testing.T) {
	if !LocalFS(t.TempDir()) {
		t.Skip("the temporary directory is on a file system lore does not trust inotify on")
	}
	if LocalFS("/proc") {
		t.Error("/proc taken for a local file system")
	}
	if LocalFS(filepath.Join(t.TempDir(), "missing")) {
		t.Error("a missing path taken for a local file system")
	}
}
