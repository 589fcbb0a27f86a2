package gitx

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// populate adds n files in nested directories and commits them.
func populate(r *testRepo, n int) {
	for i := 0; i < n; i++ {
		r.Write(fmt.Sprintf("dir%d/sub%d/file-%03d.txt", i%3, i%5, i), fmt.Sprintf("content %d\n", i))
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "populate")
}

func TestIndexRoundTripIsByteExact(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := newTestRepoWithCommit(t)
			populate(r, 60)
			r.Git("update-index", "--index-version", version)
			r.Write("intent.txt", "x\n")
			r.Git("add", "-N", "intent.txt") // an extended flag
			r.Git("update-index", "--assume-unchanged", "README.md")
			r.Git("status", "--porcelain") // refreshes and writes the cache tree
			path := filepath.Join(r.Dir, ".git", "index")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			idx, link, err := decodeIndex(data, path)
			if err != nil || link != nil {
				t.Fatalf("decode: %v", err)
			}
			if len(idx.entries) != 63 {
				t.Fatalf("entries = %d", len(idx.entries))
			}
			if !bytes.Equal(idx.encode(), data) {
				t.Fatal("re-encoded index differs from git's")
			}
		})
	}
}

func TestIndexVersion4StaysVersion4(t *testing.T) {
	r := newTestRepoWithCommit(t)
	populate(r, 30)
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
	r := newTestRepoWithCommit(t)
	populate(r, 40)
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

func TestInvalidateTreeExtension(t *testing.T) {
	hash := bytes.Repeat([]byte{0xab}, 20)
	node := func(name string, count, subtrees int) []byte {
		b := []byte(fmt.Sprintf("%s\x00%d %d\n", name, count, subtrees))
		if count >= 0 {
			b = append(b, hash...)
		}
		return b
	}
	var in []byte
	in = append(in, node("", 5, 2)...)
	in = append(in, node(".agent", 2, 1)...)
	in = append(in, node("knowledge", 1, 0)...)
	in = append(in, node("src", 3, 0)...)
	out, err := invalidateTreeExtension(in, ".agent/memories.md")
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	want = append(want, node("", -1, 2)...)
	want = append(want, node(".agent", -1, 1)...)
	want = append(want, node("knowledge", 1, 0)...)
	want = append(want, node("src", 3, 0)...)
	if !bytes.Equal(out, want) {
		t.Fatalf("got %q\nwant %q", out, want)
	}
}

func TestRacyEntriesAreSmudgedWhenCopied(t *testing.T) {
	entries := []indexEntry{
		{path: "a-old", mtimeSec: 999, size: 10, mode: 0o100644},
		{path: "b-same-second-earlier", mtimeSec: 1000, mtimeNsec: 499, size: 10, mode: 0o100644},
		{path: "c-racy", mtimeSec: 1000, mtimeNsec: 500, size: 10, mode: 0o100644},
		{path: "d-newer", mtimeSec: 1001, size: 10, mode: 0o100644},
		{path: "e-submodule", mtimeSec: 1001, size: 10, mode: 0o160000},
	}
	data := (&gitIndex{version: 2, entries: entries}).encode()
	idx, err := parseIndexFile(data, func() {}, time.Unix(1000, 500), "test")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := idx.writeTo(&out); err != nil {
		t.Fatal(err)
	}
	got, _, err := decodeIndex(out.Bytes(), "out")
	if err != nil {
		t.Fatal(err)
	}
	var sizes []uint32
	for _, e := range got.entries {
		sizes = append(sizes, e.size)
	}
	if fmt.Sprint(sizes) != "[10 10 0 0 10]" {
		t.Fatalf("sizes = %v", sizes)
	}
}

// TestSplicedIndexEqualsReencoded checks the byte-splicing writer against
// the simple way: decode every entry, apply the same changes, encode
// everything. Indexes written by C git in each version are the inputs.
func TestSplicedIndexEqualsReencoded(t *testing.T) {
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := newTestRepoWithCommit(t)
			populate(r, 50)
			r.Git("update-index", "--index-version", version)
			r.Write("intent.txt", "x\n")
			r.Git("add", "-N", "intent.txt")
			r.Git("status", "--porcelain")
			path := filepath.Join(r.Dir, ".git", "index")
			data, _ := os.ReadFile(path)
			h := func(s string) (out Hash) { copy(out[:], s); return }
			ops := []struct {
				path   string
				remove bool
			}{
				{path: ".agent/memories.md"},     // new, first in order
				{path: "dir1/sub1/file-001.txt"}, // replaced
				{path: "dir2/sub0/file-005.txt", remove: true},
				{path: "dir2/sub0/file-005b.txt"}, // new, where one was removed
				{path: "zzz/last.md"},             // new, last
				{path: "dir0/sub3/file-003.txt", remove: true},
			}
			for n := 1; n <= len(ops); n++ {
				idx, err := parseIndexFile(data, func() {}, time.Time{}, "idx")
				if err != nil {
					t.Fatal(err)
				}
				want, _, _ := decodeIndex(data, "idx")
				for _, op := range ops[:n] {
					if op.remove {
						idx.remove(op.path)
						for i := range want.entries {
							if want.entries[i].path == op.path {
								want.entries = append(want.entries[:i], want.entries[i+1:]...)
								break
							}
						}
					} else {
						e := indexEntry{mode: 0o100644, hash: h(op.path), path: op.path, size: 7, mtimeSec: 5}
						idx.set(e)
						want.entries = insertIndexEntry(want.entries, e)
					}
				}
				var got bytes.Buffer
				if err := idx.writeTo(&got); err != nil {
					t.Fatal(err)
				}
				// The reference keeps the extensions the spliced one
				// keeps, with the cache tree invalidated the same way.
				want.extensions = idx.extensions
				if !bytes.Equal(got.Bytes(), want.encode()) {
					t.Fatalf("after %d changes the spliced index differs from the re-encoded one", n)
				}
				if _, _, err := decodeIndex(got.Bytes(), "got"); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestUnchangedIndexIsCopiedExactly(t *testing.T) {
	r := newTestRepoWithCommit(t)
	populate(r, 30)
	r.Git("update-index", "--index-version", "4")
	r.Git("status", "--porcelain")
	data, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	idx, err := parseIndexFile(data, func() {}, time.Time{}, "idx")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := idx.writeTo(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Fatal("an index with no changes was not written back byte for byte")
	}
}

func TestVarint(t *testing.T) {
	for _, v := range []uint64{0, 1, 127, 128, 255, 16383, 16384, 1 << 20, 1<<32 + 7} {
		enc := appendVarint(nil, v)
		got, n := readVarint(enc)
		if got != v || n != len(enc) {
			t.Fatalf("%d: got %d (%d bytes of %d)", v, got, n, len(enc))
		}
	}
}

func TestCorruptIndexIsAnError(t *testing.T) {
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
}

func FuzzDecodeIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Fix up the checksum so that the fuzzer explores the body.
		body := append([]byte{}, data...)
		sum := sha1Sum(body)
		idx, _, err := decodeIndex(append(body, sum[:]...), "fuzz")
		if err != nil {
			return
		}
		again, _, err := decodeIndex(idx.encode(), "fuzz")
		if err != nil {
			t.Fatalf("re-encoded index does not decode: %v", err)
		}
		if len(again.entries) != len(idx.entries) {
			t.Fatalf("entries %d != %d", len(again.entries), len(idx.entries))
		}
	})
}

