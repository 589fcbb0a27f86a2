package index

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"lore/internal/fsx"
)

// A search scans and has the index built afterwards only when the index
// directory has no current generation and nobody is writing it; it then
// holds the write lock, so that the next process waits for the build, as
// for any writer.
func TestUnbuilt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "index")
	lock := filepath.Join(dir, LockFile)
	f := unbuilt(dir)
	if f == nil {
		t.Fatal("no index directory: want unbuilt")
	}
	if _, err := fsx.Lock(lock, false, 0); err == nil {
		t.Error("unbuilt returned without holding the write lock")
	}
	if g := unbuilt(dir); g != nil {
		g.Close()
		t.Error("write lock held (a build under way): want it not unbuilt")
	}
	f.Close()
	unlock, err := fsx.Lock(lock, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if g := unbuilt(dir); g != nil {
		g.Close()
		t.Error("write lock held by another: want it not unbuilt")
	}
	unlock()
	if g := unbuilt(dir); g == nil {
		t.Error("write lock free, no current generation: want unbuilt")
	} else {
		g.Close()
	}
	if err := os.WriteFile(filepath.Join(dir, CurrentFile), []byte("lore-index 1 gen-old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if g := unbuilt(dir); g != nil {
		g.Close()
		t.Error("a current generation (of another format): want it not unbuilt")
	}
}
