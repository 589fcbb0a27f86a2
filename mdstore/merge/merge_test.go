package merge

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"

	"gopkg.in/yaml.v3"
)

// --- helpers ---

// blk is a memory block as lore writes it.
// readTestdata reads a file of mdstore's test data: the seed's example
// memories.md, the chaos fixture and entries as lore writes them.
func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "entry", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parsed is memories.md as lore reads it.
type parsed struct {
	memories []entry.Memory
	warnings []entry.Warning
}

func parseMemories(src []byte, path string) parsed {
	ms, ws := entry.ParseMemories(src, path)
	return parsed{ms, ws}
}

func blk(id, content string) string {
	return entry.FormatMemory(entry.Memory{ID: id, Content: content, Tags: []string{"t"}, Created: "2026-01-01"})
}

// memDoc is memories.md with the four sections in canonical order, laid
// out as mdstore.InsertMemory lays them out.
func memDoc(patterns, decisions, fixes, context []string) string {
	section := func(name string, blocks []string) string {
		s := "## " + name + "\n"
		for _, b := range blocks {
			s += "\n" + b
		}
		return s
	}
	return "# Memories\n\n" + section("Patterns", patterns) + "\n" + section("Decisions", decisions) + "\n" +
		section("Fixes", fixes) + "\n" + section("Context", context)
}

