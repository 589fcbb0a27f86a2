package fresh_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/fsx"
)

func TestCurrentNamesTheLiveGeneration(t *testing.T) {
	d := fresh.Dir(filepath.Join(t.TempDir(), "index"))
	if _, err := d.Current(); !errors.Is(err, fresh.ErrNoIndex) || fresh.Reason(err) != "there was no index" {
		t.Fatalf("a directory without an index: %v (%q)", err, fresh.Reason(err))
	}
	if err := d.SetCurrent("gen-abc"); err != nil {
		t.Fatal(err)
	}
	if gen, err := d.Current(); gen != "gen-abc" || err != nil {
		t.Fatalf("current %q, %v; want gen-abc", gen, err)
	}
	data, err := os.ReadFile(filepath.Join(string(d), "current"))
	if want := fmt.Sprintf("lore-index %d gen-abc\n", index.FormatVersion); string(data) != want || err != nil {
		t.Fatalf("current holds %q, %v; want %q", data, err, want)
	}
	if d.Generation("gen-abc") != filepath.Join(string(d), "gen-abc") || d.Manifest("gen-abc") != filepath.Join(string(d), "gen-abc.manifest") {
		t.Fatalf("generation at %s, its manifest at %s", d.Generation("gen-abc"), d.Manifest("gen-abc"))
	}

	for _, damaged := range []string{"", "garbage", "lore-index 4", "lore-index 4 gen-a extra", "index 4 gen-a",
		"lore-index 4 abc", "lore-index 4 gen-../../elsewhere", `lore-index 4 gen-a\b`} {
		os.WriteFile(filepath.Join(string(d), "current"), []byte(damaged), 0o644)
		gen, err := d.Current()
		if !errors.Is(err, fresh.ErrBadManifest) {
			t.Errorf("current holding %q: %q, %v; want the index damaged", damaged, gen, err)
		} else if fresh.Reason(err) != "the index was damaged" {
			t.Errorf("current holding %q: reason %q", damaged, fresh.Reason(err))
		}
	}

	old := fmt.Sprint(index.FormatVersion - 1)
	os.WriteFile(filepath.Join(string(d), "current"), []byte("lore-index "+old+" gen-abc\n"), 0o644)
	_, err = d.Current()
	var fe *fresh.FormatError
	if !errors.As(err, &fe) || fe.Found != old {
		t.Fatalf("an index of format %s: %v; want a FormatError", old, err)
	}
	if want := fmt.Sprintf("the index has format %s, this lore reads format %d", old, index.FormatVersion); fresh.Reason(err) != want {
		t.Fatalf("reason %q, want %q", fresh.Reason(err), want)
	}
}

