package gitindex

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
)

// EachStat reads in place what the full decoder reads, for every
// index version, a prefix or none, long paths and conflict stages.
func TestEachIndexStatMatchesTheDecoder(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"2", "3", "4"} {
		t.Run("v"+version, func(t *testing.T) {
			r := newRepo(t)
			for i := 0; i < 40; i++ {
				r.Write(fmt.Sprintf(".agent/knowledge/entry-%02d.md", i), fmt.Sprintf("entry %d\n", i))
			}
			r.Write(".agent/memories.md", "# Memories\n")
			r.Write(".agent/learnings/"+strings.Repeat("l", 4100)[:200]+".md", "long name\n")
			r.Write(".agentx/other.md", "not under the prefix\n")
			r.Write("zz/last.md", "after\n")
			r.Git("add", "-A")
			r.Git("commit", "-q", "-m", "entries")
			if version == "3" {
				r.Write(".agent/knowledge/intended.md", "not yet added\n")
				r.Git("add", "-N", ".agent/knowledge/intended.md") // an entry with extended flags
			}
			r.Git("update-index", "--index-version", version)
			whole, err := Read(filepath.Join(r.Dir, ".git", "index"))
			if err != nil {
				t.Fatal(err)
			}
			for _, prefix := range []string{"", ".agent/", ".agent/knowledge/", "nothing/"} {
				var want, got []string
				for _, e := range whole.Entries {
					if strings.HasPrefix(e.Path, prefix) && e.Stage() == 0 {
						want = append(want, fmt.Sprintf("%s %d.%d ino=%d size=%d", e.Path, e.MtimeSec, e.MtimeNsec, e.Ino, e.Size))
					}
				}
				err := EachStat(filepath.Join(r.Dir, ".git", "index"), prefix, func(p []byte, st Stat) bool {
					got = append(got, fmt.Sprintf("%s %d.%d ino=%d size=%d", p, st.MtimeSec, st.MtimeNsec, st.Ino, st.Size))
					return true
				})
				if err != nil {
					t.Fatal(err)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("prefix %q:\ngot  %q\nwant %q", prefix, got, want)
				}
			}
		})
	}
}

func TestEachIndexStatMissingIndex(t *testing.T) {
	t.Parallel()
	if err := EachStat(filepath.Join(t.TempDir(), "index"), "", func([]byte, Stat) bool {
		t.Fatal("an entry in a missing index")
		return false
	}); err != nil {
		t.Fatal(err)
	}
}

// Whatever the bytes, EachStat returns: no panic, no endless loop.
func FuzzEachIndexStat(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00"), "")
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x02"+strings.Repeat("\x00", 60)+"\x00\x03\x00abc\x00"), "a")
	f.Fuzz(func(t *testing.T, data []byte, prefix string) {
		eachStat(data, []byte(prefix), func([]byte, Stat) bool { return true })
	})
}

// Unchanged trusts a file as its entry's blob only by git's rule: the
// recorded stat is the file's, and the entry was written before the index
// (an entry as new as the index is racily clean: a change in the same
// tick would have left its stat as it was).
func TestUnchangedFollowsGitsRule(t *testing.T) {
	t.Parallel()
	at := time.Unix(1_800_000_000, 500)
	st := fsx.Stamp{Mtime: at.UnixNano(), Ctime: at.UnixNano() + 7, Ino: 1<<33 | 42, Size: 1<<32 + 12}
	entry := Entry{Path: "memories.md", Mode: 0o100644, Hash: plumbing.NewHash("0123456789abcdef0123456789abcdef01234567")}
	entry.SetStat(st)
	data := (&Index{version: 2, Entries: []Entry{entry}}).encode()
	for _, c := range []struct {
		what      string
		indexTime time.Time
		st        fsx.Stamp
		want      bool
	}{
		{"the stat recorded, the index written after", at.Add(time.Second), st, true},
		{"the index written in the same tick", at, st, false},
		{"the index written before the file", at.Add(-time.Second), st, false},
		{"another mtime", at.Add(time.Second), fsx.Stamp{Mtime: st.Mtime + 1, Ctime: st.Ctime, Ino: st.Ino, Size: st.Size}, false},
		{"another ctime", at.Add(time.Second), fsx.Stamp{Mtime: st.Mtime, Ctime: st.Ctime + 1, Ino: st.Ino, Size: st.Size}, false},
		{"another inode", at.Add(time.Second), fsx.Stamp{Mtime: st.Mtime, Ctime: st.Ctime, Ino: st.Ino + 1, Size: st.Size}, false},
		{"another size", at.Add(time.Second), fsx.Stamp{Mtime: st.Mtime, Ctime: st.Ctime, Ino: st.Ino, Size: st.Size + 1}, false},
	} {
		idx, err := parseIndexFile(data, func() {}, c.indexTime, "index")
		if err != nil {
			t.Fatal(err)
		}
		h, ok := idx.Unchanged("memories.md", c.st)
		if ok != c.want || ok && h != entry.Hash {
			t.Errorf("%s: %v %v, want %v", c.what, h, ok, c.want)
		}
		if _, ok := idx.Unchanged("other.md", c.st); ok {
			t.Errorf("%s: a path without an entry is unchanged", c.what)
		}
		idx.Close()
	}
}
