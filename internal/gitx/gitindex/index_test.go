package gitindex

import (
	"bytes"
	"crypto/sha1"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"

	"github.com/go-git/go-git/v5/plumbing"
)

func TestIndexRoundTripIsByteExact(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := newRepo(t)
			r.Populate(60)
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
			if len(idx.Entries) != 63 {
				t.Fatalf("entries = %d", len(idx.Entries))
			}
			if !bytes.Equal(idx.encode(), data) {
				t.Fatal("re-encoded index differs from git's")
			}
		})
	}
}

func TestInvalidateTreeExtension(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
	entries := []Entry{
		{Path: "a-old", MtimeSec: 999, Size: 10, Mode: 0o100644},
		{Path: "b-same-second-earlier", MtimeSec: 1000, MtimeNsec: 499, Size: 10, Mode: 0o100644},
		{Path: "c-racy", MtimeSec: 1000, MtimeNsec: 500, Size: 10, Mode: 0o100644},
		{Path: "d-newer", MtimeSec: 1001, Size: 10, Mode: 0o100644},
		{Path: "e-submodule", MtimeSec: 1001, Size: 10, Mode: 0o160000},
	}
	data := (&Index{version: 2, Entries: entries}).encode()
	idx, err := parseIndexFile(data, func() {}, time.Unix(1000, 500), "test")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := idx.Write(&out); err != nil {
		t.Fatal(err)
	}
	got, _, err := decodeIndex(out.Bytes(), "out")
	if err != nil {
		t.Fatal(err)
	}
	var sizes []uint32
	for _, e := range got.Entries {
		sizes = append(sizes, e.Size)
	}
	if fmt.Sprint(sizes) != "[10 10 0 0 10]" {
		t.Fatalf("sizes = %v", sizes)
	}
}

// TestSplicedIndexEqualsReencoded checks the byte-splicing writer against
// the simple way: decode every entry, apply the same changes, encode
// everything. Indexes written by C git in each version are the inputs.
func TestSplicedIndexEqualsReencoded(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := newRepo(t)
			r.Populate(50)
			r.Git("update-index", "--index-version", version)
			r.Write("intent.txt", "x\n")
			r.Git("add", "-N", "intent.txt")
			r.Git("status", "--porcelain")
			path := filepath.Join(r.Dir, ".git", "index")
			data, _ := os.ReadFile(path)
			h := func(s string) (out plumbing.Hash) { copy(out[:], s); return }
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
						idx.Remove(op.path)
						for i := range want.Entries {
							if want.Entries[i].Path == op.path {
								want.Entries = append(want.Entries[:i], want.Entries[i+1:]...)
								break
							}
						}
					} else {
						e := Entry{Mode: 0o100644, Hash: h(op.path), Path: op.path, Size: 7, MtimeSec: 5}
						idx.Set(e)
						want.Entries = insertIndexEntry(want.Entries, e)
					}
				}
				var got bytes.Buffer
				if err := idx.Write(&got); err != nil {
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
	t.Parallel()
	r := newRepo(t)
	r.Populate(30)
	r.Git("update-index", "--index-version", "4")
	r.Git("status", "--porcelain")
	data, _ := os.ReadFile(filepath.Join(r.Dir, ".git", "index"))
	idx, err := parseIndexFile(data, func() {}, time.Time{}, "idx")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := idx.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Fatal("an index with no changes was not written back byte for byte")
	}
}

func TestVarint(t *testing.T) {
	t.Parallel()
	for _, v := range []uint64{0, 1, 127, 128, 255, 16383, 16384, 1 << 20, 1<<32 + 7} {
		enc := appendVarint(nil, v)
		got, n := readVarint(enc)
		if got != v || n != len(enc) {
			t.Fatalf("%d: got %d (%d bytes of %d)", v, got, n, len(enc))
		}
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
		if len(again.Entries) != len(idx.Entries) {
			t.Fatalf("entries %d != %d", len(again.Entries), len(idx.Entries))
		}
	})
}

