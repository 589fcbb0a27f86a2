package bleveindex

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"lore/index"
	"lore/internal/fsx"
)

// What lore asks for after answering a fresh clone's first search by
// scanning (index.OpBuild) builds an index that was never built, and
// nothing else: another process's build, or an index of another format,
// which the next search rebuilds as it always has.
func TestBuildUnbuilt(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	m := r.addMemory("the funicular brakes are checked every morning", "railway")
	dir := index.Dir(r.store)
	ix := r.index(Options{})

	// Another process holds the write lock: busy, nothing built.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := fsx.Lock(filepath.Join(dir, index.LockFile), true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.BuildUnbuilt(nil); !errors.Is(err, ErrBusy) {
		t.Errorf("with the lock held: %v, want ErrBusy", err)
	}
	unlock()
	if _, err := os.Stat(filepath.Join(dir, index.CurrentFile)); err == nil {
		t.Fatal("an index was built while another process held the lock")
	}

	// No index, and the lock handed over by lore: it is built, answers,
	// and the lock is let go.
	held, err := os.OpenFile(filepath.Join(dir, index.LockFile), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := fsx.TryLock(held, true); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	rep, err := ix.BuildUnbuilt(held)
	if err != nil || !rep.Rebuilt || rep.Reason != "there was no index" || rep.Indexed != 1 {
		t.Fatalf("report %+v, err %v; want the index built because there was none", rep, err)
	}
	wantIDs(t, ids(t, ix, "funicular"), m.ID)
	if unlock, err := fsx.Lock(filepath.Join(dir, index.LockFile), true, 0); err != nil {
		t.Errorf("the lock handed over is still held after the build: %v", err)
	} else {
		unlock()
	}

	// An index of another format is left to the next search.
	current := filepath.Join(dir, index.CurrentFile)
	old := []byte("lore-index 1 gen-old\n")
	if err := os.WriteFile(current, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := ix.BuildUnbuilt(nil); err != nil || rep.Rebuilt {
		t.Errorf("over an index of another format: report %+v, err %v; want nothing done", rep, err)
	}
	if data, _ := os.ReadFile(current); string(data) != string(old) {
		t.Errorf("current is %q, want it left as %q", data, old)
	}
}