func sha1Sum(b []byte) [20]byte { return sha1.Sum(b) }

// FuzzSplicedIndex compares the splicing writer with decode-and-encode on
// arbitrary index files that both parsers accept.
func FuzzSplicedIndex(f *testing.F) {
	f.Add((&gitIndex{version: 2, entries: []indexEntry{{path: "a", mode: 0o100644}, {path: "b/c", mode: 0o100644}}}).encode(), "b/a", false)
	f.Add((&gitIndex{version: 4, entries: []indexEntry{{path: "a/b", mode: 0o100644}, {path: "a/c", mode: 0o100644}}}).encode(), "a/bb", true)
	f.Fuzz(func(t *testing.T, data []byte, path string, remove bool) {
		if len(data) < sha1.Size || path == "" || strings.ContainsRune(path, 0) {
			return
		}
		body := append([]byte{}, data[:len(data)-sha1.Size]...)
		sum := sha1.Sum(body)
		data = append(body, sum[:]...)
		want, link, err := decodeIndex(data, "fuzz")
		if err != nil || link != nil {
			return
		}
		idx, err := parseIndexFile(data, func() {}, time.Time{}, "fuzz")
		if err != nil {
			t.Fatalf("the entry decoder accepts what the splicer refuses: %v", err)
		}
		if err := idx.checkSum(); err != nil {
			t.Fatal(err)
		}
		if idx.conflicted(path) {
			return
		}
		keptExtensions := func() []indexExtension {
			var kept []indexExtension
			for _, e := range idx.extensions {
				if e.sig != "link" {
					kept = append(kept, e)
				}
			}
			return kept
		}
		// Only canonical indexes (as git writes them) are compared: the
		// splicer copies odd but harmless bytes, such as a name length
		// that version 4 ignores, which re-encoding would normalise.
		var unchanged bytes.Buffer
		if err := idx.writeTo(&unchanged); err != nil {
			t.Fatal(err)
		}
		want.extensions = keptExtensions()
		if !bytes.Equal(unchanged.Bytes(), want.encode()) {
			return
		}
		if remove {
			idx.remove(path)
			for i := range want.entries {
				if want.entries[i].path == path && want.entries[i].stage() == 0 {
					want.entries = append(want.entries[:i], want.entries[i+1:]...)
					break
				}
			}
		} else {
			e := indexEntry{mode: 0o100644, path: path}
			idx.set(e)
			want.entries = insertIndexEntry(want.entries, e)
		}
		var got bytes.Buffer
		if err := idx.writeTo(&got); err != nil {
			t.Fatal(err)
		}
		want.extensions = keptExtensions()
		if want.version == 2 && !remove {
			for _, e := range want.entries {
				if e.extFlags != 0 {
					want.version = 3
				}
			}
		}
		if !bytes.Equal(got.Bytes(), want.encode()) {
			t.Fatalf("spliced and re-encoded indexes differ")
		}
	})
}
