package gitx

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestTreeFindIsTheFirstEntryAScanFinds checks find, which halves a tree
// in git's order, against a scan, on trees of names that are prefixes of
// one another, files and directories of the same name, and trees out of
// order (which find reads through a map).
func TestTreeFindIsTheFirstEntryAScanFinds(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "b", ".", "-", "0", "md"}
	randomName := func() string {
		var b strings.Builder
		for n := 1 + rng.IntN(3); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for round := 0; round < 2000; round++ {
		var entries []treeEntry
		for n := rng.IntN(12); n > 0; n-- {
			mode := "100644"
			if rng.IntN(3) == 0 {
				mode = "40000"
			}
			entries = append(entries, treeEntry{mode: mode, name: randomName(), hash: Hash{byte(n)}})
		}
		shuffled := round%4 == 0
		if shuffled {
			rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
		} else {
			slices.SortStableFunc(entries, func(a, b treeEntry) int {
				return compareTreeNames(a.name, a.isTree(), b.name, b.isTree())
			})
		}
		// git's order by its definition: a directory's name with "/".
		key := func(e treeEntry) string {
			if e.isTree() {
				return e.name + "/"
			}
			return e.name
		}
		for _, a := range entries {
			for _, b := range entries {
				if got, want := compareTreeNames(a.name, a.isTree(), b.name, b.isTree()), strings.Compare(key(a), key(b)); got != want {
					t.Fatalf("compareTreeNames(%v, %v) = %d, want %d", a, b, got, want)
				}
			}
		}
		tree := newParsedTree(entries)
		for i := 0; i < 20; i++ {
			name := randomName()
			if i < len(entries) {
				name = entries[i].name
			}
			want, wantOK := treeEntry{}, false
			for _, e := range entries {
				if e.name == name {
					want, wantOK = e, true
					break
				}
			}
			if got, ok := tree.find(name); ok != wantOK || got != want {
				t.Fatalf("find(%q) = %v %v, a scan finds %v %v in %v (sorted: %v)", name, got, ok, want, wantOK, entries, tree.sorted)
			}
		}
	}
}

func TestParseTreeReadsWhatEncodeTreeWrites(t *testing.T) {
	t.Parallel()
	entries := []treeEntry{{"100644", "a.md", Hash{1}}, {"40000", "dir", Hash{2, 0, 0}}, {"100755", "run", Hash{0}}, {"120000", "x\x01y", Hash{3}}, {"644", "old", Hash{4}}}
	got, err := parseTree(encodeTree(entries))
	if err != nil || !slices.Equal(got, entries) {
		t.Fatalf("parseTree(encodeTree(%v)) = %v, %v", entries, got, err)
	}
	for _, bad := range []string{"100644 a.md", "100644a.md\x00" + strings.Repeat("h", 20), "100644 a.md\x00short"} {
		if _, err := parseTree([]byte(bad)); err == nil {
			t.Errorf("parseTree(%q) is not an error", bad)
		}
	}
}
