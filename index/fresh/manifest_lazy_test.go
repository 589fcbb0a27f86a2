package fresh

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"lore/mdstore/entry"
)

// lazyStore is a store of 50 knowledge entries, 5 learnings and two
// memories, written by hand, with the manifest a rebuild wrote for it.
func lazyStore(t *testing.T) (s Store, manifest string) {
	t.Helper()
	root := t.TempDir()
	write := func(p, content string) {
		full := filepath.Join(root, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50; i++ {
		write(fmt.Sprintf("%s/entry-%02d.md", entry.KnowledgeDir, i), fmt.Sprintf("---\ntitle: \"Entry %d\"\ntags: [\"misc\"]\n---\n\nPlain words.\n", i))
	}
	for i := 0; i < 5; i++ {
		write(learningPath(i), learningFile(i, "Learned."))
	}
	write(entry.MemoriesPath, entry.MemoriesTemplate+
		"\n### mem-1800000000-aaaa\n> one\n<!-- tags: misc | created: 2027-01-15 -->\n"+
		"\n### mem-1800000000-bbbb\n> two\n<!-- tags: misc | created: 2027-01-15 -->\n")
	s = Store{Root: root}
	manifest = filepath.Join(t.TempDir(), "gen-a.manifest")
	ch, err := CheckAll(s, later(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Docs) != 57 {
		t.Fatalf("the rebuild found %d documents, want 57", len(ch.Docs))
	}
	if err := WriteManifest(manifest, ch.Next); err != nil {
		t.Fatal(err)
	}
	return s, manifest
}

// later is a clock an hour ahead: every file written before it has
// settled (see fsx.Stamp.Settled), so that a check reads only what
// changed.
func later() int64 { return time.Now().Add(time.Hour).UnixNano() }

func learningPath(i int) string { return fmt.Sprintf("%s/l-%06x.md", entry.LearningsDir, i) }

func learningFile(i int, body string) string {
	return fmt.Sprintf("---\nid: l-%06x\ncategory: pitfall\ntags: [\"misc\"]\ncreated_at: \"2027-01-15T10:00:00Z\"\n---\n\n%s\n", i, body)
}

// saveLearning rewrites learning i by renaming a new file over it, which
// changes the learnings directory.
func saveLearning(t *testing.T, s Store, i int, body string) {
	t.Helper()
	p := filepath.Join(s.Root, filepath.FromSlash(learningPath(i)))
	if err := os.WriteFile(p+".tmp", []byte(learningFile(i, body)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		t.Fatal(err)
	}
}

// spanBytes is a copy of the bytes at sp in m's file.
func spanBytes(m *Manifest, sp span) []byte { return bytes.Clone(m.data[sp.off : sp.off+sp.n]) }

// A check reads only the segments of the directories that changed (and
// the memory hashes only when memories.md changed); writing the next
// manifest copies the others byte for byte, unread.
func TestUnreadSegmentsAreCopiedByteForByte(t *testing.T) {
	s, path := lazyStore(t)
	m, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	for d, seg := range m.segs {
		if seg.loaded {
			t.Fatalf("segment %s read with the manifest", d)
		}
	}
	if m.memories != nil {
		t.Fatal("memory hashes read with the manifest")
	}
	knowledge, memories := spanBytes(m, m.segs[entry.KnowledgeDir].at), spanBytes(m, m.memAt)

	saveLearning(t, s, 3, "Learned again.")
	ch, err := Check(s, m, false, later())
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Docs) != 1 || ch.Docs[0].EntryID != "l-000003" || len(ch.Remove) != 0 {
		t.Fatalf("a learning saved: documents %v, removals %v", ch.Docs, ch.Remove)
	}
	if m.segs[entry.KnowledgeDir].loaded || m.memories != nil {
		t.Fatal("a check of a change to the learnings read the knowledge segment or the memory hashes")
	}
	if !m.segs[entry.LearningsDir].loaded {
		t.Fatal("the learnings' segment was not read")
	}
	if err := WriteManifest(path, ch.Next); err != nil {
		t.Fatal(err)
	}
	m.Close()

	next, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if got := spanBytes(next, next.segs[entry.KnowledgeDir].at); !bytes.Equal(got, knowledge) {
		t.Fatalf("the knowledge segment was not copied byte for byte: %d bytes, were %d", len(got), len(knowledge))
	}
	if got := spanBytes(next, next.memAt); !bytes.Equal(got, memories) {
		t.Fatal("the memory hashes were not copied byte for byte")
	}
	// And what was copied reads as what was written.
	ch, err = Check(s, next, true, later())
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Empty() || next.FileCount() != 55 {
		t.Fatalf("a sweep of the copied manifest: documents %v, removals %v, %d files; want nothing of 55 files", ch.Docs, ch.Remove, next.FileCount())
	}
	if err := next.loadMemories(); err != nil || len(next.memories) != 2 {
		t.Fatalf("memory hashes after the copy: %v, %v", next.memories, err)
	}
}

// A process holds the manifest it read while another one replaces it:
// the manifest it writes afterwards copies its unread segments from the
// file it read, not from the replacement, and reads back whole.
func TestManifestReplacedWhileHeld(t *testing.T) {
	s, path := lazyStore(t)
	m, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	knowledge := spanBytes(m, m.segs[entry.KnowledgeDir].at)

	// Another process sweeps the store, sees a knowledge entry edited in
	// place and replaces the manifest.
	edited := filepath.Join(s.Root, filepath.FromSlash(entry.KnowledgeDir+"/entry-07.md"))
	if err := os.WriteFile(edited, []byte("---\ntitle: \"Entry 7\"\ntags: [\"misc\"]\n---\n\nEdited in place.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := CheckAll(s, later(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteManifest(path, other.Next); err != nil {
		t.Fatal(err)
	}

	// This one, with the manifest it holds, sees a learning saved, and
	// writes its own manifest.
	saveLearning(t, s, 1, "Learned meanwhile.")
	ch, err := Check(s, m, false, later())
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Docs) != 1 || ch.Docs[0].EntryID != "l-000001" {
		t.Fatalf("a learning saved: documents %v", ch.Docs)
	}
	if err := WriteManifest(path, ch.Next); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(path)
	if err != nil {
		t.Fatalf("the manifest written after a replacement: %v", err)
	}
	defer got.Close()
	if b := spanBytes(got, got.segs[entry.KnowledgeDir].at); !bytes.Equal(b, knowledge) {
		t.Fatal("the knowledge segment was not copied from the manifest that was read")
	}
	// It says what the process that wrote it knew: the next sweep finds
	// the entry edited in place again.
	ch, err = Check(s, got, true, later())
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Docs) != 1 || ch.Docs[0].EntryID != "entry-07" || len(ch.Remove) != 0 {
		t.Fatalf("the next sweep: documents %v, removals %v; want entry-07", ch.Docs, ch.Remove)
	}
}

// A damaged segment goes unnoticed until it is read; then the check
// reports the manifest damaged (and the index is rebuilt).
func TestDamagedSegmentIsReported(t *testing.T) {
	for _, damage := range []string{"segment", "memory hashes"} {
		t.Run(damage, func(t *testing.T) {
			s, path := lazyStore(t)
			m, err := ReadManifest(path)
			if err != nil {
				t.Fatal(err)
			}
			at := m.segs[entry.KnowledgeDir].at
			if damage == "memory hashes" {
				at = m.memAt
			}
			m.Close()
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data[at.off+at.n/2] ^= 0xff
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if m, err = ReadManifest(path); err != nil {
				t.Fatalf("the header and watched part are intact, yet: %v", err)
			}
			defer m.Close()
			if damage == "segment" {
				_, err = Check(s, m, true, later())
			} else {
				mem := filepath.Join(s.Root, filepath.FromSlash(entry.MemoriesPath))
				text, _ := os.ReadFile(mem)
				os.WriteFile(mem, bytes.Replace(text, []byte("> two"), []byte("> two, edited"), 1), 0o644)
				_, err = Check(s, m, false, later())
			}
			if !errors.Is(err, ErrBadManifest) || Reason(err) != "the index was damaged" {
				t.Fatalf("a check reading the damaged %s: %v", damage, err)
			}
		})
	}
}