func TestReason(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fresh.ErrNoIndex, "there was no index"},
		{fmt.Errorf("open: %w", fresh.ErrBadManifest), "the index was damaged"},
		{&fs.PathError{Op: "open", Path: "gen-a.manifest", Err: fs.ErrNotExist}, "the index was damaged"},
		{&fresh.FormatError{Found: "9"}, fmt.Sprintf("the index has format 9, this lore reads format %d", index.FormatVersion)},
		{errors.New("input/output error"), "the index could not be read: input/output error"},
	} {
		if got := fresh.Reason(c.err); got != c.want {
			t.Errorf("Reason(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

// One process at a time writes the index: another one waits for it as
// long as it is willing to, then gives up with ErrBusy.
func TestLockedWaitsThenGivesUp(t *testing.T) {
	d := fresh.Dir(filepath.Join(t.TempDir(), "index")) // made by Locked
	held, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- d.Locked(time.Second, func() error { close(held); <-release; return nil })
	}()
	<-held
	ran := false
	if err := d.Locked(20*time.Millisecond, func() error { ran = true; return nil }); !errors.Is(err, fresh.ErrBusy) || ran {
		t.Fatalf("while another holds the lock: %v, ran %v; want ErrBusy without running", err, ran)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	errFull := errors.New("disk full")
	if err := d.Locked(time.Second, func() error { ran = true; return errFull }); !errors.Is(err, errFull) || !ran {
		t.Fatalf("once it is free: %v, ran %v; want fn run and its error returned", err, ran)
	}
	if err := d.Locked(time.Second, func() error { return nil }); err != nil {
		t.Fatalf("after a failed fn the lock is still held: %v", err)
	}

	// An index directory that cannot be made is an error, not a busy
	// index.
	blocked := fresh.Dir(filepath.Join(string(d), "write.lock", "index"))
	ran = false
	if err := blocked.Locked(time.Second, func() error { ran = true; return nil }); err == nil || errors.Is(err, fresh.ErrBusy) || ran {
		t.Fatalf("an index directory beneath a file: %v, ran %v", err, ran)
	}
}

func TestLastError(t *testing.T) {
	d := fresh.Dir(t.TempDir())
	if got := d.LastError(); got != "" {
		t.Fatalf("no last error yet: %q", got)
	}
	d.SetLastError(errors.New("merging segments: disk full"))
	if got := d.LastError(); got != "merging segments: disk full" {
		t.Fatalf("last error %q", got)
	}
	d.SetLastError(nil)
	if got := d.LastError(); got != "" {
		t.Fatalf("after a success the last error is still %q", got)
	}
	if _, err := os.Stat(filepath.Join(string(d), "last-error")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("last-error file after a success: %v", err)
	}
}

// RemoveStrays deletes every generation but the one kept, with their
// manifests and the manifests being written aside for them; the rest of
// the directory is left alone.
func TestRemoveStraysKeepsOneGeneration(t *testing.T) {
	d := fresh.Dir(t.TempDir())
	for _, f := range []string{"current", "write.lock", "last-error",
		"gen-keep/root.bolt", "gen-keep.manifest", ".gen-keep.manifest.lore-1-0.tmp",
		"gen-old/root.bolt", "gen-old/store/000.zap", "gen-old.manifest", ".gen-old.manifest.lore-999-3.tmp",
		"gen-interrupted/root.bolt", ".gen-interrupted.manifest.lore-7-0.tmp", "gen-aside.manifest"} {
		p := filepath.Join(string(d), filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.RemoveStrays("gen-keep")
	var left []string
	entries, err := os.ReadDir(string(d))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{".gen-keep.manifest.lore-1-0.tmp", "current", "gen-keep", "gen-keep.manifest", "last-error", "write.lock"}
	if !slices.Equal(left, want) {
		t.Fatalf("left %q, want %q", left, want)
	}
	if _, err := os.Stat(filepath.Join(string(d), "gen-keep", "root.bolt")); err != nil {
		t.Fatalf("the kept generation lost its files: %v", err)
	}
}

// SameFile tells whether a manifest is still the one a process read, or
// another process has replaced it meanwhile.
func TestSameFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gen-a.manifest")
	if err := fresh.WriteManifest(path, fresh.NewManifest()); err != nil {
		t.Fatal(err)
	}
	seen, err := fsx.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fresh.SameFile(path, seen) {
		t.Fatal("an untouched manifest is not the same file")
	}
	if err := fresh.WriteManifest(path, fresh.NewManifest()); err != nil {
		t.Fatal(err)
	}
	if fresh.SameFile(path, seen) {
		t.Fatal("a replaced manifest is the same file")
	}
	os.Remove(path)
	if fresh.SameFile(path, seen) {
		t.Fatal("a removed manifest is the same file")
	}
}

// A manifest that cannot be read — missing, empty (a crash), damaged or
// of another format — is reported as such, and the index rebuilt.
func TestDamagedManifestIsReported(t *testing.T) {
	t.Parallel()
	r := newStoreRepo(t, fresh.DefaultSweepLimit)
	r.addKnowledge("An entry", "Plain words.", "misc")
	r.addMemory("a memory")
	r.rebuild()
	good, err := os.ReadFile(r.manifest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.ReadManifest(r.manifest + ".missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a missing manifest: %v", err)
	} else if fresh.Reason(err) != "the index was damaged" {
		t.Fatalf("a missing manifest: reason %q", fresh.Reason(err))
	}
	otherFormat := append([]byte{}, good...)
	otherFormat[8]++ // the format version follows the magic
	for name, data := range map[string][]byte{
		"empty":               nil,
		"short":               []byte("LOREMAN1 short"),
		"another magic":       append([]byte("LOREMAN1"), good[8:]...),
		"only the header":     good[:28],
		"truncated":           good[:len(good)-1],
		"a flipped last byte": append(append([]byte{}, good[:len(good)-1]...), good[len(good)-1]^0xff),
		"another format":      otherFormat,
	} {
		if err := os.WriteFile(r.manifest, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := fresh.ReadManifest(r.manifest)
		if !errors.Is(err, fresh.ErrBadManifest) {
			if m != nil {
				m.Close()
			}
			t.Errorf("%s: %v; want the manifest damaged", name, err)
		} else if fresh.Reason(err) != "the index was damaged" {
			t.Errorf("%s: reason %q", name, fresh.Reason(err))
		}
	}
}
