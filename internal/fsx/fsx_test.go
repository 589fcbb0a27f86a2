package fsx

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

func TestWriteFileReplacesAndKeepsTheMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "hook")
	if err := WriteFile(p, []byte("one\n"), SyncAll); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o775); err != nil {
		t.Fatal(err)
	}
	for _, d := range []Durability{Unsynced, SyncData, SyncAll} {
		if err := WriteFile(p, []byte("two\n"), d); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o775 {
			t.Errorf("durability %d: mode %v, want 0775 kept (the umask narrows what a new file gets)", d, info.Mode().Perm())
		}
	}
	if data, _ := os.ReadFile(p); string(data) != "two\n" {
		t.Errorf("content %q", data)
	}
	if entries, _ := os.ReadDir(filepath.Dir(p)); len(entries) != 1 {
		t.Errorf("left beside the file: %v", entries)
	}
}

func TestAFailedReplacementLeavesTheFileAndNoTemporary(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("old"), 0o644)
	// A directory where the file's next version would be renamed to makes
	// the rename fail after the temporary file was written.
	pending, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	pending.File().Write([]byte("new"))
	os.Remove(p)
	os.Mkdir(p, 0o755)
	os.WriteFile(filepath.Join(p, "x"), nil, 0o644)
	if err := pending.Commit(SyncAll); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "f" {
		t.Errorf("after the failure the directory holds %v", entries)
	}
}

func TestAbortDropsTheNextVersion(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("old"), 0o644)
	pending, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	pending.File().Write([]byte("new"))
	pending.Abort()
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("content %q", data)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left: %v", entries)
	}
}

// A killed writer's temporary files are removed by the next write into
// their directory, whichever file they were for; a live process's are
// not.
func TestReplacementRemovesTheTemporariesOfDeadProcesses(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "memories.md")
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	orphan := filepath.Join(dir, tempName("memories.md", dead.Process.Pid, 0))
	live := filepath.Join(dir, tempName("memories.md", os.Getppid(), 3))
	other := filepath.Join(dir, tempName("config.yaml", dead.Process.Pid, 0))
	for _, f := range []string{orphan, live, other} {
		os.WriteFile(f, []byte("half"), 0o644)
	}
	if err := WriteFile(p, []byte("whole"), Unsynced); err != nil {
		t.Fatal(err)
	}
	Settle()
	for f, want := range map[string]bool{orphan: false, live: true, other: false} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(f), err == nil, want)
		}
	}
}

func TestStampsTellVersionsApart(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("one"), 0o644)
	a, err := Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	st := NewStamper()
	defer st.Close()
	b, err := st.Stamp(p)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Same(b) || a.Dir {
		t.Fatalf("Lstat %+v and Stamper %+v differ", a, b)
	}
	WriteFile(p, []byte("two"), Unsynced) // a rename: a new inode
	c, _ := st.Stamp(p)
	if a.Same(c) {
		t.Errorf("a replaced file has the same stamp %+v", c)
	}
	if (Stamp{}).Same(Stamp{}) {
		t.Error("the unknown stamp is the same as itself")
	}
	d, _ := Lstat(dir)
	if !d.Dir {
		t.Error("a directory's stamp is not a directory")
	}
}

func TestTheRacyRule(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).UnixNano()
	fine := func(ago time.Duration) int64 { return now - int64(ago) + 123 } // not a whole second
	cases := []struct {
		name    string
		st      Stamp
		settled bool
	}{
		{"old", Stamp{Mtime: fine(time.Hour), Ctime: fine(time.Hour)}, true},
		{"just written", Stamp{Mtime: fine(10 * time.Millisecond), Ctime: fine(10 * time.Millisecond)}, false},
		{"old but its inode changed just now", Stamp{Mtime: fine(time.Hour), Ctime: fine(time.Millisecond)}, false},
		{"past the window", Stamp{Mtime: fine(RacyWindow + time.Millisecond), Ctime: fine(RacyWindow + time.Millisecond)}, true},
		{"whole seconds, within two", Stamp{Mtime: now - int64(time.Second), Ctime: now - int64(time.Second)}, false},
		{"whole seconds, past two", Stamp{Mtime: now - 3*int64(time.Second), Ctime: now - 3*int64(time.Second)}, true},
	}
	for _, c := range cases {
		if got := c.st.Settled(now); got != c.settled {
			t.Errorf("%s: settled %v, want %v", c.name, got, c.settled)
		}
		if got := c.st.IfSettled(now); (got == Stamp{}) == c.settled {
			t.Errorf("%s: IfSettled %+v", c.name, got)
		}
	}
}