func mergeOK(t *testing.T, path, base, ours, theirs string) Result {
	t.Helper()
	res, err := File(path, []byte(base), []byte(ours), []byte(theirs), Labels{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// conflictBlock is what a conflict about one memory looks like.
func conflictBlock(ours, theirs string) string {
	return "<<<<<<< ours\n" + ours + "=======\n" + theirs + ">>>>>>> theirs\n"
}

func memoryIDs(src []byte) []string {
	var ids []string
	for _, m := range parseMemories(src, "").memories {
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return ids
}

// --- MergeFile: missing sides, dispatch ---

func TestMergeFileMissingSides(t *testing.T) {
	x, y, z := []byte("a\nb\n"), []byte("a\nB\n"), []byte("A\nb\n")
	tests := []struct {
		name               string
		base, ours, theirs []byte
		want               []byte
		conflicts          int
	}{
		{"added on ours only", nil, x, nil, x, 0},
		{"added on theirs only", nil, nil, x, x, 0},
		{"added on both alike", nil, x, x, x, 0},
		{"added on both differently", nil, y, z, []byte("<<<<<<< ours\na\nB\n=======\nA\nb\n>>>>>>> theirs\n"), 1},
		{"deleted on ours, unchanged on theirs", x, nil, x, nil, 0},
		{"deleted on theirs, unchanged on ours", x, x, nil, nil, 0},
		{"deleted on both", x, nil, nil, nil, 0},
		{"deleted on ours, changed on theirs", x, nil, y, []byte("<<<<<<< ours\n=======\na\nB\n>>>>>>> theirs\n"), 1},
		{"changed on ours, deleted on theirs", x, z, nil, []byte("<<<<<<< ours\nA\nb\n=======\n>>>>>>> theirs\n"), 1},
		{"an empty file is not a missing one", x, []byte{}, x, []byte{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := File(".agent/config.yaml", tt.base, tt.ours, tt.theirs, Labels{})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Data) != string(tt.want) || (res.Data == nil) != (tt.want == nil) || res.Conflicts != tt.conflicts {
				t.Fatalf("got %q (nil %v), %d conflicts; want %q (nil %v), %d", res.Data, res.Data == nil, res.Conflicts, tt.want, tt.want == nil, tt.conflicts)
			}
		})
	}
}

func TestMergeFileLabels(t *testing.T) {
	res, err := File("notes.txt", []byte("a\n"), []byte("b\n"), []byte("c\n"), Labels{Ours: "HEAD", Base: "merged common ancestors", Theirs: "feature/x"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> feature/x\n"; string(res.Data) != want {
		t.Fatalf("got %q", res.Data)
	}
}

// --- memories.md ---

const (
	idA  = "mem-1000-aaaa"
	idB  = "mem-3000-bbbb"
	idC  = "mem-2000-cccc"
	idX  = "mem-1500-eeee"
	idO3 = "mem-3000-0003"
	idO1 = "mem-1500-0001"
	idT4 = "mem-4000-0004"
	idT2 = "mem-2000-0002"
	idTx = "mem-1500-000a"
	idTy = "mem-1500-000b"
)

func TestMergeMemories(t *testing.T) {
	A, A1, A2 := blk(idA, "A"), blk(idA, "A, as ours edited it"), blk(idA, "A, as theirs edited it")
	B, C, X := blk(idB, "B"), blk(idC, "C"), blk(idX, "X")
	none := []string(nil)
	tests := []struct {
		name, base, ours, theirs, want string
		conflicts                      int
	}{
		{
			name:   "theirs edits a memory, ours adds one",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{B, A}, none, none, none),
			theirs: memDoc([]string{A2}, none, none, none),
			want:   memDoc([]string{B, A2}, none, none, none),
		},
		{
			name:   "both edit a memory alike",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{B, A1}, none, none, none),
			theirs: memDoc([]string{A1}, none, none, none),
			want:   memDoc([]string{B, A1}, none, none, none),
		},
		{
			name:   "deleted by theirs, unchanged by ours",
			base:   memDoc([]string{A, X}, none, none, none),
			ours:   memDoc([]string{B, A, X}, none, none, none),
			theirs: memDoc([]string{A}, none, none, none),
			want:   memDoc([]string{B, A}, none, none, none),
		},
		{
			name:   "deleted by ours, unchanged by theirs",
			base:   memDoc([]string{X, A}, none, none, none),
			ours:   memDoc([]string{A}, none, none, none),
			theirs: memDoc([]string{C, X, A}, none, none, none),
			want:   memDoc([]string{C, A}, none, none, none),
		},
		{
			name:   "added on both sides alike",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{B, C, A}, none, none, none),
			theirs: memDoc([]string{C, A}, none, none, none),
			want:   memDoc([]string{B, C, A}, none, none, none),
		},
		{
			name:   "additions in every section, from both sides",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{A}, []string{B}, none, []string{X}),
			theirs: memDoc([]string{C, A}, none, []string{blk(idT2, "fix")}, []string{blk(idT4, "ctx")}),
			want:   memDoc([]string{C, A}, []string{B}, []string{blk(idT2, "fix")}, []string{blk(idT4, "ctx"), X}),
		},
		{
			name:   "theirs' additions go newest first among ours'",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{blk(idO3, "o3"), blk(idO1, "o1"), A}, none, none, none),
			theirs: memDoc([]string{blk(idT4, "t4"), blk(idT2, "t2"), blk(idTx, "tx"), blk(idTy, "ty"), A}, none, none, none),
			want:   memDoc([]string{blk(idT4, "t4"), blk(idO3, "o3"), blk(idT2, "t2"), blk(idO1, "o1"), blk(idTx, "tx"), blk(idTy, "ty"), A}, none, none, none),
		},
		{
			name:   "ties keep theirs' order, after ours' memory of the same second",
			base:   memDoc(none, none, none, none),
			ours:   memDoc([]string{blk(idO1, "o1")}, none, none, none),
			theirs: memDoc([]string{blk(idTy, "ty"), blk(idTx, "tx")}, none, none, none),
			want:   memDoc([]string{blk(idO1, "o1"), blk(idTy, "ty"), blk(idTx, "tx")}, none, none, none),
		},
		{
			name:   "theirs moves a memory to another section",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{B, A}, none, none, none),
			theirs: memDoc(none, []string{A}, none, none),
			want:   memDoc([]string{B}, []string{A}, none, none),
		},
		{
			name:   "ours moves a memory, theirs edits it",
			base:   memDoc([]string{A, X}, none, none, none),
			ours:   memDoc([]string{X}, none, []string{A}, none),
			theirs: memDoc([]string{A2, X}, none, none, none),
			want:   memDoc([]string{X}, none, []string{A2}, none),
		},
		{
			name:   "theirs moves a memory ours edited",
			base:   memDoc([]string{X, A}, none, none, none),
			ours:   memDoc([]string{X, A1}, none, none, none),
			theirs: memDoc([]string{X}, none, none, []string{C, A}),
			want:   memDoc([]string{X}, none, none, []string{C, A1}),
		},
		{
			name:      "both edit a memory differently",
			base:      memDoc([]string{A, X}, none, none, none),
			ours:      memDoc([]string{B, A1, X}, none, none, none),
			theirs:    memDoc([]string{C, A2, X}, none, none, none),
			want:      memDoc([]string{B, C, conflictBlock(A1, A2), X}, none, none, none),
			conflicts: 1,
		},
		{
			name:      "deleted by theirs, changed by ours",
			base:      memDoc([]string{A, X}, none, none, none),
			ours:      memDoc([]string{A1, X}, none, none, none),
			theirs:    memDoc([]string{X}, none, none, none),
			want:      memDoc([]string{conflictBlock(A1, ""), X}, none, none, none),
			conflicts: 1,
		},
		{
			name:      "deleted by ours, changed by theirs",
			base:      memDoc([]string{A}, none, none, none),
			ours:      memDoc([]string{B}, none, none, none),
			theirs:    memDoc([]string{A2}, none, none, none),
			want:      memDoc([]string{B, conflictBlock("", A2)}, none, none, none),
			conflicts: 1,
		},
		{
			// Two clones drew the same id in one second: both memories
			// are kept, the one that sorts after gets an id of its text's
			// (TestMergeMemoriesIDCollision).
			name:   "the same id added with different text",
			base:   memDoc(none, none, none, none),
			ours:   memDoc([]string{A1}, none, none, none),
			theirs: memDoc([]string{A2}, none, none, none),
			want:   memDoc([]string{A1, blk("mem-1000-9759", "A, as theirs edited it")}, none, none, none),
		},
		{
			name:   "theirs retitles the file, ours adds a memory",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{B, A}, none, none, none),
			theirs: strings.Replace(memDoc([]string{A}, none, none, none), "# Memories", "# What we learnt", 1),
			want:   strings.Replace(memDoc([]string{B, A}, none, none, none), "# Memories", "# What we learnt", 1),
		},
		{
			name:   "both change prose in different places",
			base:   memDoc([]string{A}, none, none, none),
			ours:   strings.Replace(memDoc([]string{B, A}, none, none, none), "# Memories", "# Our memories", 1),
			theirs: strings.Replace(memDoc([]string{A}, none, none, none), "## Fixes\n", "## Fixes\nBugs we fixed, and how.\n", 1),
			want:   strings.Replace(strings.Replace(memDoc([]string{B, A}, none, none, none), "# Memories", "# Our memories", 1), "## Fixes\n", "## Fixes\nBugs we fixed, and how.\n", 1),
		},
		{
			name:      "both change the same prose line",
			base:      memDoc([]string{A}, none, none, none),
			ours:      strings.Replace(memDoc([]string{B, A}, none, none, none), "# Memories", "# Ours", 1),
			theirs:    strings.Replace(memDoc([]string{A}, none, none, none), "# Memories", "# Theirs", 1),
			want:      strings.Replace(memDoc([]string{B, A}, none, none, none), "# Memories\n", conflictBlock("# Ours\n", "# Theirs\n"), 1),
			conflicts: 1,
		},
		{
			name:   "theirs writes an intro above ours' memories",
			base:   memDoc([]string{A}, none, none, none),
			ours:   memDoc([]string{B, A}, none, none, none),
			theirs: strings.Replace(memDoc([]string{A}, none, none, none), "## Patterns\n", "## Patterns\nHow this code is written.\n", 1),
			want:   strings.Replace(memDoc([]string{B, A}, none, none, none), "## Patterns\n", "## Patterns\nHow this code is written.\n", 1),
		},
		{
			name:   "theirs edits a note below a memory",
			base:   strings.Replace(memDoc([]string{A}, none, none, none), "-->\n", "-->\nA note.\n", 1),
			ours:   strings.Replace(memDoc([]string{B, A}, none, none, none), blk(idA, "A"), blk(idA, "A")+"A note.\n", 1),
			theirs: strings.Replace(memDoc([]string{A}, none, none, none), "-->\n", "-->\nA note, edited.\n", 1),
			want:   strings.Replace(memDoc([]string{B, A}, none, none, none), blk(idA, "A"), blk(idA, "A")+"A note, edited.\n", 1),
		},
		{
			name:   "a memory at the end of a file without a final line break",
			base:   strings.TrimSuffix(memDoc(none, none, none, []string{C}), "\n"),
			ours:   strings.TrimSuffix(memDoc([]string{B}, none, none, []string{C}), "\n"),
			theirs: strings.TrimSuffix(memDoc(none, none, none, []string{C, A}), "\n"),
			want:   strings.TrimSuffix(memDoc([]string{B}, none, none, []string{C, A}), "\n"),
		},
		{
			// Found by FuzzMergeMemories: the memory theirs added under a
			// quote line must not land above it, where the parser would
			// take the quote for a stray line of the memory.
			name:   "a new memory stays below prose quote lines",
			base:   "## Patterns\n" + A + "\n## Decisions\n",
			ours:   "## Patterns\n\n## Decisions\n",
			theirs: "## Patterns\n\n> a quote\n" + C,
			want:   "## Patterns\n\n> a quote\n\n" + C,
		},
		{
			name:   "ours' memory moves below quote lines theirs wrote",
			base:   "## Patterns\n\n## Decisions\n",
			ours:   "## Patterns\n\n" + A + "\n## Decisions\n",
			theirs: "## Patterns\n\n> a quote\n## Decisions\n",
			want:   "## Patterns\n\n> a quote\n\n" + A + "## Decisions\n",
		},
		{
			// Found by FuzzMergeMemories.
			name:   "a section heading both sides added in different places is kept once",
			base:   "\n\n## Fixes\n",
			ours:   "## Decisions\n\n## Fixes\n",
			theirs: "\n\n## Decisions",
			want:   "## Decisions\n\n",
		},
		{
			name:   "theirs' heading above ours' new memory does not change its type",
			base:   "## Patterns\n\n" + A,
			ours:   "## Patterns\n\n" + B + "\n" + A,
			theirs: "## Patterns\n## Decisions\n\n" + A,
			want:   "## Patterns\n\n" + B + "## Decisions\n\n" + A,
		},
		{
			name:   "hand-written sections and prose stay",
			base:   "# Memories\nKept by hand.\n\n## Patterns\n\n" + A + "\n## Notes\nFree text.\n",
			ours:   "# Memories\nKept by hand.\n\n## Patterns\n\n" + B + "\n" + A + "\n## Notes\nFree text.\n",
			theirs: "# Memories\nKept by hand.\n\n## Patterns\n\n" + A + "\n## Notes\nFree text, and more.\n\n## Context\n\n" + C,
			want:   "# Memories\nKept by hand.\n\n## Patterns\n\n" + B + "\n" + A + "\n## Notes\nFree text, and more.\n\n## Context\n\n" + C,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mergeOK(t, entry.MemoriesPath, tt.base, tt.ours, tt.theirs)
			if string(res.Data) != tt.want || res.Conflicts != tt.conflicts {
				t.Fatalf("%d conflicts:\n%s\nwant %d:\n%s", res.Conflicts, res.Data, tt.conflicts, tt.want)
			}
			if res.Conflicts == 0 {
				if ws := parseMemories(res.Data, "").warnings; len(ws) > 0 {
					t.Fatalf("warnings: %v", ws)
				}
			}
		})
	}
}

