//go:build unix

package fsx

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"lore/internal/loretest"
)

func wantSkip(t *testing.T, err error, want error, reason string) {
	t.Helper()
	se, ok := Skipped(err)
	if !ok || !errors.Is(err, want) {
		t.Fatalf("error %v, want a SkipError for %v", err, want)
	}
	if se.Reason() != reason {
		t.Errorf("reason %q, want %q", se.Reason(), reason)
	}
}

func TestReadRegularReadsOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "memories.md")
	if err := os.WriteFile(file, []byte("# Memories\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := ReadRegular(file, 1<<20)
	if err != nil || string(data) != "# Memories\n" {
		t.Fatalf("a regular file: %q, %v", data, err)
	}

	for _, c := range []struct {
		name, target string
	}{
		{"zero.md", "/dev/zero"},   // read whole, it ran lore out of memory
		{"stdin.md", "/dev/stdin"}, // read, it waited for ever
		{"inside.md", file},        // a link to a regular file is still a link
		{"dangling.md", filepath.Join(dir, "nothing")},
	} {
		link := filepath.Join(dir, c.name)
		if err := os.Symlink(c.target, link); err != nil {
			t.Fatal(err)
		}
		stop := loretest.NoHang(t, c.name)
		_, err := ReadRegular(link, 1<<20)
		stop()
		wantSkip(t, err, ErrSymlink, "a symbolic link")
	}

	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	stop := loretest.NoHang(t, "a FIFO")
	_, err = ReadRegular(fifo, 1<<20)
	stop()
	wantSkip(t, err, ErrNotRegular, "not a regular file (a named pipe)")

	_, err = ReadRegular(dir, 1<<20)
	wantSkip(t, err, ErrNotRegular, "not a regular file (a directory)")

	_, err = ReadRegular(filepath.Join(dir, "missing.md"), 1<<20)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want ErrNotExist", err)
	}
}

func TestReadRegularCapsWhatItReads(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "big.md")
	if err := os.WriteFile(file, []byte(strings.Repeat("x", 2049)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadRegular(file, 2<<10)
	wantSkip(t, err, ErrTooLarge, "larger than 2 KiB")
	if data, err := ReadRegular(file, 2049); err != nil || len(data) != 2049 {
		t.Errorf("at the limit: %d bytes, %v", len(data), err)
	}

	// A file whose size says nothing of its content (as in /proc) is read
	// to its end, and the cap still holds.
	const proc = "/proc/self/status"
	if _, err := os.Stat(proc); err != nil {
		t.Skip("no /proc here")
	}
	data, err := ReadRegular(proc, 1<<20)
	if err != nil || !strings.Contains(string(data), "Name:") {
		t.Errorf("%s: %q, %v", proc, data, err)
	}
	_, err = ReadRegular(proc, 16)
	wantSkip(t, err, ErrTooLarge, "larger than 16 bytes")
}

func TestReadDirFollowsNoLink(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "knowledge")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, link + "/"} {
		entries, err := ReadDir(p)
		if len(entries) != 0 {
			t.Errorf("%s: listed %v through the link", p, entries)
		}
		wantSkip(t, err, ErrSymlink, "a symbolic link")
	}
	file := filepath.Join(outside, "secret.md")
	_, err := ReadDir(file)
	wantSkip(t, err, ErrNotDir, "not a directory (a file)")

	for _, name := range []string{"b.md", "a.md", "c"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	entries, err := ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if err != nil || strings.Join(names, " ") != "a.md b.md c knowledge" {
		t.Errorf("listed %v, %v", names, err)
	}
	if entries[3].Type()&fs.ModeSymlink == 0 {
		t.Errorf("knowledge listed as %v, not as a link", entries[3].Type())
	}
}

func TestCheckDirsFindsTheLinkOnTheWay(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".agent"), 0o755)
	if err := os.Symlink(outside, filepath.Join(root, ".agent", "knowledge")); err != nil {
		t.Fatal(err)
	}
	err := CheckDirs(root, ".agent/knowledge/x.md")
	wantSkip(t, err, ErrSymlink, "a symbolic link")
	if se, _ := Skipped(err); se.Path != filepath.Join(root, ".agent", "knowledge") {
		t.Errorf("named %s, want the link", se.Path)
	}
	// The last element is the caller's to open without following.
	if err := CheckDirs(root, ".agent/knowledge"); err != nil {
		t.Errorf("the last element was looked at: %v", err)
	}
	// Missing directories: nothing below them exists.
	if err := CheckDirs(root, ".agent/learnings/l-abcdef.md"); err != nil {
		t.Errorf("a missing directory: %v", err)
	}
	os.WriteFile(filepath.Join(root, "file"), nil, 0o644)
	wantSkip(t, CheckDirs(root, "file/x.md"), ErrNotDir, "not a directory (a file)")
}

func TestStamperStampsTheLinkItself(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.md")
	os.WriteFile(target, []byte(strings.Repeat("x", 100)), 0o644)
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("target.md", link); err != nil {
		t.Fatal(err)
	}
	s := NewStamper()
	defer s.Close()
	st, err := s.Stamp(link)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size != int64(len("target.md")) {
		t.Errorf("the link's stamp has size %d: the target was stamped", st.Size)
	}
	// A directory that is a link is not opened.
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "f.md"), nil, 0o644)
	os.Symlink(sub, filepath.Join(dir, "linked"))
	s2 := NewStamper()
	defer s2.Close()
	_, err = s2.Stamp(filepath.Join(dir, "linked", "f.md"))
	wantSkip(t, err, ErrSymlink, "a symbolic link")
}
