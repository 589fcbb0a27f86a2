package loretest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// The failures a write must survive are made with the real file system:
// a directory mounted read-only, a file system that is full. Both need
// mount(8) and the right to use it (root, or a user namespace); a test
// that cannot mount is skipped, saying why.

// MountTmpfs mounts a tmpfs of size (as mount takes it: "16k") on dir,
// which must exist, until the test ends.
func MountTmpfs(t testing.TB, dir, size string) {
	t.Helper()
	mount(t, dir, "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir)
}

// ReadOnly makes dir read-only until the test ends (or Unmount): a
// read-only bind mount of itself, which refuses writes even to root, as
// chmod does not.
func ReadOnly(t testing.TB, dir string) {
	t.Helper()
	mount(t, dir, "--bind", dir, dir)
	if out, err := exec.Command("mount", "-o", "remount,bind,ro", dir).CombinedOutput(); err != nil {
		Unmount(t, dir)
		t.Skipf("cannot make %s read-only: %v: %s", dir, err, strings.TrimSpace(string(out)))
	}
}

// Unmount undoes MountTmpfs or ReadOnly before the test ends.
func Unmount(t testing.TB, dir string) {
	t.Helper()
	if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
		t.Fatalf("umount %s: %v: %s", dir, err, out)
	}
}

func mount(t testing.TB, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("mount"); err != nil {
		t.Skip("mount(8) is not installed")
	}
	if os.Geteuid() != 0 {
		t.Skip("mounting a file system needs root")
	}
	if out, err := exec.Command("mount", args...).CombinedOutput(); err != nil {
		t.Skipf("cannot mount on %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		// Unmounted already when Unmount was called; the error is then
		// "not mounted".
		exec.Command("umount", dir).Run()
	})
}