// TestMergeMemoriesIDCollision: memories added on two branches under one
// id with different texts (4 random hex digits a second: clones writing
// at once draw the same) are both kept, whichever way the branches are
// merged, with the same ids either way; the new id avoids every id the
// three sides hold; Renamed names it.
func TestMergeMemoriesIDCollision(t *testing.T) {
	ours := memDoc([]string{blk(idA, "ours' memory"), blk(idB, "B")}, nil, []string{blk(idX, "an id taken")}, nil)
	theirs := memDoc([]string{blk(idA, "theirs' memory")}, nil, nil, nil)
	// The id theirs' memory would get first is taken in ours.
	first := collisionIDFor(t, "theirs' memory")
	ours = strings.Replace(ours, idX, first, 1)
	base := memDoc(nil, nil, nil, nil)

	one := mergeOK(t, entry.MemoriesPath, base, ours, theirs)
	other := mergeOK(t, entry.MemoriesPath, base, theirs, ours)
	if one.Conflicts != 0 || other.Conflicts != 0 {
		t.Fatalf("conflicts: %d and %d:\n%s", one.Conflicts, other.Conflicts, one.Data)
	}
	ids := func(data []byte) map[string]string {
		m := map[string]string{}
		for _, mem := range parseMemories(data, "").memories {
			if _, dup := m[mem.ID]; dup {
				t.Fatalf("id %s twice in\n%s", mem.ID, data)
			}
			m[mem.ID] = mem.Content
		}
		return m
	}
	a, b := ids(one.Data), ids(other.Data)
	if !maps.Equal(a, b) || len(a) != 4 {
		t.Fatalf("the two directions differ or lose a memory:\n%v\n%v", a, b)
	}
	if a[idA] != "ours' memory" {
		t.Errorf("%s is %q, want ours' memory (it sorts first)", idA, a[idA])
	}
	if len(one.Renamed) != 1 || one.Renamed[0].Was != idA || one.Renamed[0].Side != "theirs" || a[one.Renamed[0].ID] != "theirs' memory" || one.Renamed[0].ID == first {
		t.Errorf("Renamed = %+v", one.Renamed)
	}
	if len(other.Renamed) != 1 || other.Renamed[0].Side != "ours" || other.Renamed[0].ID != one.Renamed[0].ID {
		t.Errorf("the other way, Renamed = %+v", other.Renamed)
	}
	// The same memory added on both sides is one memory, renamed never.
	same := mergeOK(t, entry.MemoriesPath, base, theirs, theirs)
	if len(same.Renamed) != 0 || string(same.Data) != theirs {
		t.Errorf("the same addition on both sides: %+v\n%s", same.Renamed, same.Data)
	}
}

// collisionIDFor is the first id a colliding Pattern memory with text
// gets under idA.
func collisionIDFor(t *testing.T, text string) string {
	t.Helper()
	lo := layoutMemories([]byte(memDoc([]string{blk(idA, text)}, nil, nil, nil)))
	return collisionID(lo.byID[idA], func(string) bool { return false })
}

