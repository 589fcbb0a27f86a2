package gitx

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// historyWithDeltas makes 30 versions of a few files, so that packing
// stores most of them as deltas.
func historyWithDeltas(t *testing.T) *testRepo {
	r := newTestRepoWithCommit(t)
	for i := 0; i < 30; i++ {
		var b strings.Builder
		for j := 0; j < 200; j++ {
			fmt.Fprintf(&b, "line %d of a long file, version %d\n", j, i*(j%3))
		}
		r.write("big.txt", b.String())
		r.write(fmt.Sprintf("dir/f%d.txt", i%4), fmt.Sprintf("content %d\n", i))
		r.git("add", "-A")
		r.git("commit", "-q", "-m", fmt.Sprintf("version %d", i))
	}
	return r
}

// assertReadsEveryObject compares every object of the repository, read by
// lore's object database, with what C git prints for it.
func assertReadsEveryObject(t *testing.T, r *testRepo, db *objectDB) {
	t.Helper()
	list := r.git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")
	n := 0
	for _, line := range strings.Split(list, "\n") {
		hex, typName, _ := strings.Cut(line, " ")
		typ, data, err := db.read(plumbing.NewHash(hex))
		if err != nil {
			t.Fatalf("%s: %v", hex, err)
		}
		if typ.String() != typName {
			t.Fatalf("%s: type %s, git says %s", hex, typ, typName)
		}
		out, _ := r.command("cat-file", typName, hex).Output()
		if !bytes.Equal(data, out) {
			t.Fatalf("%s (%s): content differs from git cat-file", hex, typName)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d objects: the test did not exercise much", n)
	}
}

func TestReadPackedObjectsWithOffsetDeltas(t *testing.T) {
	r := historyWithDeltas(t)
	r.git("repack", "-adfq", "--depth=50", "--window=50")
	r.git("prune-packed")
	if got := r.git("count-objects", "-v"); !strings.Contains(got, "count: 0") {
		t.Fatalf("objects left loose:\n%s", got)
	}
	if deltas := r.git("verify-pack", "-v", mustGlob(t, filepath.Join(r.dir, ".git/objects/pack/*.idx"))); !strings.Contains(deltas, "chain length") {
		t.Fatal("the pack has no deltas")
	}
	assertReadsEveryObject(t, r, newObjectDB(filepath.Join(r.dir, ".git", "objects")))
}

func TestReadPackedObjectsWithRefDeltas(t *testing.T) {
	r := historyWithDeltas(t)
	r.git("-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq")
	r.git("prune-packed")
	assertReadsEveryObject(t, r, newObjectDB(filepath.Join(r.dir, ".git", "objects")))
}

func TestReadObjectsThroughAlternates(t *testing.T) {
	r := historyWithDeltas(t)
	r.git("repack", "-adq")
	clone := filepath.Join(filepath.Dir(r.dir), "shared-clone")
	r.git("clone", "-q", "--shared", r.dir, clone)
	db := newObjectDB(filepath.Join(clone, ".git", "objects"))
	if len(db.dirs) != 2 {
		t.Fatalf("alternates: %v", db.dirs)
	}
	assertReadsEveryObject(t, r, db)
}

func TestMissingObject(t *testing.T) {
	r := newTestRepoWithCommit(t)
	db := newObjectDB(filepath.Join(r.dir, ".git", "objects"))
	if _, _, err := db.read(plumbing.NewHash(strings.Repeat("ab", 20))); err == nil || !strings.Contains(err.Error(), "object not found") {
		t.Fatalf("err = %v", err)
	}
}

func mustGlob(t *testing.T, pattern string) string {
	matches, _ := filepath.Glob(pattern)
	if len(matches) != 1 {
		t.Fatalf("%s: %v", pattern, matches)
	}
	return matches[0]
}
