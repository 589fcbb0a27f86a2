package fresh

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"lore/internal/fsx"
)

// TestManifestRoundTrip writes a Manifest with segments of several sizes,
// reads it back, Changes some segments (leaving others to be copied
// unread) and checks every record after each write.
func TestManifestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.manifest")
	want := map[string]map[string]fileRecord{}
	m := NewManifest()
	for d, n := range map[string]int{".agent/knowledge": 3000, ".agent/learnings": 17, ".agent/journal/run-1": 1, ".agent/journal": 0} {
		m.watch[d] = fileRecord{stat: fsx.Stamp{Mtime: int64(n) + 1, Ino: 7}}
		s, _ := m.segment(d)
		want[d] = map[string]fileRecord{}
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("entry-%d.md", i)
			r := fileRecord{stat: fsx.Stamp{Mtime: int64(i) * 1e9, Ctime: -int64(i), Ino: uint64(i) << 40, Size: int64(i)}, hash: uint64(i) * 0x9e3779b97f4a7c15}
			s.put(name, r)
			want[d][name] = r
		}
	}
	m.watch[".agent/memories.md"] = fileRecord{stat: fsx.Stamp{Mtime: 5}, hash: 99}
	m.memories["mem-1"] = 42

	verify := func(round string) *Manifest {
		t.Helper()
		if err := WriteManifest(path, m); err != nil {
			t.Fatalf("%s: write: %v", round, err)
		}
		m.Close()
		got, err := ReadManifest(path)
		if err != nil {
			t.Fatalf("%s: read: %v", round, err)
		}
		if got.FileCount() != count(want) {
			t.Errorf("%s: fileCount %d, want %d", round, got.FileCount(), count(want))
		}
		for d, files := range want {
			s, err := got.segment(d)
			if err != nil {
				t.Fatalf("%s: segment %s: %v", round, d, err)
			}
			if s.len() != len(files) {
				t.Errorf("%s: %s has %d records, want %d", round, d, s.len(), len(files))
			}
			for name, r := range files {
				if g, ok := s.get([]byte(name)); !ok || g != r {
					t.Fatalf("%s: %s/%s = %+v %v, want %+v", round, d, name, g, ok, r)
				}
			}
			if _, ok := s.get([]byte("absent.md")); ok {
				t.Errorf("%s: %s finds a file it never had", round, d)
			}
			seen := map[string]bool{}
			s.each(func(name string, r fileRecord) error {
				if seen[name] || files[name] != r {
					t.Errorf("%s: %s each yields %s twice or wrong: %+v", round, d, name, r)
				}
				seen[name] = true
				return nil
			})
			if len(seen) != len(files) {
				t.Errorf("%s: %s each yields %d names, want %d", round, d, len(seen), len(files))
			}
		}
		if r := got.watch[".agent/memories.md"]; r.hash != 99 {
			t.Errorf("%s: memories.md record lost: %+v", round, r)
		}
		if err := got.loadMemories(); err != nil || got.memories["mem-1"] != 42 {
			t.Errorf("%s: memory hashes: %v %v", round, got.memories, err)
		}
		return got
	}
	m = verify("first write")

	// Second round: change one segment, leave the others unread.
	s, _ := m.segment(".agent/knowledge")
	s.drop("entry-5.md")
	delete(want[".agent/knowledge"], "entry-5.md")
	r := fileRecord{stat: fsx.Stamp{Mtime: 1}, hash: 1}
	s.put("entry-6.md", r)
	want[".agent/knowledge"]["entry-6.md"] = r
	s.put("new.md", r)
	want[".agent/knowledge"]["new.md"] = r
	m = verify("second write, one segment changed")

	// Third: nothing loaded at all, everything copied.
	m = verify("third write, all copied")

	// A damaged segment is reported, not misread.
	m.Close()
	data, _ := os.ReadFile(path)
	data[manifestHeaderLen+10] ^= 0xff
	os.WriteFile(path, data, 0o644)
	bad, err := ReadManifest(path)
	if err == nil {
		defer bad.Close()
		var segErr error
		for d := range want {
			if _, err := bad.segment(d); err != nil {
				segErr = err
			}
		}
		if bad.loadMemories() == nil && segErr == nil {
			t.Error("a flipped byte went unnoticed")
		}
	}
}

