package provenance

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"lore/internal/gitx"
	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/cites"
)

// TestTheStaleCacheAnswersAsAFreshRead steps a repository through what
// happens to cited files — commits that touch none, a change, a rename,
// a deletion, a staged change, citations.md edited by hand, a reset to
// an older commit, a damaged and a foreign cache — and after each
// compares Read (the cache) with a read that uses none, and both with
// what C git says of each citation. Where nothing cited changed, the
// answer must come from the cache.
func TestTheStaleCacheAnswersAsAFreshRead(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("code", map[string]string{
		"src/a.go": "package a\n", "src/b.go": "package b\n", "src/c.go": "package c\n",
		"src/d.go": "package d\n", "src/other.go": "package other\n", ".agent/memories.md": "# Memories\n",
	})
	head := strings.TrimSpace(r.Git("rev-parse", "HEAD"))
	blob := func(content string) string { return gitx.BlobHash([]byte(content)).String() }
	cite := func(key, file, lines, content string) cites.Line {
		return cites.Line{Key: key, Cite: cites.Cite{File: file, Lines: lines, Blob: blob(content), Commit: head}}
	}
	lines := []cites.Line{
		cite("mem-1700000000-aaaa", "src/a.go", "", "package a\n"),
		cite("mem-1700000001-bbbb", "src/a.go", "1", "package a\n"),
		cite("mem-1700000001-bbbb", "src/other.go", "", "package other\n"),
		cite("knowledge/x.md", "src/b.go", "1-2", "package b\n"),
		cite("learnings/y.md", "src/c.go", "", "package c\n"),
		cite("learnings/y.md", "src/d.go", "", "package d\n"),
		cite("journal/run-1/0001-x.md", "src/a.go", "", "package a\n"),
		cite("mem-1700000002-cccc", "src/gone.go", "", "never here\n"),
	}
	r.Commit("cite", map[string]string{".agent/citations.md": string(cites.Format(lines))})
	citing := strings.TrimSpace(r.Git("rev-parse", "HEAD"))

	step := func(name string, wantCached bool) {
		t.Helper()
		want := readWith(t, r, false)
		checkWithGit(t, r, name, want)
		first := readWith(t, r, true)
		second := readWith(t, r, true)
		for i, got := range []*Report{first, second} {
			if diff := compareReports(got, want); diff != "" {
				t.Fatalf("%s: read %d with the cache differs from a fresh read: %s", name, i+1, diff)
			}
		}
		if wantCached && !first.fromCache {
			t.Errorf("%s: the cache was not used", name)
		}
		if !second.fromCache {
			t.Errorf("%s: the cache Read wrote was not used by the next", name)
		}
	}
	step("first read", false)
	step("read again", true)
	r.Commit("a commit that touches no cited file", map[string]string{"src/new.go": "package n\n"})
	step("a commit that touches no cited file", true)
	r.Commit("lore's commit", map[string]string{".agent/memories.md": "# Memories\n\n### mem-1700000009-dddd\n"})
	step("a commit of the store", true)
	r.Commit("change a", map[string]string{"src/a.go": "package a // changed\n"})
	step("a cited file changed", false)
	if err := os.Mkdir(r.Path("src/moved"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.Git("mv", "src/b.go", "src/moved/b.go")
	r.Git("commit", "-q", "-m", "move b")
	step("a cited file moved", false)
	r.Commit("beside the moved file", map[string]string{"src/new.go": "package n // 2\n"})
	step("a commit beside a moved file", true)
	r.Commit("change the moved file", map[string]string{"src/moved/b.go": "package b // changed\n"})
	step("the moved file changed", false)
	r.Commit("b again, elsewhere", map[string]string{"src/again/b.go": "package b\n"})
	step("the content of a gone file back at another path", false)
	r.Git("rm", "-q", "src/c.go")
	r.Git("commit", "-q", "-m", "delete c")
	step("a cited file deleted", false)
	r.Write("src/d.go", "package d // staged\n")
	r.Git("add", "src/d.go")
	step("a change staged, not committed", false)
	r.Write("src/new.go", "package n // 3\n")
	r.Git("add", "src/new.go")
	step("a change to no cited file staged", true)
	edited := append(lines[1:len(lines):len(lines)], cite("knowledge/z.md", "src/d.go", "", "package d\n"))
	r.Write(".agent/citations.md", string(cites.Format(edited)))
	step("citations.md edited by hand", false)
	r.Git("reset", "-q", "--hard", citing)
	step("git reset --hard to an older commit", false)

	cachePath := filepath.Join(r.Dir, ".git", "lore", cacheFile)
	data, err := os.ReadFile(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	for i, damaged := range [][]byte{
		flip(data, len(data)/2), flip(data, len(cacheMagic)+2), data[:len(data)-3],
		[]byte(strings.Replace(string(data), cacheMagic, "lore stale cache 0\n", 1)), []byte("not a cache\n"), nil,
	} {
		if err := os.WriteFile(cachePath, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		got, want := readWith(t, r, true), readWith(t, r, false)
		if got.fromCache {
			t.Errorf("damaged cache %d was used", i)
		}
		if diff := compareReports(got, want); diff != "" {
			t.Errorf("damaged cache %d: %s", i, diff)
		}
	}

	// A cache that holds, copied into another clone whose files differ:
	// its stamps are not the clone's.
	other := loretest.NewRepo(t)
	other.Commit("code", map[string]string{"src/a.go": "package a // other\n"})
	other.Commit("cite", map[string]string{".agent/citations.md": string(cites.Format(lines))})
	readWith(t, r, true)
	data, err = os.ReadFile(cachePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(other.Dir, ".git", "lore"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other.Dir, ".git", "lore", cacheFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if diff := compareReports(readWith(t, other, true), readWith(t, other, false)); diff != "" {
		t.Errorf("another clone's cache: %s", diff)
	}
}

func flip(data []byte, i int) []byte {
	out := append([]byte(nil), data...)
	out[i] ^= 0x20
	return out
}

// readWith opens the store as a command does and reads its report, with
// the cache or without.
func readWith(t *testing.T, r *loretest.Repo, cached bool) *Report {
	t.Helper()
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	report, err := read(s, cached)
	if err != nil {
		t.Fatal(err)
	}
	return report
}

// compareReports says how got answers otherwise than want, the fresh
// read: its head, stale entries, marks and every entry's checks.
func compareReports(got, want *Report) string {
	if got.Head != want.Head {
		return fmt.Sprintf("head %s, want %s", got.Head, want.Head)
	}
	if g, w := got.StaleKeys(), want.StaleKeys(); !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("stale keys %q, want %q", g, w)
	}
	for _, key := range append(sortedKeys(want.all), "mem-1799999999-none", "knowledge/none.md") {
		if g, w := got.Cites(key), want.Cites(key); g != w {
			return fmt.Sprintf("%s cites: %v, want %v", key, g, w)
		}
		if g, w := got.StaleOf(key), want.StaleOf(key); !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s stale checks %+v, want %+v", key, g, w)
		}
		if g, w := got.Mark(key), want.Mark(key); g != w {
			return fmt.Sprintf("%s mark %q, want %q", key, g, w)
		}
	}
	gs, err1 := got.Stale()
	ws, err2 := want.Stale()
	if err1 != nil || err2 != nil || !reflect.DeepEqual(gs, ws) {
		return fmt.Sprintf("lore stale %+v (%v), want %+v (%v)", gs, err1, ws, err2)
	}
	// Last, as it reads the fresh entries' checks again.
	for _, key := range sortedKeys(want.all) {
		if g, w := got.Of(key), want.Of(key); !reflect.DeepEqual(g, w) {
			return fmt.Sprintf("%s checks %+v, want %+v", key, g, w)
		}
	}
	return ""
}

func sortedKeys(m map[string][]Check) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkWithGit holds a fresh read to C git: each citation fresh when
// git's index has the cited blob at its path, changed when another, and
// when none, moved to the first path of HEAD's tree (git ls-tree -r's
// order) holding it, or gone.
func checkWithGit(t *testing.T, r *loretest.Repo, name string, report *Report) {
	t.Helper()
	staged := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.Git("ls-files", "-s")), "\n") {
		f := strings.Fields(l) // mode blob stage\tpath
		if len(f) == 4 {
			staged[f[3]] = f[1]
		}
	}
	at := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.Git("ls-tree", "-r", "HEAD")), "\n") {
		f := strings.Fields(l) // mode type blob\tpath
		if len(f) == 4 && at[f[2]] == "" {
			at[f[2]] = f[3]
		}
	}
	data, err := os.ReadFile(r.Path(".agent/citations.md"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, _ := cites.Parse(data)
	n := map[string]int{}
	for _, l := range parsed {
		want := Check{Cite: l.Cite}
		switch now := staged[l.File]; {
		case now == "" && at[l.Blob] != "":
			want.State, want.MovedTo = Moved, at[l.Blob]
		case now == "":
			want.State = Gone
		case now != l.Blob:
			want.State = Changed
		}
		checks := report.Of(l.Key)
		if i := n[l.Key]; i >= len(checks) || checks[i] != want {
			t.Fatalf("%s: %s's citation %d is %+v, git says %+v", name, l.Key, i, checks, want)
		}
		n[l.Key]++
	}
}