func sha1Sum(b []byte) [20]byte { return sha1.Sum(b) }

// FuzzSplicedIndex compares the splicing writer with decode-and-encode on
// arbitrary index files that both parsers accept.
func FuzzSplicedIndex(f *testing.F) {
	f.Add((&Index{version: 2, Entries: []Entry{{Path: "a", Mode: 0o100644}, {Path: "b/c", Mode: 0o100644}}}).encode(), "b/a", false)
	f.Add((&Index{version: 4, Entries: []Entry{{Path: "a/b", Mode: 0o100644}, {Path: "a/c", Mode: 0o100644}}}).encode(), "a/bb", true)
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
		if err := idx.CheckSum(); err != nil {
			t.Fatal(err)
		}
		if idx.Conflicted(path) {
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
		if err := idx.Write(&unchanged); err != nil {
			t.Fatal(err)
		}
		want.extensions = keptExtensions()
		if !bytes.Equal(unchanged.Bytes(), want.encode()) {
			return
		}
		if remove {
			idx.Remove(path)
			for i := range want.Entries {
				if want.Entries[i].Path == path && want.Entries[i].Stage() == 0 {
					want.Entries = append(want.Entries[:i], want.Entries[i+1:]...)
					break
				}
			}
		} else {
			e := Entry{Mode: 0o100644, Path: path}
			idx.Set(e)
			want.Entries = insertIndexEntry(want.Entries, e)
		}
		var got bytes.Buffer
		if err := idx.Write(&got); err != nil {
			t.Fatal(err)
		}
		want.extensions = keptExtensions()
		if want.version == 2 && !remove {
			for _, e := range want.Entries {
				if e.ExtFlags != 0 {
					want.version = 3
				}
			}
		}
		if !bytes.Equal(got.Bytes(), want.encode()) {
			t.Fatalf("spliced and re-encoded indexes differ")
		}
	})
}

// A truncated index is an error, never a crash: the checksum goroutine
// still reads the mapped file when parsing fails, and Open unmaps it.
func TestTruncatedIndexIsAnErrorNotACrash(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Populate(2000)
	data, err := os.ReadFile(r.Path(".git/index"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index")
	for i := 0; i < 200; i++ {
		cut := len(data) * (50 + i%45) / 100
		if err := os.WriteFile(path, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if idx, err := Open(path); err == nil {
			idx.Close()
			t.Fatalf("an index cut to %d of %d bytes opened", cut, len(data))
		}
	}
}

// TestChildrenListsADirectoryAsGitSeesIt compares Children with git
// ls-files of the same directory, pending changes included.
func TestChildrenListsADirectoryAsGitSeesIt(t *testing.T) {
	t.Parallel()
	r := newRepo(t)
	for _, p := range []string{"a-b.txt", "a/x.md", "a/sub/y.md", "a/sub/z.md", "a/z.md", "ab/w.md"} {
		r.Write(p, p+"\n")
	}
	r.Git("add", "-A")
	r.Write("a/intent.md", "x\n")
	r.Git("add", "-N", "a/intent.md")
	idx, err := Open(filepath.Join(r.Dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	names := func(dir string) string {
		var out []string
		for _, c := range idx.Children(dir) {
			if c.Dir {
				c.Name += "/"
			}
			out = append(out, c.Name)
		}
		return strings.Join(out, " ")
	}
	if got := names("a"); got != "sub/ x.md z.md" {
		t.Fatalf("a: %q (git ls-files: %q)", got, r.Git("ls-files", "a"))
	}
	if got := names(""); got != "README.md a-b.txt a/ ab/ src/" {
		t.Fatalf("top: %q", got)
	}
	idx.Remove("a/x.md")
	idx.Set(Entry{Mode: 0o100644, Path: "a/new.md"})
	if got := names("a"); got != "sub/ z.md new.md" {
		t.Fatalf("a with changes: %q", got)
	}
	if got := names("missing"); got != "" {
		t.Fatalf("missing: %q", got)
	}
}
