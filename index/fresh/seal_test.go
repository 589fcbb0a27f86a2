package fresh_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/index/fresh"
	"lore/internal/fsx"
)

// sealedDir is a generation's directory with a root.bolt and two
// segments, sealed.
func sealedDir(t *testing.T) (dir, sealPath string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "gen-a")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"root.bolt":        strings.Repeat("bolt ", 1000),
		"000000000001.zap": strings.Repeat("segment one ", 500),
		"000000000002.zap": "segment two",
		"000000000003.zap": "an older segment, not in the snapshot",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	segs := []fresh.SealedSegment{{Name: "000000000002.zap", Docs: 1}, {Name: "000000000001.zap", Docs: 41}}
	s, err := fresh.NewSeal(dir, 42, segs, nil)
	if err != nil {
		t.Fatal(err)
	}
	sealPath = dir + ".seal"
	if err := fresh.WriteSeal(sealPath, s); err != nil {
		t.Fatal(err)
	}
	return dir, sealPath
}

func readSeal(t *testing.T, path string) *fresh.Seal {
	t.Helper()
	s, err := fresh.ReadSeal(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSealRecordsWhatBleveReads(t *testing.T) {
	dir, sealPath := sealedDir(t)
	s := readSeal(t, sealPath)
	if s.Docs != 42 || !slices.Equal(s.Segments, []fresh.SealedSegment{{Name: "000000000001.zap", Docs: 41}, {Name: "000000000002.zap", Docs: 1}}) {
		t.Fatalf("seal %+v", s)
	}
	var names []string
	for _, f := range s.Files {
		names = append(names, f.Name)
		if f.Stamp == (fsx.Stamp{}) {
			t.Errorf("%s: no stamp recorded", f.Name)
		}
	}
	if want := []string{"root.bolt", "000000000001.zap", "000000000002.zap"}; !slices.Equal(names, want) {
		t.Fatalf("files %v, want %v (an older segment is not read)", names, want)
	}
	if restamped, err := s.Check(dir, true); err != nil || restamped {
		t.Fatalf("check of the files as sealed: %v, restamped %v", err, restamped)
	}
	if err := s.Holds(42, []fresh.SealedSegment{{Name: "000000000002.zap", Docs: 1}, {Name: "000000000001.zap", Docs: 41}}); err != nil {
		t.Fatalf("the sealed snapshot: %v", err)
	}
}

// Every change to a file bleve reads is found, by the stamp alone when
// not full; every change to the seal itself too.
func TestSealFindsWhatChanged(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(dir, sealPath string)
		why    string
	}{
		{"segment truncated", func(dir, _ string) { os.Truncate(filepath.Join(dir, "000000000001.zap"), 100) },
			"000000000001.zap changed since lore wrote it (100 bytes, not 6000)"},
		{"bytes overwritten", func(dir, _ string) {
			f, _ := os.OpenFile(filepath.Join(dir, "root.bolt"), os.O_WRONLY, 0)
			f.WriteAt([]byte("BOLT"), 2000)
			f.Close()
		}, "root.bolt changed since lore wrote it (its bytes differ)"},
		{"segment deleted", func(dir, _ string) { os.Remove(filepath.Join(dir, "000000000002.zap")) }, "000000000002.zap is missing"},
		{"segment put back as another", func(dir, _ string) {
			os.Rename(filepath.Join(dir, "000000000003.zap"), filepath.Join(dir, "000000000002.zap"))
		}, "000000000002.zap changed since lore wrote it"},
		{"seal deleted", func(_, sealPath string) { os.Remove(sealPath) }, "it is not sealed (lore did not finish writing it)"},
		{"seal damaged", func(_, sealPath string) {
			data, _ := os.ReadFile(sealPath)
			os.WriteFile(sealPath, []byte(strings.Replace(string(data), "docs 42", "docs 43", 1)), 0o644)
		}, "its seal does not read"},
		{"seal truncated", func(_, sealPath string) { os.Truncate(sealPath, 20) }, "its seal does not read"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, sealPath := sealedDir(t)
			c.damage(dir, sealPath)
			s, err := fresh.ReadSeal(sealPath)
			if err == nil {
				_, err = s.Check(dir, false)
			}
			var de *fresh.DamageError
			if !errors.As(err, &de) || !strings.HasPrefix(de.Why, c.why) {
				t.Fatalf("check: %v; want damage: %s", err, c.why)
			}
			if why, ok := fresh.Damage(err); !ok || why != de.Why || fresh.Reason(err) != "the index was damaged: "+de.Why {
				t.Fatalf("Damage %q %v, Reason %q", why, ok, fresh.Reason(err))
			}
		})
	}
}