// The racy rule told by the file system's clock: a stamp is settled by
// a later file's once that file's time is past both of the stamp's.
func TestTheRacyRuleByTheFileSystemsClock(t *testing.T) {
	st := Stamp{Mtime: 1000, Ctime: 2000, Ino: 1, Size: 1}
	for later, settled := range map[int64]bool{999: false, 1000: false, 2000: false, 2001: true} {
		if got := st.SettledBy(Stamp{Mtime: later, Ctime: later}); got != settled {
			t.Errorf("a later file written at %d: settled %v, want %v", later, got, settled)
		}
	}
	if (Stamp{}).SettledBy(Stamp{Mtime: 5000}) {
		t.Error("the unknown stamp is settled")
	}

	// Fstat stamps an open file as Lstat stamps its path.
	p := filepath.Join(t.TempDir(), "f")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("data")
	a, err := Fstat(f)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Lstat(p); !a.Same(b) {
		t.Fatalf("Fstat %+v, Lstat %+v", a, b)
	}
}

func TestAnExclusiveLockExcludesEveryOther(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	open := func() *os.File {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return f
	}
	a, b, c := open(), open(), open()
	if ok, err := TryLock(a, false); !ok || err != nil {
		t.Fatalf("shared: %v %v", ok, err)
	}
	if ok, _ := TryLock(b, false); !ok {
		t.Error("a second shared lock was refused")
	}
	if ok, _ := TryLock(c, true); ok {
		t.Error("an exclusive lock was granted beside shared ones")
	}
	a.Close()
	b.Close()
	if ok, _ := TryLock(c, true); !ok {
		t.Error("the exclusive lock was refused once the others were closed")
	}
	if ok, _ := TryLock(open(), false); ok {
		t.Error("a shared lock was granted beside an exclusive one")
	}
}

func TestMapReadsTheFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	want := []byte("mapped " + strconv.Itoa(syscall.Getpid()))
	os.WriteFile(p, want, 0o644)
	for _, m := range []func(*os.File) ([]byte, func(), error){Map, MapPopulated} {
		f, _ := os.Open(p)
		data, release, err := m(f)
		if err != nil || string(data) != string(want) {
			t.Errorf("mapped %q, %v", data, err)
		}
		release()
		f.Close()
	}
	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, nil, 0o644)
	f, _ := os.Open(empty)
	defer f.Close()
	if data, release, err := Map(f); err != nil || len(data) != 0 {
		t.Errorf("empty file: %q %v", data, err)
	} else {
		release()
	}
}

func TestLockWaitsThenGivesUp(t *testing.T) {
	// Lock's clock moves only as it waits between tries, and a hook runs
	// at each wait.
	defer func(sleep func(time.Duration), now func() time.Time) { lockSleep, lockNow = sleep, now }(lockSleep, lockNow)
	clock := time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC)
	var waited func()
	waits := 0
	lockNow = func() time.Time { return clock }
	lockSleep = func(d time.Duration) {
		clock = clock.Add(d)
		waits++
		if waited != nil {
			waited()
		}
	}
	p := filepath.Join(t.TempDir(), "write.lock")
	unlock, err := Lock(p, true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(p, false, 20*time.Millisecond); err != ErrLocked {
		t.Fatalf("a shared lock beside an exclusive one: %v, want ErrLocked", err)
	}
	if waits < 10 || waits > 11 {
		t.Fatalf("gave up after %d waits of 2 ms, want 10 or 11 (20 ms)", waits)
	}
	// The holder lets go while the second waits, after its first try.
	waits = 0
	waited = func() {
		if waits == 1 {
			unlock()
		}
	}
	second, err := Lock(p, true, 5*time.Second)
	if err != nil {
		t.Fatalf("the lock was not had once released: %v", err)
	}
	if waits != 1 {
		t.Fatalf("had the lock after %d waits, want 1", waits)
	}
	second()
}
