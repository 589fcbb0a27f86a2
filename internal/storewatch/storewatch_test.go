package storewatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
	"lore/internal/loretest"
)

func TestEvery(t *testing.T) {
	for _, tc := range []struct {
		files, limit int
		want         bool
	}{{0, SweepLimit, true}, {SweepLimit, SweepLimit, true}, {SweepLimit + 1, SweepLimit, false}, {0, -1, false}} {
		if got := Every(tc.files, tc.limit); got != tc.want {
			t.Errorf("Every(%d, %d) = %v", tc.files, tc.limit, got)
		}
	}
}

func TestReplaced(t *testing.T) {
	for _, tc := range []struct {
		rec, ino uint64
		want     bool
	}{{7, 7, false}, {7, 8, true}, {0, 7, true}, {7, 0, true}, {0, 0, true}} {
		if got := Replaced(fsx.Stamp{Ino: tc.rec}, tc.ino); got != tc.want {
			t.Errorf("Replaced(ino %d, listed %d) = %v", tc.rec, tc.ino, got)
		}
	}
}

// TestWrittenSaysWhatGitWrote: a checkout that rewrites a store file is
// reported with the stat git recorded; a look at an index that did not
// change calls nothing; outside git nothing is written.
func TestWrittenSaysWhatGitWrote(t *testing.T) {
	r := loretest.NewRepo(t)
	r.Commit("one", map[string]string{"sub/.agent/knowledge/a.md": "one\n", "sub/.agent/knowledge/b.md": "b\n", "other.txt": "x\n"})
	r.Git("checkout", "-q", "-b", "side")
	r.Commit("two", map[string]string{"sub/.agent/knowledge/a.md": "two\n"})
	git := Git{Index: filepath.Join(r.Dir, ".git", "index"), Prefix: "sub"}
	later := time.Now().Add(time.Hour).UnixNano() // past the racy window of every file here

	var seen []string
	look, err := git.Written(".agent", Look{}, later, func(p []byte, _ gitindex.Stat) { seen = append(seen, string(p)) })
	if err != nil || !slices.Equal(seen, []string{".agent/knowledge/a.md", ".agent/knowledge/b.md"}) || look.At != later || look.Stamp.Mtime == 0 {
		t.Fatalf("the first look: %v %v %+v", seen, err, look)
	}
	seen = nil
	if again, err := git.Written(".agent", look, later+1, func(p []byte, _ gitindex.Stat) { seen = append(seen, string(p)) }); err != nil || again != look || seen != nil {
		t.Fatalf("an index that did not change: %v %v %+v", seen, err, again)
	}
	// A look made when the index was last written (the file system's
	// clock), then a checkout that rewrites a.md.
	before, _ := fsx.Lstat(git.Index)
	look.At = before.Mtime
	r.Git("checkout", "-q", "main")
	st, _ := fsx.Lstat(r.Path("sub/.agent/knowledge/a.md"))
	var stats []gitindex.Stat
	next, err := git.Written(".agent", look, later+2, func(p []byte, g gitindex.Stat) {
		if string(p) == ".agent/knowledge/a.md" {
			stats = append(stats, g)
		}
	})
	if err != nil || len(stats) != 1 || !stats[0].Matches(st) || next.At != later+2 {
		t.Fatalf("after a checkout: %+v %v %+v", stats, err, next)
	}

	if l, err := (Git{}).Written(".agent", Look{At: 5}, later, func([]byte, gitindex.Stat) { t.Error("outside git, a file was written") }); err != nil || l.At != 5 {
		t.Errorf("outside git: %+v %v", l, err)
	}
}

// TestWrittenTrustsNoRacyIndex: an index written within the racy window
// of the look is not recorded as seen, so the next look asks again.
func TestWrittenTrustsNoRacyIndex(t *testing.T) {
	r := loretest.NewRepo(t)
	r.Commit("one", map[string]string{".agent/knowledge/a.md": "one\n"})
	git := Git{Index: filepath.Join(r.Dir, ".git", "index")}
	st, err := fsx.Lstat(git.Index)
	if err != nil {
		t.Fatal(err)
	}
	look, err := git.Written(".agent", Look{}, st.Mtime, func([]byte, gitindex.Stat) {}) // now is the index's own mtime
	if err != nil || look.Stamp != (fsx.Stamp{}) || look.At != st.Mtime {
		t.Fatalf("a racy index: %+v %v", look, err)
	}
	n := 0
	git.Written(".agent", look, st.Mtime+int64(time.Hour), func([]byte, gitindex.Stat) { n++ })
	if n != 1 {
		t.Errorf("the next look found %d files written", n)
	}
}

// TestWrittenCannotTell: an index lore cannot read is ErrUnknown, and
// nothing is recorded.
func TestWrittenCannotTell(t *testing.T) {
	dir := t.TempDir()
	index := filepath.Join(dir, "index")
	os.WriteFile(index, []byte("not an index"), 0o644)
	look, err := (Git{Index: index}).Written(".agent", Look{At: 9}, 10, func([]byte, gitindex.Stat) {})
	if err == nil || look != (Look{}) {
		t.Errorf("a damaged index: %+v %v", look, err)
	}
}
