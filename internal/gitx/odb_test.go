package gitx

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// historyWithDeltas makes 30 versions of a few files, so that packing
// stores most of them as deltas. One git fast-import writes the 30 commits
// on top of the initial one (HEAD's tree is not checked out).
func historyWithDeltas(t *testing.T) *testRepo {
	r := newTestRepoWithCommit(t)
	var stream bytes.Buffer
	for i := 0; i < 30; i++ {
		var b strings.Builder
		for j := 0; j < 200; j++ {
			fmt.Fprintf(&b, "line %d of a long file, version %d\n", j, i*(j%3))
		}
		message := fmt.Sprintf("version %d\n", i)
		fmt.Fprintf(&stream, "commit refs/heads/main\ncommitter Test Person <test@example.com> %d +0000\ndata %d\n%s", 1737372000+i, len(message), message)
		if i == 0 {
			stream.WriteString("from refs/heads/main^0\n")
		}
		writeInline(&stream, "big.txt", b.String())
		writeInline(&stream, fmt.Sprintf("dir/f%d.txt", i%4), fmt.Sprintf("content %d\n", i))
	}
	cmd := r.Command("", "fast-import", "--quiet")
	cmd.Stdin = &stream
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return r
}

// writeInline writes a git fast-import file change that sets path to
// content.
func writeInline(stream *bytes.Buffer, path, content string) {
	fmt.Fprintf(stream, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
}

// gitObject is one object as C git prints it.
type gitObject struct {
	hex, typ string
	data     []byte
}

// catAllObjects reads every object of the repository with one
// git cat-file --batch-all-objects --batch.
func catAllObjects(t *testing.T, r *testRepo) []gitObject {
	t.Helper()
	out, err := r.Command("", "cat-file", "--batch-all-objects", "--batch").Output()
	if err != nil {
		t.Fatalf("git cat-file: %v", err)
	}
	var objects []gitObject
	for len(out) > 0 {
		header, rest, _ := bytes.Cut(out, []byte("\n"))
		fields := strings.Fields(string(header))
		if len(fields) != 3 {
			t.Fatalf("git cat-file header %q", header)
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || len(rest) <= size || rest[size] != '\n' {
			t.Fatalf("git cat-file: %q not followed by %s bytes", header, fields[2])
		}
		objects = append(objects, gitObject{hex: fields[0], typ: fields[1], data: rest[:size]})
		out = rest[size+1:]
	}
	return objects
}

// assertReadsEveryObject compares every object of the repository, read by
// lore's object database, with what C git prints for it.
func assertReadsEveryObject(t *testing.T, r *testRepo, db *objectDB) {
	t.Helper()
	n := 0
	for _, o := range catAllObjects(t, r) {
		typ, data, err := db.read(plumbing.NewHash(o.hex))
		if err != nil {
			t.Fatalf("%s: %v", o.hex, err)
		}
		if typ.String() != o.typ {
			t.Fatalf("%s: type %s, git says %s", o.hex, typ, o.typ)
		}
		if !bytes.Equal(data, o.data) {
			t.Fatalf("%s (%s): content differs from git cat-file", o.hex, o.typ)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d objects: the test did not exercise much", n)
	}
}

// packEntryKinds counts the entries of the repository's one pack by the
// type in each entry's header (whole objects, OFS_DELTA, REF_DELTA), at
// the offsets git verify-pack -v gives; it also returns that output.
func packEntryKinds(t *testing.T, r *testRepo) (map[plumbing.ObjectType]int, string) {
	t.Helper()
	idx := mustGlob(t, filepath.Join(r.Dir, ".git/objects/pack/*.idx"))
	pack, err := os.ReadFile(strings.TrimSuffix(idx, ".idx") + ".pack")
	if err != nil {
		t.Fatal(err)
	}
	verify := r.Git("verify-pack", "-v", idx)
	kinds := map[plumbing.ObjectType]int{}
	for _, line := range strings.Split(verify, "\n") {
		// <name> <type> <size> <size in pack> <offset> [<depth> <base>]
		fields := strings.Fields(line)
		if len(fields) < 5 || len(fields[0]) != 40 {
			continue
		}
		offset, err := strconv.Atoi(fields[4])
		if err != nil || offset >= len(pack) {
			t.Fatalf("verify-pack line %q", line)
		}
		kinds[plumbing.ObjectType(pack[offset]>>4&7)]++
	}
	return kinds, verify
}

func TestReadPackedObjectsWithOffsetDeltas(t *testing.T) {
	t.Parallel()
	r := historyWithDeltas(t)
	r.Git("repack", "-adfq", "--depth=50", "--window=50")
	r.Git("prune-packed")
	if got := r.Git("count-objects", "-v"); !strings.Contains(got, "count: 0") {
		t.Fatalf("objects left loose:\n%s", got)
	}
	kinds, verify := packEntryKinds(t, r)
	if !strings.Contains(verify, "chain length") {
		t.Fatal("the pack has no deltas")
	}
	if kinds[plumbing.OFSDeltaObject] == 0 || kinds[plumbing.REFDeltaObject] != 0 {
		t.Fatalf("want offset deltas only, the pack has %v", kinds)
	}
	assertReadsEveryObject(t, r, newObjectDB(filepath.Join(r.Dir, ".git", "objects")))
}

func TestReadPackedObjectsWithRefDeltas(t *testing.T) {
	t.Parallel()
	r := historyWithDeltas(t)
	r.Git("-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq")
	r.Git("prune-packed")
	if kinds, _ := packEntryKinds(t, r); kinds[plumbing.REFDeltaObject] == 0 || kinds[plumbing.OFSDeltaObject] != 0 {
		t.Fatalf("want ref deltas only, the pack has %v", kinds)
	}
	assertReadsEveryObject(t, r, newObjectDB(filepath.Join(r.Dir, ".git", "objects")))
}

func TestReadObjectsThroughAlternates(t *testing.T) {
	t.Parallel()
	r := historyWithDeltas(t)
	r.Git("repack", "-adq")
	clone := filepath.Join(filepath.Dir(r.Dir), "shared-clone")
	r.Git("clone", "-q", "--shared", r.Dir, clone)
	db := newObjectDB(filepath.Join(clone, ".git", "objects"))
	if len(db.dirs) != 2 {
		t.Fatalf("alternates: %v", db.dirs)
	}
	assertReadsEveryObject(t, r, db)
}

func TestMissingObject(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	db := newObjectDB(filepath.Join(r.Dir, ".git", "objects"))
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

// A big tree is written in zlib's stored blocks and every other object
// at git's loose level; C git reads both, and lore reads back its own.
func TestABigTreeIsStoredUncompressed(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	files := map[string]string{}
	for i := 0; i < 2000; i++ { // 2,000 entries of ~40 bytes: past storedTreeSize
		files[fmt.Sprintf("learnings/l-%06d.md", i)] = fmt.Sprintf("learning %d\n", i)
	}
	r.Commit("many", files)
	body := strings.Repeat("a line that deflates well\n", 4000)
	if _, err := r.update(ModeCommit, "learnings/l-big.md", func([]byte, bool) ([]byte, bool, error) {
		return []byte(body), true, nil
	}, "big"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	looseSize := func(name string) int64 {
		h := r.Git("rev-parse", name)
		info, err := os.Stat(filepath.Join(r.Dir, ".git/objects", h[:2], h[2:]))
		if err != nil {
			t.Fatalf("%s is not a loose object: %v", name, err)
		}
		return info.Size()
	}
	treeSize, _ := strconv.Atoi(r.Git("cat-file", "-s", "HEAD:learnings"))
	if treeSize < storedTreeSize {
		t.Fatalf("the tree is %d bytes, want at least %d", treeSize, storedTreeSize)
	}
	if got := looseSize("HEAD:learnings"); got < int64(treeSize) {
		t.Errorf("the big tree's loose object is %d bytes for %d bytes of tree: compressed, want stored", got, treeSize)
	}
	if got := looseSize("HEAD:learnings/l-big.md"); got > int64(len(body))/10 {
		t.Errorf("the blob's loose object is %d bytes for %d bytes of text: want it deflated", got, len(body))
	}
	if got := looseSize("HEAD^{tree}"); got > 200 {
		t.Errorf("the small root tree's loose object is %d bytes: want it deflated", got)
	}
	// lore reads its own stored tree back.
	repo := r.open()
	data, err := repo.readObject(plumbing.TreeObject, plumbing.NewHash(r.Git("rev-parse", "HEAD:learnings")))
	if err != nil || len(data) != treeSize {
		t.Fatalf("reading the stored tree: %v, %d bytes, want %d", err, len(data), treeSize)
	}
}

// A blob of a megabyte or more is deflated in parts on every core and
// joined into one zlib stream: C git reads it back whole and fsck finds
// it sound.
func TestABigBlobIsDeflatedInParts(t *testing.T) {
	t.Parallel()
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core: the blob is deflated in one part")
	}
	r := newTestRepoWithCommit(t)
	var b strings.Builder
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, "### mem-%d\n> memory %d about the step %x that failed %d times\n\n", i, i, i*2654435761, i%7)
	}
	body := b.String()
	if _, err := r.update(ModeCommit, "memories.md", func([]byte, bool) ([]byte, bool, error) {
		return []byte(body), true, nil
	}, "big memories"); err != nil {
		t.Fatal(err)
	}
	r.AssertClean()
	size, _ := strconv.Atoi(r.Git("cat-file", "-s", "HEAD:memories.md"))
	if got := r.Git("cat-file", "-p", "HEAD:memories.md"); size != len(body) || got != strings.TrimRight(body, "\n") {
		t.Fatalf("C git reads %d bytes back (%d shown), want %d", size, len(got), len(body))
	}
	h := r.Git("rev-parse", "HEAD:memories.md")
	raw, err := os.ReadFile(filepath.Join(r.Dir, ".git/objects", h[:2], h[2:]))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte{0, 0, 0xff, 0xff}) {
		t.Error("no sync flush between parts: the blob was deflated in one part")
	}
	if len(raw) > len(body)/2 {
		t.Errorf("the blob's loose object is %d bytes for %d of text: want it deflated", len(raw), len(body))
	}
}