func count(m map[string]map[string]fileRecord) int {
	n := 0
	for _, f := range m {
		n += len(f)
	}
	return n
}

// A directory listed as its segment records it — the same names under
// the same inodes, in the kernel's order — sums as the segment does, and
// list counts its files without a lookup of each; another inode (a file
// replaced by a rename), a new file or one gone makes the sums differ,
// and each file is looked up.
func TestInodeSumTellsAnUnchangedDirectory(t *testing.T) {
	root := t.TempDir()
	const d = ".agent/learnings"
	dir := filepath.Join(root, filepath.FromSlash(d))
	os.MkdirAll(dir, 0o755)
	for i := 0; i < 300; i++ {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("l-%03d.md", i)), []byte("x"), 0o644)
	}
	path := filepath.Join(t.TempDir(), "m.manifest")
	record := func() *segment {
		t.Helper()
		m := NewManifest()
		m.watch[d] = fileRecord{stat: fsx.Stamp{Mtime: 1, Ino: 7}}
		s, _ := m.segment(d)
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			st, err := fsx.Lstat(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			s.put(e.Name(), fileRecord{stat: st})
		}
		if err := WriteManifest(path, m); err != nil {
			t.Fatal(err)
		}
		got, err := ReadManifest(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(got.Close)
		seg, err := got.segment(d)
		if err != nil {
			t.Fatal(err)
		}
		return seg
	}
	seg := record()
	if _, ok := seg.inodeSum(); !ok {
		t.Fatal("a segment read from its file has no inode sum")
	}
	l, err := list(root, d, seg)
	if err != nil {
		t.Fatal(err)
	}
	if l.listed != 300 || len(l.replaced) != 0 || len(l.others) != 0 || !l.summed {
		t.Fatalf("unchanged: listed %d, replaced %v, others %d, by the sum %v", l.listed, l.replaced, len(l.others), l.summed)
	}
	// The sums themselves: list's own, over the directory, is the
	// segment's.
	var sum uint64
	fsx.ListDir(dir, func(e fsx.Dirent) error {
		sum += inodeMix(fnv64a(e.Name), e.Ino)
		return nil
	})
	if want, _ := seg.inodeSum(); sum != want {
		t.Fatalf("the directory sums %x, its segment %x", sum, want)
	}

	// Replaced by a rename, one created, one removed.
	os.WriteFile(filepath.Join(dir, "new.tmp"), []byte("y"), 0o644)
	os.Rename(filepath.Join(dir, "new.tmp"), filepath.Join(dir, "l-007.md"))
	l, _ = list(root, d, seg)
	if l.listed != 300 || len(l.replaced) != 1 || l.replaced[0] != "l-007.md" || l.summed {
		t.Fatalf("one replaced: listed %d, replaced %v", l.listed, l.replaced)
	}
	os.Remove(filepath.Join(dir, "l-008.md"))
	os.WriteFile(filepath.Join(dir, "l-300.md"), []byte("z"), 0o644)
	l, _ = list(root, d, seg)
	if l.listed != 299 || len(l.others) != 1 || string(l.others[0].Name) != "l-300.md" {
		t.Fatalf("one gone, one new: listed %d, others %d", l.listed, len(l.others))
	}
	// Recorded again, the directory sums as its new segment.
	seg = record()
	l, _ = list(root, d, seg)
	if l.listed != 300 || len(l.replaced) != 0 || len(l.others) != 0 || !l.summed {
		t.Fatalf("recorded again: listed %d, replaced %v, others %d, by the sum %v", l.listed, l.replaced, len(l.others), l.summed)
	}
	if s, ok := seg.inodeSum(); !ok || s == sum {
		t.Fatalf("the changed directory's segment sums %x (%v), as the old one", s, ok)
	}
}
