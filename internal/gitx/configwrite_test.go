package gitx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/gitx/gitconfig"
)

// A section written by lore reads back with C git, a second write changes
// nothing, other lines are kept byte for byte, and removing it leaves the
// file as it was.
func TestSetLocalSection(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.Git("config", "merge.other.driver", "other-tool %A")
	cfgPath := filepath.Join(r.Dir, ".git", "config")
	before, _ := os.ReadFile(cfgPath)
	repo := r.open()
	settings := []gitconfig.Setting{{Key: "name", Value: "lore memory merge"}, {Key: "driver", Value: "lore merge-driver %O %A %B %P"}}
	changed, err := repo.SetLocalSection("merge", "lore", settings)
	if err != nil || !changed {
		t.Fatalf("first write: changed %v, %v", changed, err)
	}
	if got := r.Git("config", "--get", "merge.lore.driver"); got != "lore merge-driver %O %A %B %P" {
		t.Fatalf("git reads merge.lore.driver as %q", got)
	}
	if got := r.Git("config", "--get", "merge.lore.name"); got != "lore memory merge" {
		t.Fatalf("git reads merge.lore.name as %q", got)
	}
	after, _ := os.ReadFile(cfgPath)
	if !strings.HasPrefix(string(after), string(before)) {
		t.Fatalf("the lines before the new section changed:\n%s", after)
	}
	if changed, err := r.open().SetLocalSection("merge", "lore", settings); err != nil || changed {
		t.Fatalf("second write: changed %v, %v; want no change", changed, err)
	}

	// A value changed by hand is set back in place; a comment stays.
	r.Git("config", "merge.lore.driver", "something else")
	data, _ := os.ReadFile(cfgPath)
	os.WriteFile(cfgPath, []byte(strings.Replace(string(data), "[merge \"lore\"]", "[merge \"lore\"]\n\t# set by lore", 1)), 0o644)
	if changed, err := r.open().SetLocalSection("merge", "lore", settings); err != nil || !changed {
		t.Fatalf("rewrite: changed %v, %v", changed, err)
	}
	if got := r.Git("config", "--get-all", "merge.lore.driver"); got != "lore merge-driver %O %A %B %P" {
		t.Fatalf("after the rewrite git reads %q", got)
	}
	if data, _ := os.ReadFile(cfgPath); !strings.Contains(string(data), "# set by lore") {
		t.Fatal("the comment in the section was lost")
	}

	if changed, err := r.open().RemoveLocalSection("merge", "lore"); err != nil || !changed {
		t.Fatalf("remove: changed %v, %v", changed, err)
	}
	if out, err := r.GitErr("config", "--get", "merge.lore.driver"); err == nil {
		t.Fatalf("merge.lore.driver still set: %q", out)
	}
	if got := r.Git("config", "--get", "merge.other.driver"); got != "other-tool %A" {
		t.Fatalf("the other driver became %q", got)
	}
	if changed, err := r.open().RemoveLocalSection("merge", "lore"); err != nil || changed {
		t.Fatalf("second remove: changed %v, %v", changed, err)
	}
	r.Git("fsck", "--no-progress")
}

// A held config.lock is never taken over.
func TestSetLocalSectionRespectsTheLock(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	lock := filepath.Join(r.Dir, ".git", "config.lock")
	os.WriteFile(lock, nil, 0o644)
	if _, err := r.open().SetLocalSection("merge", "lore", []gitconfig.Setting{{Key: "name", Value: "x"}}); err == nil || !strings.Contains(err.Error(), "config.lock exists") {
		t.Fatalf("err = %v, want the lock named", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatal("the other process's lock was removed")
	}
}

func TestHooksDir(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	if got, want := r.open().HooksDir(), filepath.Join(r.Dir, ".git", "hooks"); got != want {
		t.Fatalf("HooksDir = %s, want %s", got, want)
	}
	r.Git("config", "core.hooksPath", ".githooks")
	if got, want := r.open().HooksDir(), filepath.Join(r.Dir, ".githooks"); got != want {
		t.Fatalf("with core.hooksPath: %s, want %s", got, want)
	}
}