func TestMergeMemoriesMatchesInsertMemory(t *testing.T) {
	// Where theirs adds one memory to a section ours has no memory in, the
	// merge puts it where mdstore.InsertMemory would have: under the header, or in
	// a new section in canonical order.
	b := entry.Memory{ID: idB, Type: entry.Pattern, Content: "B", Tags: []string{"t"}, Created: "2026-01-01"}
	fix := entry.Memory{ID: idC, Type: entry.Fix, Content: "C", Tags: []string{"t"}, Created: "2026-01-01"}
	check := func(base, ours, theirs, want []byte) {
		t.Helper()
		res := mergeOK(t, entry.MemoriesPath, string(base), string(ours), string(theirs))
		if string(res.Data) != string(want) || res.Conflicts != 0 {
			t.Fatalf("%d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, want)
		}
	}

	// Both sides create the missing Fixes section: once.
	noFixes := []byte("# Memories\n\n## Patterns\n\n## Decisions\n\n## Context\n")
	ours := entry.InsertMemory(entry.InsertMemory(noFixes, b), entry.Memory{ID: idX, Type: entry.Fix, Content: "X", Tags: []string{"t"}, Created: "2026-01-01"})
	check(noFixes, ours, entry.InsertMemory(noFixes, fix), entry.InsertMemory(ours, fix))

	// Theirs adds to a section ours has no memory in.
	template := []byte(entry.MemoriesTemplate)
	ours = entry.InsertMemory(template, b)
	check(template, ours, entry.InsertMemory(template, fix), entry.InsertMemory(ours, fix))

	// Ours dropped the Fixes heading: the merge creates it again.
	ours = []byte(strings.Replace(string(entry.InsertMemory(template, b)), "## Fixes\n\n", "", 1))
	check(template, ours, entry.InsertMemory(template, fix), entry.InsertMemory(ours, fix))

	// Ours emptied the file: theirs' new memory starts from the template.
	check(template, []byte{}, entry.InsertMemory(template, fix), entry.InsertMemory(nil, fix))
}

// TestMergeMemoriesAcceptance is the check: two branches add a
// hundred memories each, one edits a memory and the other deletes one.
func TestMergeMemoriesAcceptance(t *testing.T) {
	mem := func(unix int, n int, typ entry.MemoryType, who string) entry.Memory {
		return entry.Memory{ID: fmt.Sprintf("mem-%d-%04x", unix, n), Type: typ, Content: fmt.Sprintf("%s memory %d\nsecond line", who, n), Tags: []string{who}, Created: "2026-03-01"}
	}
	var base []byte
	var baseIDs []string
	for i := 0; i < 12; i++ {
		m := mem(1_700_000_000+i, i, entry.MemoryTypes[i%4], "base")
		base = entry.InsertMemory(base, m)
		baseIDs = append(baseIDs, m.ID)
	}
	edited, deleted := baseIDs[5], baseIDs[2]
	ours, theirs := base, base
	var added []string
	for i := 0; i < 100; i++ {
		o := mem(1_800_000_000+2*i, 0x1000+i, entry.MemoryTypes[i%4], "ours")
		th := mem(1_800_000_001+2*i, 0x2000+i, entry.MemoryTypes[(i/3)%4], "theirs")
		ours, theirs = entry.InsertMemory(ours, o), entry.InsertMemory(theirs, th)
		added = append(added, o.ID, th.ID)
	}
	oldBlock := entry.FormatMemory(parseMemoriesByID(t, ours)[edited])
	editedMemory := parseMemoriesByID(t, ours)[edited]
	editedMemory.Content = "edited on ours"
	ours = []byte(strings.Replace(string(ours), oldBlock, entry.FormatMemory(editedMemory), 1))
	theirs, _ = entry.RemoveMemory(theirs, deleted)

	res := mergeOK(t, entry.MemoriesPath, string(base), string(ours), string(theirs))
	if res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
	f := parseMemories(res.Data, entry.MemoriesPath)
	if len(f.warnings) > 0 {
		t.Fatalf("warnings: %v", f.warnings)
	}
	want := append(slices.DeleteFunc(slices.Clone(baseIDs), func(id string) bool { return id == deleted }), added...)
	sort.Strings(want)
	if got := memoryIDs(res.Data); !reflect.DeepEqual(got, want) {
		t.Fatalf("ids: got %d, want %d", len(got), len(want))
	}
	byID := parseMemoriesByID(t, res.Data)
	if byID[edited].Content != "edited on ours" {
		t.Fatalf("edit lost: %+v", byID[edited])
	}
	last := map[entry.MemoryType]int64{}
	for _, m := range f.memories {
		if prev, ok := last[m.Type]; ok && m.Unix() > prev {
			t.Fatalf("%s is above an older memory in %s", m.ID, m.Type.Section())
		}
		last[m.Type] = m.Unix()
		want := m.Type
		switch m.Tags[0] {
		case "ours":
			want = entry.MemoryTypes[(m.Unix()-1_800_000_000)/2%4]
		case "theirs":
			want = entry.MemoryTypes[(m.Unix()-1_800_000_001)/2/3%4]
		}
		if m.Type != want {
			t.Fatalf("%s is in %s, want %s", m.ID, m.Type, want)
		}
	}
}

func parseMemoriesByID(t *testing.T, src []byte) map[string]entry.Memory {
	t.Helper()
	out := map[string]entry.Memory{}
	for _, m := range parseMemories(src, "").memories {
		m.Line = 0
		out[m.ID] = m
	}
	return out
}

// TestMergeMemoriesConflictOnlyAroundTheEntry: the one memory both sides
// changed differently is the only text between markers.
func TestMergeMemoriesConflictOnlyAroundTheEntry(t *testing.T) {
	var base []byte
	for i := 0; i < 20; i++ {
		base = entry.InsertMemory(base, entry.Memory{ID: fmt.Sprintf("mem-%d-%04x", 1_700_000_000+i, i), Type: entry.MemoryTypes[i%4], Content: fmt.Sprintf("memory %d", i), Tags: []string{"t"}, Created: "2026-03-01"})
	}
	target := "mem-1700000009-0009"
	old := "> memory 9\n"
	ours := entry.InsertMemory([]byte(strings.Replace(string(base), old, "> memory 9, ours\n", 1)), entry.Memory{ID: "mem-1800000000-aaaa", Type: entry.Fix, Content: "new on ours", Tags: []string{"t"}, Created: "2026-03-02"})
	theirs := entry.InsertMemory([]byte(strings.Replace(string(base), old, "> memory 9, theirs\n", 1)), entry.Memory{ID: "mem-1800000001-bbbb", Type: entry.Fix, Content: "new on theirs", Tags: []string{"t"}, Created: "2026-03-02"})
	res := mergeOK(t, entry.MemoriesPath, string(base), string(ours), string(theirs))
	if res.Conflicts != 1 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
	text := string(res.Data)
	start, end := strings.Index(text, "<<<<<<< ours\n"), strings.Index(text, ">>>>>>> theirs\n")
	if start < 0 || end < start || strings.Count(text, "<<<<<<<") != 1 {
		t.Fatalf("markers:\n%s", text)
	}
	inside := text[start:end]
	want := "<<<<<<< ours\n### " + target + "\n> memory 9, ours\n<!-- tags: t | created: 2026-03-01 -->\n=======\n### " + target + "\n> memory 9, theirs\n<!-- tags: t | created: 2026-03-01 -->\n"
	if inside != want {
		t.Fatalf("inside the markers:\n%s\nwant:\n%s", inside, want)
	}
	// Outside the markers, the file is the clean merge with ours' version.
	resolved := text[:start] + strings.TrimPrefix(want[:strings.Index(want, "=======\n")], "<<<<<<< ours\n") + text[end+len(">>>>>>> theirs\n"):]
	if ws := parseMemories([]byte(resolved), "").warnings; len(ws) > 0 {
		t.Fatalf("warnings once resolved: %v\n%s", ws, resolved)
	}
	if got := len(parseMemories([]byte(resolved), "").memories); got != 22 {
		t.Fatalf("%d memories once resolved", got)
	}
}

func TestMergeMemoriesIdentities(t *testing.T) {
	for _, name := range []string{"seed-example.md", "chaos.md"} {
		x := string(readTestdata(t, name))
		y := string(entry.InsertMemory([]byte(x), entry.Memory{ID: "mem-1900000000-abcd", Type: entry.Context, Content: "new", Tags: []string{"t"}, Created: "2030-01-01"}))
		checkMergeIdentities(t, entry.MemoriesPath, x, y)
		checkMergeIdentities(t, entry.MemoriesPath, y, x)
	}
}

func checkMergeIdentities(t *testing.T, path, base, x string) {
	t.Helper()
	for _, c := range []struct{ base, ours, theirs string }{{base, x, base}, {base, base, x}, {base, x, x}} {
		res := mergeOK(t, path, c.base, c.ours, c.theirs)
		if string(res.Data) != x || res.Conflicts != 0 {
			t.Fatalf("merge(%q, %q, %q) = %q, %d conflicts; want %q", c.base, c.ours, c.theirs, res.Data, res.Conflicts, x)
		}
	}
}

// --- files with frontmatter ---

const knowledgePath = entry.KnowledgeDir + "/cargo-bench-requires-nightly.md"

const knowledgeBase = `---
title: "Cargo bench requires nightly"
tags: [testing, cargo]
feature: "perf-optimization"
created_at: "2026-02-17T12:00:00Z"
---

Running cargo bench requires the nightly toolchain.

Use rustup run nightly cargo bench.
`

func TestMergeKnowledge(t *testing.T) {
	edit := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(knowledgeBase) }
	tests := []struct {
		name, ours, theirs, want string
		conflicts                int
	}{
		{
			name:   "tags added on both sides",
			ours:   edit("[testing, cargo]", "[testing, cargo, nightly]"),
			theirs: edit("[testing, cargo]", "[testing, cargo, rust]"),
			want:   edit("[testing, cargo]", "[testing, cargo, nightly, rust]"),
		},
		{
			name:   "tags removed on one side, added on the other",
			ours:   edit("[testing, cargo]", "[cargo, testing, 'perf: tools']"),
			theirs: edit("[testing, cargo]", "[cargo, rust]"),
			want:   edit("[testing, cargo]", "[cargo, \"perf: tools\", rust]"),
		},
		{
			name:   "a field changed on one side keeps that side's text",
			ours:   edit("[testing, cargo]", "[testing, cargo, nightly]"),
			theirs: edit(`feature: "perf-optimization"`, "feature: 'perf'  # renamed"),
			want:   edit("[testing, cargo]", "[testing, cargo, nightly]", `feature: "perf-optimization"`, "feature: 'perf'  # renamed"),
		},
		{
			name:   "a field removed on one side",
			ours:   edit("nightly toolchain", "nightly toolchain (1.80)"),
			theirs: edit("feature: \"perf-optimization\"\n", ""),
			want:   edit("nightly toolchain", "nightly toolchain (1.80)", "feature: \"perf-optimization\"\n", ""),
		},
		{
			name:   "fields added on both sides",
			ours:   edit("---\n\n", "sources:\n  - path: \"Cargo.toml\"\n    blob: 1a2b\n---\n\n"),
			theirs: edit("created_at: \"2026-02-17T12:00:00Z\"\n", "created_at: \"2026-02-17T12:00:00Z\"\nupdated_at: \"2026-02-18T12:00:00Z\"\n"),
			want:   edit("created_at: \"2026-02-17T12:00:00Z\"\n---\n", "created_at: \"2026-02-17T12:00:00Z\"\nupdated_at: \"2026-02-18T12:00:00Z\"\nsources:\n  - path: \"Cargo.toml\"\n    blob: 1a2b\n---\n"),
		},
		{
			name:   "sources added on both sides",
			ours:   edit("---\n\n", "sources:\n  - path: \"Cargo.toml\"\n    blob: 1a2b\n---\n\n"),
			theirs: edit("---\n\n", "sources:\n  - path: \"rust-toolchain\"\n---\n\n"),
			want:   edit("---\n\n", "sources:\n  - path: \"Cargo.toml\"\n    blob: 1a2b\n  - path: \"rust-toolchain\"\n---\n\n"),
		},
		{
			name:   "the body changed on one side",
			ours:   edit("[testing, cargo]", "[testing, cargo, nightly]"),
			theirs: edit("Use rustup", "Run rustup"),
			want:   edit("[testing, cargo]", "[testing, cargo, nightly]", "Use rustup", "Run rustup"),
		},
		{
			name:   "the body changed on both sides in different paragraphs",
			ours:   edit("nightly toolchain", "nightly toolchain (1.80)"),
			theirs: edit("Use rustup", "Run rustup"),
			want:   edit("nightly toolchain", "nightly toolchain (1.80)", "Use rustup", "Run rustup"),
		},
		{
			name:      "the same body line changed on both sides",
			ours:      edit("Use rustup", "Ours: use rustup"),
			theirs:    edit("Use rustup", "Theirs: use rustup"),
			want:      edit("Use rustup run nightly cargo bench.\n", conflictBlock("Ours: use rustup run nightly cargo bench.\n", "Theirs: use rustup run nightly cargo bench.\n")),
			conflicts: 1,
		},
		{
			name:      "a field changed differently on both sides",
			ours:      edit(`title: "Cargo bench requires nightly"`, `title: "Cargo bench needs nightly"`, "[testing, cargo]", "[testing, cargo, a]"),
			theirs:    edit(`title: "Cargo bench requires nightly"`, `title: "cargo bench: nightly only"`, "[testing, cargo]", "[testing, cargo, b]"),
			want:      edit(`title: "Cargo bench requires nightly"`+"\n", conflictBlock(`title: "Cargo bench needs nightly"`+"\n", `title: "cargo bench: nightly only"`+"\n"), "[testing, cargo]", "[testing, cargo, a, b]"),
			conflicts: 1,
		},
		{
			name:      "a field removed on one side, changed on the other",
			ours:      edit(`feature: "perf-optimization"`, `feature: "perf"`),
			theirs:    edit("feature: \"perf-optimization\"\n", "", "Use", "Run"),
			want:      edit("feature: \"perf-optimization\"\n", conflictBlock("feature: \"perf\"\n", ""), "Use", "Run"),
			conflicts: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mergeOK(t, knowledgePath, knowledgeBase, tt.ours, tt.theirs)
			if string(res.Data) != tt.want || res.Conflicts != tt.conflicts {
				t.Fatalf("%d conflicts:\n%s\nwant %d:\n%s", res.Conflicts, res.Data, tt.conflicts, tt.want)
			}
			if _, ws := entry.ParseFile(knowledgePath, res.Data); len(ws) > 0 && tt.conflicts == 0 {
				t.Fatalf("parse: %v", ws)
			}
		})
	}
}

