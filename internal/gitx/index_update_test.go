package gitx

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIndexVersion4StaysVersion4(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Populate(30)
	r.Git("update-index", "--index-version", "4")
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	data, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	if v := binary.BigEndian.Uint32(data[4:8]); v != 4 {
		t.Fatalf("version = %d", v)
	}
	if got := r.Git("ls-files", memPath); got != memPath {
		t.Fatalf("ls-files = %q", got)
	}
}

func TestSplitIndex(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Populate(40)
	r.Git("update-index", "--split-index")
	// Give the split file replacements, deletions and additions.
	r.Write("dir0/sub0/file-000.txt", "changed\n")
	r.Git("add", "dir0/sub0/file-000.txt")
	r.Git("rm", "-q", "--cached", "dir1/sub1/file-001.txt")
	r.Write("added.txt", "added\n")
	r.Git("add", "added.txt")
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "index")); err != nil {
		t.Fatal(err)
	}
	before := r.Git("ls-files", "-s")
	shared, _ := filepath.Glob(filepath.Join(r.Dir, ".git", "sharedindex.*"))
	if len(shared) == 0 {
		t.Fatal("git did not split the index")
	}

	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertHealthy()
	after := r.Git("ls-files", "-s")
	want := strings.Split(before, "\n")
	got := strings.Split(after, "\n")
	var withoutLore []string
	for _, l := range got {
		if !strings.HasSuffix(l, "\t"+memPath) {
			withoutLore = append(withoutLore, l)
		}
	}
	if strings.Join(withoutLore, "\n") != strings.Join(want, "\n") {
		t.Fatalf("index entries changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	if status := r.Git("status", "--porcelain"); status != "M  added.txt\nD  dir1/sub1/file-001.txt\nM  dir0/sub0/file-000.txt\n?? dir1/sub1/file-001.txt" &&
		!strings.Contains(status, "D  dir1/sub1/file-001.txt") {
		t.Fatalf("status = %q", status)
	}
	if got := r.Git("diff", "--name-only", "HEAD^", "HEAD"); got != memPath {
		t.Fatalf("commit = %q", got)
	}
}

func TestDeepPathInvalidatesCacheTreeNodes(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Write(".agent/journal/run-1/0001.md", "one\n")
	r.Write(".agent/journal/run-2/0001.md", "other run\n")
	r.Write(".agent/memories.md", "m\n")
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "journal")
	r.Git("status") // makes sure the cache tree is complete
	if _, err := r.update(ModeCommit, ".agent/journal/run-1/0002.md", appendLine("two"), "lore: journal\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if _, err := r.update(ModeCommit, ".agent/journal/run-1/0001.md", func([]byte, bool) ([]byte, bool, error) { return nil, false, nil }, "lore: rm\n"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	if got := r.Git("ls-tree", "-r", "--name-only", "HEAD", ".agent/journal"); got != ".agent/journal/run-1/0002.md\n.agent/journal/run-2/0001.md" {
		t.Fatalf("tree = %q", got)
	}
}

func TestCorruptIndexIsAnError(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	path := filepath.Join(r.Dir, ".git", "index")
	data, _ := os.ReadFile(path)
	data[20] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := r.update(ModeCommit, memPath, appendLine("m"), "x\n")
	if err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir, memPath)); !os.IsNotExist(err) {
		t.Fatal("file written despite the error")
	}
	if _, err := os.Stat(filepath.Join(r.Dir, ".git", "index.lock")); !os.IsNotExist(err) {
		t.Fatal("index.lock left behind")
	}
}