// A file written over in place, right after the seal was written, with
// as many bytes: its stamp must have changed, however coarse the clock
// (WriteSeal waits for the file system's clock to move past lore's last
// write). Done many times, so that a seal written in the same tick as
// the files would be caught.
func TestSealOutrunsTheClock(t *testing.T) {
	for i := 0; i < 30; i++ {
		dir, sealPath := sealedDir(t)
		f, err := os.OpenFile(filepath.Join(dir, "000000000002.zap"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt([]byte("SEGMENT TWO"), 0)
		f.Close()
		if _, err := readSeal(t, sealPath).Check(dir, false); err == nil {
			t.Fatalf("round %d: a segment written over right after the seal passed the check of stamps", i)
		}
		sealStamp, _ := fsx.Lstat(sealPath)
		for _, sf := range readSeal(t, sealPath).Files {
			if !sf.Stamp.SettledBy(sealStamp) {
				t.Fatalf("round %d: %s stamped %+v, not before the seal's own time %d", i, sf.Name, sf.Stamp, sealStamp.Mtime)
			}
		}
	}
}

// A file copied or touched holds the bytes lore wrote: not damage. The
// new stamp is recorded when the caller writes the seal again.
func TestSealTakesATouchForWhatItIs(t *testing.T) {
	dir, sealPath := sealedDir(t)
	earlier := time.Now().Add(-time.Hour)
	p := filepath.Join(dir, "000000000001.zap")
	os.Chtimes(p, earlier, earlier)
	s := readSeal(t, sealPath)
	restamped, err := s.Check(dir, false)
	if err != nil || !restamped {
		t.Fatalf("check after a touch: %v, restamped %v; want no damage, a new stamp", err, restamped)
	}
	if err := fresh.WriteSeal(sealPath, s); err != nil {
		t.Fatal(err)
	}
	st, _ := fsx.Lstat(p)
	for _, f := range readSeal(t, sealPath).Files {
		if f.Name == "000000000001.zap" && !f.Stamp.Same(st) {
			t.Fatalf("the seal records %+v, the file has %+v", f.Stamp, st)
		}
	}
	if restamped, err := readSeal(t, sealPath).Check(dir, false); err != nil || restamped {
		t.Fatalf("check after the seal was written again: %v, restamped %v", err, restamped)
	}
}

// What bleve loaded must be the sealed snapshot: bleve falls back on an
// older one, or none, when the latest does not load.
func TestSealHoldsOnlyTheSealedSnapshot(t *testing.T) {
	_, sealPath := sealedDir(t)
	s := readSeal(t, sealPath)
	for _, c := range []struct {
		docs uint64
		segs []fresh.SealedSegment
	}{
		{0, nil},
		{41, []fresh.SealedSegment{{Name: "000000000001.zap", Docs: 41}}},
		{42, []fresh.SealedSegment{{Name: "000000000001.zap", Docs: 40}, {Name: "000000000002.zap", Docs: 2}}},
		{42, []fresh.SealedSegment{{Name: "000000000003.zap", Docs: 41}, {Name: "000000000002.zap", Docs: 1}}},
		{43, []fresh.SealedSegment{{Name: "000000000001.zap", Docs: 41}, {Name: "000000000002.zap", Docs: 1}}},
	} {
		var de *fresh.DamageError
		if err := s.Holds(c.docs, c.segs); !errors.As(err, &de) {
			t.Errorf("%d documents in %v: %v; want damage", c.docs, c.segs, err)
		}
	}
}