// TestMergeKnowledgeAcceptance: tags added on both sides, the body edited
// on one and a field on the other; the result parses and holds all.
func TestMergeKnowledgeAcceptance(t *testing.T) {
	base := entry.RenderKnowledge(entry.Knowledge{Title: "Bench on nightly", Tags: []string{"testing", "cargo"}, Feature: "perf", CreatedAt: "2026-02-17T12:00:00Z", Body: "Use nightly."})
	ours := entry.RenderKnowledge(entry.Knowledge{Title: "Bench on nightly", Tags: []string{"testing", "cargo", "nightly", "bench"}, Feature: "perf", CreatedAt: "2026-02-17T12:00:00Z", Body: "Use nightly: rustup run nightly cargo bench."})
	theirs := entry.RenderKnowledge(entry.Knowledge{Title: "Bench on nightly", Tags: []string{"cargo", "rust", "testing"}, Feature: "perf", CreatedAt: "2026-02-17T12:00:00Z", UpdatedAt: "2026-02-18T09:00:00Z", Body: "Use nightly."})
	res := mergeOK(t, knowledgePath, string(base), string(ours), string(theirs))
	if res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
	fe, ws := entry.ParseFile(knowledgePath, res.Data)
	if len(ws) > 0 {
		t.Fatalf("%v\n%s", ws, res.Data)
	}
	k := fe.Knowledge
	if want := []string{"testing", "cargo", "nightly", "bench", "rust"}; !reflect.DeepEqual(k.Tags, want) {
		t.Fatalf("tags %v, want %v", k.Tags, want)
	}
	if k.Body != "Use nightly: rustup run nightly cargo bench." || k.UpdatedAt != "2026-02-18T09:00:00Z" {
		t.Fatalf("%+v", k)
	}
}

const journalPath0004 = entry.JournalDir + "/run-0a1b2c3d/0004.md"

func TestMergeJournalFailureMap(t *testing.T) {
	base := string(readTestdata(t, "journal.golden.md"))
	edit := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(base) }
	// Ours: a better what_tried and a file; theirs: a new category and
	// another file. The failure map merges key by key.
	ours := edit(`what_tried: "Created all four tables in one batch"`, `what_tried: "Created the tables in one batch"`, "relevant_files: [src/dag/db.rs]", "relevant_files: [src/dag/db.rs, src/dag/schema.rs]", "files_modified: [src/parser.rs]", "files_modified: [src/parser.rs, a.rs]")
	theirs := edit(`error_category: "dependency_error"`, `error_category: "schema_error"`, "relevant_files: [src/dag/db.rs]", "relevant_files: [src/dag/migrate.rs, src/dag/db.rs]", "files_modified: [src/parser.rs]", "files_modified: [b.rs, src/parser.rs]")
	res := mergeOK(t, journalPath0004, base, ours, theirs)
	if res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
	want := edit("files_modified: [src/parser.rs]", "files_modified: [src/parser.rs, a.rs, b.rs]",
		`what_tried: "Created all four tables in one batch"`, `what_tried: "Created the tables in one batch"`,
		`error_category: "dependency_error"`, `error_category: "schema_error"`,
		"relevant_files: [src/dag/db.rs]", "relevant_files: [src/dag/db.rs, src/dag/schema.rs, src/dag/migrate.rs]")
	if string(res.Data) != want {
		t.Fatalf("got:\n%s\nwant:\n%s", res.Data, want)
	}
	if _, ws := entry.ParseFile(journalPath0004, res.Data); len(ws) > 0 {
		t.Fatal(ws)
	}

	// The same key of the map changed differently: markers around it only.
	ours = edit(`why_failed: "SQLite rejected the foreign key: \"iteration_outcomes\" did not exist yet"`, `why_failed: "ours"`, "outcome: failed", "outcome: retried")
	theirs = edit(`why_failed: "SQLite rejected the foreign key: \"iteration_outcomes\" did not exist yet"`, `why_failed: "theirs"`, `retry_suggestion: "Create iteration_outcomes first."`, `retry_suggestion: "Create it first."`)
	res = mergeOK(t, journalPath0004, base, ours, theirs)
	want = edit("outcome: failed", "outcome: retried",
		`  why_failed: "SQLite rejected the foreign key: \"iteration_outcomes\" did not exist yet"`+"\n", conflictBlock(`  why_failed: "ours"`+"\n", `  why_failed: "theirs"`+"\n"),
		`retry_suggestion: "Create iteration_outcomes first."`, `retry_suggestion: "Create it first."`)
	if string(res.Data) != want || res.Conflicts != 1 {
		t.Fatalf("%d conflicts:\n%s\nwant:\n%s", res.Conflicts, res.Data, want)
	}
}

func TestMergeLearning(t *testing.T) {
	path := entry.LearningsDir + "/l-1a2b3c.md"
	base := string(readTestdata(t, "learning.golden.md"))
	edit := func(pairs ...string) string { return strings.NewReplacer(pairs...).Replace(base) }
	ours := edit("source_runs: [run-0a1b2c3d]", "source_runs: [run-0a1b2c3d, run-11111111]", "confidence: 0.85", "confidence: 0.9")
	theirs := edit("source_runs: [run-0a1b2c3d]", "source_runs: [run-0a1b2c3d, run-22222222]", "status: active", "status: staged")
	res := mergeOK(t, path, base, ours, theirs)
	want := edit("source_runs: [run-0a1b2c3d]", "source_runs: [run-0a1b2c3d, run-11111111, run-22222222]", "confidence: 0.85", "confidence: 0.9", "status: active", "status: staged")
	if string(res.Data) != want || res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
	if _, ws := entry.ParseFile(path, res.Data); len(ws) > 0 {
		t.Fatal(ws)
	}
	checkMergeIdentities(t, path, base, ours)
}

func TestMergeSkill(t *testing.T) {
	path := ".claude/skills/deploy/SKILL.md"
	base := "---\nname: deploy\ndescription: Deploys the service.\n---\n\n# Deploy\n\n1. Build.\n2. Ship.\n"
	ours := "---\nname: deploy\ndescription: Deploys the service.\n---\n\n# Deploy\n\n1. Build and test.\n2. Ship.\n"
	theirs := "---\nname: deploy\ndescription: Deploys the service to production.\nallowed-tools: Bash\n---\n\n# Deploy\n\n1. Build.\n2. Ship.\n"
	res := mergeOK(t, path, base, ours, theirs)
	want := "---\nname: deploy\ndescription: Deploys the service to production.\nallowed-tools: Bash\n---\n\n# Deploy\n\n1. Build and test.\n2. Ship.\n"
	if string(res.Data) != want || res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
}

func TestMergeFrontmatterFallsBackToLines(t *testing.T) {
	// Ours' frontmatter is not YAML: the whole file merges by lines.
	ours := strings.Replace(knowledgeBase, "tags: [testing, cargo]", "tags: [testing, cargo", 1)
	theirs := strings.Replace(knowledgeBase, "Use rustup", "Run rustup", 1)
	res := mergeOK(t, knowledgePath, knowledgeBase, ours, theirs)
	if want := strings.Replace(ours, "Use rustup", "Run rustup", 1); string(res.Data) != want || res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
}

func TestMergeFrontmatterRefusesABrokenEntry(t *testing.T) {
	// Each side deletes a different paragraph: the clean merge would be a
	// knowledge entry without a body, which parseKnowledge refuses.
	base := "---\ntitle: \"T\"\ntags: [a]\n---\n\nfirst\n\nsecond\n"
	ours := "---\ntitle: \"T\"\ntags: [a]\n---\n\n\nsecond\n"
	theirs := "---\ntitle: \"T\"\ntags: [a]\n---\n\nfirst\n\n"
	res := mergeOK(t, knowledgePath, base, ours, theirs)
	if res.Conflicts != 1 || string(res.Data) != conflictBlock(ours, theirs) {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
}

func TestMergeFrontmatterAddedOnBothSides(t *testing.T) {
	ours := "---\ntitle: \"T\"\ntags: [a, b]\n---\n\nbody\n"
	theirs := "---\ntitle: \"T\"\ntags: [c]\n---\n\nbody\n"
	res, err := File(knowledgePath, nil, []byte(ours), []byte(theirs), Labels{})
	if err != nil {
		t.Fatal(err)
	}
	if want := "---\ntitle: \"T\"\ntags: [a, b, c]\n---\n\nbody\n"; string(res.Data) != want || res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
}

func TestMergeFrontmatterIdentities(t *testing.T) {
	for _, c := range []struct{ path, file string }{
		{knowledgePath, "knowledge.golden.md"},
		{entry.LearningsDir + "/l-1a2b3c.md", "learning.golden.md"},
		{journalPath0004, "journal.golden.md"},
	} {
		x := string(readTestdata(t, c.file))
		y := strings.Replace(x, "---\n\n", "---\n\nA new first line.\n", 1)
		checkMergeIdentities(t, c.path, x, y)
		checkMergeIdentities(t, c.path, y, x)
	}
}

func TestMergeConfigByLines(t *testing.T) {
	base := "# lore settings\nprime:\n  budget: 4000\nindex:\n  fuzzy: true\n"
	ours := "# lore settings\nprime:\n  budget: 6000\nindex:\n  fuzzy: true\n"
	theirs := "# lore settings\nprime:\n  budget: 4000\nindex:\n  fuzzy: false\n"
	res := mergeOK(t, ".agent/config.yaml", base, ours, theirs)
	if want := "# lore settings\nprime:\n  budget: 6000\nindex:\n  fuzzy: false\n"; string(res.Data) != want || res.Conflicts != 0 {
		t.Fatalf("%d conflicts:\n%s", res.Conflicts, res.Data)
	}
}

// --- fuzzing ---

// mergeFuzzSeeds are base, ours and theirs versions of memories.md.
func mergeFuzzSeeds(t testing.TB) [][3]string {
	none := []string(nil)
	A, A1, A2 := blk(idA, "A"), blk(idA, "A1"), blk(idA, "A2")
	B, C, X := blk(idB, "B"), blk(idC, "C"), blk(idX, "X")
	seeds := [][3]string{
		{memDoc([]string{A, X}, none, none, none), memDoc([]string{B, A1, X}, none, none, none), memDoc([]string{C, A, X}, none, none, none)},
		{memDoc([]string{A, X}, none, none, none), memDoc([]string{A}, []string{B}, none, none), memDoc(none, []string{X}, []string{C}, []string{A2})},
		{"", entry.MemoriesTemplate, memDoc(none, none, none, []string{A})},
		{entry.MemoriesTemplate, "# Memories\n\n## Notes\nhand-written\n\n## Patterns\n\n" + B, "# Memories\n## Patterns\n" + C + "## Fixes\n\n" + X},
	}
	for _, name := range []string{"seed-example.md", "chaos.md"} {
		x := string(readTestdata(t, name))
		seeds = append(seeds, [3]string{x, string(entry.InsertMemory([]byte(x), entry.Memory{ID: idB, Type: entry.Fix, Content: "B", Tags: []string{"t"}, Created: "2026-01-01"})), strings.Replace(x, "barrel", "BARREL", 1)})
	}
	return seeds
}

func FuzzMergeMemories(f *testing.F) {
	for _, s := range mergeFuzzSeeds(f) {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		res, err := File(entry.MemoriesPath, []byte(base), []byte(ours), []byte(theirs), Labels{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct{ base, ours, theirs, want string }{{base, ours, base, ours}, {base, base, theirs, theirs}, {base, ours, ours, ours}} {
			got, err := File(entry.MemoriesPath, []byte(c.base), []byte(c.ours), []byte(c.theirs), Labels{})
			if err != nil || string(got.Data) != c.want || got.Conflicts != 0 {
				t.Fatalf("identity: got %q, %d conflicts, %v; want %q", got.Data, got.Conflicts, err, c.want)
			}
		}
		fb, fo, ft := parseMemories([]byte(base), ""), parseMemories([]byte(ours), ""), parseMemories([]byte(theirs), "")
		if res.Conflicts > 0 || len(fb.warnings)+len(fo.warnings)+len(ft.warnings) > 0 {
			return
		}
		fr := parseMemories(res.Data, "")
		if len(fr.warnings) > 0 {
			t.Fatalf("clean inputs, no conflict, and the result has warnings %v:\n%s", fr.warnings, res.Data)
		}
		// Every memory is where the rules put it, once.
		in := func(f parsed) map[string]entry.Memory {
			out := map[string]entry.Memory{}
			for _, m := range f.memories {
				m.Line = 0
				out[m.ID] = m
			}
			return out
		}
		mb, mo, mt, mr := in(fb), in(fo), in(ft), in(fr)
		for id := range mergeUnionValues(mb, mo, mt) {
			b, inB := mb[id]
			o, inO := mo[id]
			th, inT := mt[id]
			r, inR := mr[id]
			want, keep := o, inO
			switch {
			case inO && inT:
				if inB && reflect.DeepEqual(o, b) {
					want = th
				}
			case inT && !inB:
				want, keep = th, true
			case inO && inB:
				keep = false // deleted by theirs (unchanged by ours, or it would be a conflict)
			}
			if inR != keep || (keep && !reflect.DeepEqual(r, want)) {
				t.Fatalf("%s: got %+v (present %v), want %+v (present %v)\n%s", id, r, inR, want, keep, res.Data)
			}
		}
		if len(fr.memories) != len(mr) {
			t.Fatalf("duplicate memories in\n%s", res.Data)
		}
	})
}

// TestMergeFixtures merges every case under testdata: <name>/base,
// ours, theirs and want (a missing file is a missing side), with the
// store path in <name>/path.
func TestMergeFixtures(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			read := func(name string) []byte {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if err != nil {
					return nil
				}
				return data
			}
			path := strings.TrimSpace(string(read("path")))
			res, err := File(path, read("base"), read("ours"), read("theirs"), Labels{})
			if err != nil {
				t.Fatal(err)
			}
			loretest.Golden(t, filepath.Join("testdata", filepath.Base(dir), "want"), string(res.Data))
			if want := strings.Count(string(res.Data), "\n<<<<<<< ours\n"); res.Conflicts != want {
				t.Fatalf("%d conflicts, %d marked", res.Conflicts, want)
			}
		})
	}
}

// FuzzMergeMemoryEdits builds a base memories.md and two branches of it
// from a script of edits made with lore's own writers (add, delete, edit,
// move, prose), and checks the merge against a model of the rules: the
// conflicts expected and no others, and every other memory where the rules
// put it, once, in a file that parses cleanly.
func FuzzMergeMemoryEdits(f *testing.F) {
	f.Add([]byte{5, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{3, 2, 0, 2, 0, 1, 1, 1, 1, 3, 0, 3, 0})
	f.Add([]byte{8, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63})
	f.Fuzz(func(t *testing.T, script []byte) {
		next := func() int {
			if len(script) == 0 {
				return 0
			}
			b := script[0]
			script = script[1:]
			return int(b)
		}
		clock := 1_700_000_000
		mem := func(typ entry.MemoryType, content string) entry.Memory {
			clock += 1 + next()%3 // sometimes the same second: ids stay distinct by their hex
			return entry.Memory{ID: fmt.Sprintf("mem-%d-%04x", clock/2, clock%65536), Type: typ, Content: content, Tags: []string{"t"}, Created: "2026-01-01"}
		}
		base := []byte(entry.MemoriesTemplate)
		for n := next() % 10; n > 0; n-- {
			base = entry.InsertMemory(base, mem(entry.MemoryTypes[next()%4], fmt.Sprintf("base %d", clock)))
		}
		type value struct {
			typ     entry.MemoryType
			content string
		}
		values := func(src []byte) map[string]value {
			out := map[string]value{}
			for _, m := range parseMemories(src, "").memories {
				out[m.ID] = value{m.Type, m.Content}
			}
			return out
		}
		branch := func(side string, intro string, src []byte) []byte {
			for n := next() % 8; n > 0; n-- {
				ms := parseMemories(src, "").memories
				op, arg := next()%6, next()
				var m entry.Memory
				if len(ms) > 0 {
					m = ms[arg%len(ms)]
				}
				switch {
				case op == 0 || len(ms) == 0:
					src = entry.InsertMemory(src, mem(entry.MemoryTypes[arg%4], side+" added"))
				case op == 1:
					src, _ = entry.RemoveMemory(src, m.ID)
				case op == 2:
					edited := m
					edited.Content = fmt.Sprintf("%s edited %d", side, arg%2) // both sides may make the same edit
					src = []byte(strings.Replace(string(src), entry.FormatMemory(m), entry.FormatMemory(edited), 1))
				case op == 3:
					src, _ = entry.RemoveMemory(src, m.ID)
					m.Type = entry.MemoryTypes[arg%4]
					src = entry.InsertMemory(src, m)
				case op == 4:
					section := "## " + entry.MemoryTypes[arg%2+2*strings.Count(intro, "x")].Section() + "\n"
					src = []byte(strings.Replace(string(src), section, section+intro+"\n", 1))
				default:
					if !slices.ContainsFunc(entry.MemoryBlocks(src), func(b entry.MemoryBlock) bool { return b.ID == "mem-1700000000-0000" }) {
						src = entry.InsertMemory(src, entry.Memory{ID: "mem-1700000000-0000", Type: entry.Context, Content: "added on both", Tags: []string{"t"}, Created: "2026-01-01"})
					}
				}
			}
			return src
		}
		startClock := clock
		ours := branch("ours", "Our intro.", base)
		clock = startClock // theirs' ids may be the same as ours': same id, other text
		theirs := branch("theirs", "Their intro, x.", base)

		res, err := File(entry.MemoriesPath, base, ours, theirs, Labels{})
		if err != nil {
			t.Fatal(err)
		}
		vb, vo, vt := values(base), values(ours), values(theirs)
		want := map[string]value{}
		conflicts := 0
		for id := range mergeUnionValues(vb, vo, vt) {
			b, inB := vb[id]
			o, inO := vo[id]
			th, inT := vt[id]
			switch {
			case inO && inT:
				typ, _, c1 := merge3(b.typ, o.typ, th.typ, inB)
				content, _, c2 := merge3(b.content, o.content, th.content, inB)
				if c1 || c2 {
					conflicts++
					continue
				}
				want[id] = value{typ, content}
			case inO && inB:
				if o != b {
					conflicts++
				}
			case inT && inB:
				if th != b {
					conflicts++
				}
			case inO:
				want[id] = o
			case inT:
				want[id] = th
			}
		}
		if res.Conflicts != conflicts {
			t.Fatalf("%d conflicts, want %d:\n%s\n--- base\n%s\n--- ours\n%s\n--- theirs\n%s", res.Conflicts, conflicts, res.Data, base, ours, theirs)
		}
		if conflicts > 0 {
			return
		}
		f := parseMemories(res.Data, "")
		if len(f.warnings) > 0 {
			t.Fatalf("warnings %v:\n%s\n--- base\n%s\n--- ours\n%s\n--- theirs\n%s", f.warnings, res.Data, base, ours, theirs)
		}
		if got := values(res.Data); !reflect.DeepEqual(got, want) || len(f.memories) != len(want) {
			t.Fatalf("memories\n%v\nwant\n%v\n%s\n--- base\n%s\n--- ours\n%s\n--- theirs\n%s", got, want, res.Data, base, ours, theirs)
		}
	})
}

func mergeUnionValues[V any](ms ...map[string]V) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		for id := range m {
			out[id] = true
		}
	}
	return out
}

// FuzzMergeFrontmatter checks the field-by-field merge: no panic, the
// identities, and a merge without conflicts of three documents it can take
// apart is one it can take apart again, each field as the rules say.
func FuzzMergeFrontmatter(f *testing.F) {
	base := knowledgeBase
	f.Add(base, strings.Replace(base, "[testing, cargo]", "[testing, cargo, a]", 1), strings.Replace(base, "[testing, cargo]", "[cargo, b]", 1))
	f.Add(base, strings.Replace(base, "Use", "Run", 1), strings.Replace(base, "feature: \"perf-optimization\"\n", "", 1))
	j := string(readTestdata(f, "journal.golden.md"))
	f.Add(j, strings.Replace(j, "relevant_files: [src/dag/db.rs]", "relevant_files: [a]", 1), strings.Replace(j, "what_tried:", "why:", 1))
	f.Add("---\na: 1\n---\n", "---\na: {x: [1, {y: z}]}\n---\n", "---\na: {x: [2]}\n---\n")
	f.Fuzz(func(t *testing.T, base, ours, theirs string) {
		for _, path := range []string{knowledgePath, journalPath0004} {
			if _, err := File(path, []byte(base), []byte(ours), []byte(theirs), Labels{}); err != nil {
				t.Fatal(err)
			}
		}
		checkMergeIdentities(t, knowledgePath, base, ours)
		data, n := mergeFrontmatter([]byte(base), []byte(ours), []byte(theirs), Labels{})
		db, okB := splitFrontmatterDoc([]byte(base))
		do, okO := splitFrontmatterDoc([]byte(ours))
		dt, okT := splitFrontmatterDoc([]byte(theirs))
		if n > 0 || !okB || !okO || !okT || ours == "" || theirs == "" {
			return
		}
		dr, ok := splitFrontmatterDoc(data)
		if !ok {
			t.Fatalf("the merge is not a document the merge can read:\n%s", data)
		}
		value := func(d *fmDoc, key string) string {
			for _, f := range d.fields {
				if f.key == key {
					return canonicalYAML(f.node)
				}
			}
			return canonicalYAML(nil)
		}
		keys := map[string]bool{}
		for _, d := range []*fmDoc{db, do, dt, dr} {
			for _, f := range d.fields {
				keys[f.key] = true
			}
		}
		for key := range keys {
			b, o, th, r := value(db, key), value(do, key), value(dt, key), value(dr, key)
			want := o
			switch {
			case o == th, th == b:
			case o == b:
				want = th
			default:
				continue // merged: a union or a mapping merged key by key
			}
			if r != want {
				t.Fatalf("field %s: got %s, want %s\n%s", key, r, want, data)
			}
		}
	})
}

// TestMergeRenderYAMLRoundTrip: a field the merge renders reads back as
// the same value.
func TestMergeRenderYAMLRoundTrip(t *testing.T) {
	doc := `plain: word
quoted: "a: b # c"
single: 'it''s'
yes_string: "yes"
number_string: "1.5"
number: 1.5
int: 42
bool: true
null_value:
tilde: ~
time: 2026-02-17T12:00:00Z
literal: |
  two
  lines
folded: >
  folded
  text
unicode: "line\u2028separator\ttab"
tags: [a, "B", "x, y", 'true', 3]
empty_list: []
empty_map: {}
"key with space": v
sources:
  - path: "a.go"
    blob: 1a2b
  - b.go
  - {}
  - [nested, list]
failure:
  what_tried: "x"
  relevant_files: [a]
  deeper:
    k: [1, {m: n}]
binary: !!binary aGVsbG8=
custom: !thing value
`
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	for _, f := range fieldsOf(root.Content[0]) {
		text := renderYAMLField("", f.key, f.node)
		var back yaml.Node
		if err := yaml.Unmarshal([]byte(text), &back); err != nil {
			t.Fatalf("%s: %v\n%s", f.key, err, text)
		}
		got := fieldsOf(back.Content[0])
		if len(got) != 1 || got[0].key != f.key || canonicalYAML(got[0].node) != canonicalYAML(f.node) {
			t.Fatalf("%s rendered as\n%s\nreads back as %v", f.key, text, got)
		}
	}
}
