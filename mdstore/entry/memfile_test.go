package entry

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lore/internal/loretest"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func warningsText(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

func TestParseSeedExample(t *testing.T) {
	t.Parallel()
	f := ParseMemoriesFile(readTestdata(t, "seed-example.md"), MemoriesPath)
	var ids []string
	for _, m := range f.Memories {
		ids = append(ids, string(m.Type)+" "+m.ID+" "+strings.Join(m.Tags, ",")+" "+m.Created)
	}
	// The seed's own example uses two ids ("g7h8", "i9j0") that its own
	// MEMORY_ID_RE rejects; lore reads them as the seed's parser does
	// (not at all) and says so.
	want := []string{
		"pattern mem-1737372000-a1b2 imports,structure 2025-01-20",
		"pattern mem-1737372100-c3d4 workflow,testing 2025-01-20",
		"decision mem-1737380000-e5f6 architecture,storage 2025-01-20",
	}
	if strings.Join(ids, "\n") != strings.Join(want, "\n") {
		t.Fatalf("memories:\n%s", strings.Join(ids, "\n"))
	}
	if f.Memories[0].Content != "This codebase uses barrel exports for all module boundaries.\nEach directory has an index.ts that re-exports public API." {
		t.Fatalf("content = %q", f.Memories[0].Content)
	}
	loretest.Golden(t, "testdata/seed-example.warnings", warningsText(f.Warnings))
}

func TestParseChaos(t *testing.T) {
	t.Parallel()
	f := ParseMemoriesFile(readTestdata(t, "chaos.md"), MemoriesPath)
	if len(f.Memories) != 2 {
		t.Fatalf("memories = %+v", f.Memories)
	}
	valid := f.Memories[0]
	if valid.ID != "mem-1737372000-a1b2" || valid.Content != "The one valid memory.\nIt spans two lines." || strings.Join(valid.Tags, ",") != "valid,chaos" {
		t.Fatalf("valid memory = %+v", valid)
	}
	// The block with the unclosed comment still has content: it is read,
	// without tags, dated from its id, and reported.
	if f.Memories[1].ID != "mem-1737372100-c3d4" || f.Memories[1].Created != "2025-01-20" {
		t.Fatalf("second memory = %+v", f.Memories[1])
	}
	loretest.Golden(t, "testdata/chaos.warnings", warningsText(f.Warnings))
}

func TestAddThenDeleteRestoresEveryByte(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"seed-example.md", "chaos.md"} {
		original := readTestdata(t, name)
		for _, typ := range MemoryTypes {
			m := Memory{ID: "mem-1800000000-beef", Type: typ, Content: "new\n\nmemory ✓", Tags: []string{"a", "b"}, Created: "2027-01-15"}
			added := InsertMemory(original, m)
			f := ParseMemoriesFile(added, "")
			var found *Memory
			for i := range f.Memories {
				if f.Memories[i].ID == m.ID {
					found = &f.Memories[i]
				}
			}
			if found == nil || found.Type != typ || found.Content != m.Content {
				t.Fatalf("%s/%s: added memory read back as %+v", name, typ, found)
			}
			removed, ok := RemoveMemory(added, m.ID)
			if !ok || !bytes.Equal(removed, original) {
				t.Fatalf("%s/%s: add then delete changed the file:\n%s", name, typ, removed)
			}
		}
	}
}

func TestAddGoesDirectlyUnderTheSectionHeader(t *testing.T) {
	t.Parallel()
	src := readTestdata(t, "seed-example.md")
	m := Memory{ID: "mem-1800000000-beef", Type: Decision, Content: "Chose Go.", Tags: []string{"lang"}, Created: "2027-01-15"}
	got := string(InsertMemory(src, m))
	want := strings.Replace(string(src), "## Decisions\n", "## Decisions\n\n### mem-1800000000-beef\n> Chose Go.\n<!-- tags: lang | created: 2027-01-15 -->\n", 1)
	if got != want {
		t.Fatalf("got:\n%s", got)
	}
}

func TestAddToEmptyOrMissingFileUsesTheTemplate(t *testing.T) {
	t.Parallel()
	m := Memory{ID: "mem-1800000000-beef", Type: Fix, Content: "x", Tags: []string{}, Created: "2027-01-15"}
	want := "# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n### mem-1800000000-beef\n> x\n<!-- tags:  | created: 2027-01-15 -->\n\n## Context\n"
	for _, src := range []string{"", "\n\n"} {
		if got := string(InsertMemory([]byte(src), m)); got != want {
			t.Fatalf("got:\n%q", got)
		}
	}
}

func TestMissingSectionIsCreatedInCanonicalOrder(t *testing.T) {
	t.Parallel()
	src := "# Memories\n\n## Patterns\n\n## Context\n\n### mem-1-aaaa\n> c\n<!-- tags: x | created: 2025-01-01 -->\n"
	m := Memory{ID: "mem-1800000000-beef", Type: Fix, Content: "fix it", Tags: []string{"t"}, Created: "2027-01-15"}
	got := string(InsertMemory([]byte(src), m))
	want := "# Memories\n\n## Patterns\n\n## Fixes\n\n### mem-1800000000-beef\n> fix it\n<!-- tags: t | created: 2027-01-15 -->\n\n## Context\n\n### mem-1-aaaa\n> c\n<!-- tags: x | created: 2025-01-01 -->\n"
	if got != want {
		t.Fatalf("got:\n%s", got)
	}
	// With no later section the new one goes at the end.
	src = "# Memories\n\n## Patterns\nno trailing newline"
	m.Type = Context
	got = string(InsertMemory([]byte(src), m))
	want = src + "\n\n## Context\n\n### mem-1800000000-beef\n> fix it\n<!-- tags: t | created: 2027-01-15 -->\n"
	if got != want {
		t.Fatalf("got:\n%q", got)
	}
}

func TestIntroParagraphStaysWithItsHeader(t *testing.T) {
	t.Parallel()
	src := "# Memories\n\n## Patterns\nHow this codebase does things.\n\n### mem-1-aaaa\n> old\n<!-- tags: x | created: 2025-01-01 -->\n"
	m := Memory{ID: "mem-1800000000-beef", Type: Pattern, Content: "new", Tags: []string{}, Created: "2027-01-15"}
	got := string(InsertMemory([]byte(src), m))
	want := "# Memories\n\n## Patterns\nHow this codebase does things.\n\n### mem-1800000000-beef\n> new\n<!-- tags:  | created: 2027-01-15 -->\n\n### mem-1-aaaa\n> old\n<!-- tags: x | created: 2025-01-01 -->\n"
	if got != want {
		t.Fatalf("got:\n%s", got)
	}
	if f := ParseMemoriesFile([]byte(got), ""); len(f.Warnings) != 0 || len(f.Memories) != 2 {
		t.Fatalf("warnings %v", f.Warnings)
	}
}

func TestDeleteRemovesOnlyThatBlock(t *testing.T) {
	t.Parallel()
	src := readTestdata(t, "seed-example.md")
	got, ok := RemoveMemory(src, "mem-1737372100-c3d4")
	if !ok {
		t.Fatal("not found")
	}
	want := strings.Replace(string(src), "\n### mem-1737372100-c3d4\n> Always run `cargo test` before declaring tasks complete.\n<!-- tags: workflow, testing | created: 2025-01-20 -->\n", "", 1)
	if string(got) != want {
		t.Fatalf("got:\n%s", got)
	}
	if _, ok := RemoveMemory(src, "mem-9-ffff"); ok {
		t.Fatal("removed a memory that does not exist")
	}
}

func TestCRLFFilesAreRead(t *testing.T) {
	t.Parallel()
	src := strings.ReplaceAll(string(readTestdata(t, "seed-example.md")), "\n", "\r\n")
	f := ParseMemoriesFile([]byte(src), "")
	if len(f.Memories) != 3 || f.Memories[0].Content != "This codebase uses barrel exports for all module boundaries.\nEach directory has an index.ts that re-exports public API." {
		t.Fatalf("memories = %+v", f.Memories)
	}
}

// The seed's parser (seed 001, section 6), transcribed with its regular
// expressions, is the compatibility oracle: what lore writes, it must read.
var (
	seedSectionRE  = regexp.MustCompile(`^## (Patterns|Decisions|Fixes|Context)`)
	seedMemoryIDRE = regexp.MustCompile(`^### (mem-\d+-[0-9a-f]{4})`)
	seedContentRE  = regexp.MustCompile(`^> (.+)$`)
	seedMetadataRE = regexp.MustCompile(`<!-- tags: ([^|]*) \| created: (\d{4}-\d{2}-\d{2}) -->`)
)

func seedParse(markdown string) []Memory {
	var out []Memory
	currentType := Pattern
	var id string
	var content, tags []string
	var created string
	flush := func() {
		if id != "" && len(content) > 0 {
			out = append(out, Memory{ID: id, Type: currentType, Content: strings.Join(content, "\n"), Tags: tags, Created: created})
		}
		id, content, tags, created = "", nil, nil, ""
	}
	for _, line := range strings.Split(strings.TrimSuffix(markdown, "\n"), "\n") {
		if m := seedSectionRE.FindStringSubmatch(line); m != nil {
			flush()
			currentType, _ = typeOfSection(m[1])
		} else if m := seedMemoryIDRE.FindStringSubmatch(line); m != nil {
			flush()
			id = m[1]
		} else if m := seedContentRE.FindStringSubmatch(line); m != nil {
			content = append(content, m[1])
		} else if m := seedMetadataRE.FindStringSubmatch(line); m != nil {
			tags = nil
			for _, tag := range strings.Split(m[1], ",") {
				if tag = strings.TrimSpace(tag); tag != "" {
					tags = append(tags, tag)
				}
			}
			created = m[2]
		}
	}
	flush()
	return out
}

func TestWrittenFileIsReadableBySeedRegexes(t *testing.T) {
	t.Parallel()
	src := []byte(MemoriesTemplate)
	memories := []Memory{
		{ID: "mem-1800000000-0001", Type: Pattern, Content: "Barrel exports everywhere.", Tags: []string{"imports"}, Created: "2027-01-15"},
		{ID: "mem-1800000001-0002", Type: Decision, Content: "Chose Postgres.\nBecause of concurrent writes.", Tags: []string{"db", "arch"}, Created: "2027-01-15"},
		{ID: "mem-1800000002-0003", Type: Fix, Content: "日本語のメモ 🔧 — « ça marche »", Tags: []string{"i18n"}, Created: "2027-01-16"},
		{ID: "mem-1800000003-0004", Type: Context, Content: "  indented line\n> quoted\n<!-- not metadata -->", Tags: []string{}, Created: "2027-01-16"},
	}
	for _, m := range memories {
		src = InsertMemory(src, m)
	}
	seed := seedParse(string(src))
	ours := ParseMemoriesFile(src, "").Memories
	if len(seed) != len(memories) || len(ours) != len(memories) {
		t.Fatalf("seed read %d, lore read %d memories:\n%s", len(seed), len(ours), src)
	}
	for i := range seed {
		if seed[i].ID != ours[i].ID || seed[i].Type != ours[i].Type || seed[i].Content != ours[i].Content ||
			strings.Join(seed[i].Tags, ",") != strings.Join(ours[i].Tags, ",") || seed[i].Created != ours[i].Created {
			t.Fatalf("memory %d: seed %+v, lore %+v", i, seed[i], ours[i])
		}
	}
}

func TestBlankContentLinesRoundTrip(t *testing.T) {
	t.Parallel()
	m := Memory{ID: "mem-1800000000-beef", Type: Pattern, Content: "first\n\nthird", Tags: []string{}, Created: "2027-01-15"}
	src := InsertMemory(nil, m)
	if !strings.Contains(string(src), "> first\n>\n> third\n") {
		t.Fatalf("written as:\n%s", src)
	}
	if got := ParseMemoriesFile(src, "").Memories[0].Content; got != m.Content {
		t.Fatalf("read back %q", got)
	}
}

func FuzzParseMemories(f *testing.F) {
	for _, name := range []string{"seed-example.md", "chaos.md"} {
		f.Add(readTestdata(f, name), "content")
	}
	f.Add([]byte("## Fixes\n### mem-1-abcd\n>"), "a\n\nb")
	f.Add([]byte("# Memories\r\n\r\n##\tFixes  \r\nIntro.\r\n\r\n## Patterns\n### mem-1800000000-beef\n## Fixes\n"), "x")
	f.Fuzz(func(t *testing.T, src []byte, content string) {
		parsed := ParseMemoriesFile(src, "fuzz") // must not panic
		// A memory is put where the parse says its section is.
		if got := memorySections(src); !maps.Equal(got, parsed.sections) {
			t.Fatalf("memorySections = %+v, the parse found %+v in:\n%q", got, parsed.sections, src)
		}
		for _, w := range parsed.Warnings {
			if w.Line < 1 {
				t.Fatalf("warning without a line: %v", w)
			}
		}
		content, err := NormalizeText("content", content)
		if err != nil {
			return
		}
		m := Memory{ID: "mem-1800000000-beef", Type: Fix, Content: content, Tags: []string{"t"}, Created: "2027-01-15"}
		if parsed.IDs()[m.ID] {
			return
		}
		added := InsertMemory(src, m)
		var found []Memory
		for _, got := range ParseMemoriesFile(added, "").Memories {
			if got.ID == m.ID {
				found = append(found, got)
			}
		}
		if len(found) != 1 || found[0].Content != m.Content || found[0].Type != Fix {
			t.Fatalf("added memory read back as %+v from:\n%q", found, added)
		}
		removed, ok := RemoveMemory(added, m.ID)
		if !ok {
			t.Fatal("added memory not found for removal")
		}
		if _, had := parsed.sections[Fix]; had {
			// Only the block was added, so only the block goes. The one
			// byte that may stay is the newline a header on the last
			// line needed to have a block put under it.
			newlineAdded := !bytes.HasSuffix(src, []byte("\n")) && bytes.Equal(removed, append(append([]byte{}, src...), '\n'))
			if !bytes.Equal(removed, src) && !newlineAdded {
				t.Fatalf("add then delete changed the file:\n%q\n%q", src, removed)
			}
			return
		}
		// The add also created the section (or the template), which stays;
		// every memory of the original is still there, unchanged.
		before, after := parsed.Memories, ParseMemoriesFile(removed, "").Memories
		if len(before) != len(after) {
			t.Fatalf("memories changed: %d before, %d after", len(before), len(after))
		}
		for i := range before {
			if before[i].ID != after[i].ID || before[i].Content != after[i].Content {
				t.Fatalf("memory %d changed: %+v → %+v", i, before[i], after[i])
			}
		}
	})
}

// FuzzMetadataMatchesSeedRegex checks the hand-written matcher against
// seed 001's METADATA_RE itself.
func FuzzMetadataMatchesSeedRegex(f *testing.F) {
	f.Add("<!-- tags: a, b | created: 2025-01-20 -->")
	f.Add("<!-- tags:  | created: 2025-01-20 -->")
	f.Add("x <!-- tags: a|b | created: 2025-01-20 --> <!-- tags: c | created: 2025-01-21 -->")
	f.Add("<!-- tags: | created: 2025-01-21 -->")
	f.Fuzz(func(t *testing.T, line string) {
		m := seedMetadataRE.FindStringSubmatch(line)
		tags, created, ok := matchMetadata(line)
		if ok != (m != nil) || (ok && (tags != m[1] || created != m[2])) {
			t.Fatalf("%q: regexp %q, lore (%q, %q, %v)", line, m, tags, created, ok)
		}
	})
}

func FuzzValidMemoryIDMatchesSeedRegex(f *testing.F) {
	f.Add("mem-1737372000-a1b2")
	f.Add("mem-1-g7h8")
	f.Fuzz(func(t *testing.T, id string) {
		want := regexp.MustCompile(`^mem-\d+-[0-9a-f]{4}$`).MatchString(id)
		if ValidMemoryID(id) != want {
			t.Fatalf("%q: regexp %v", id, want)
		}
	})
}

// A memory added to a file saved with CR LF line ends gets CR LF lines
// too, and every other byte stays; removing it gives the file back.
func TestCRLFFilesGetCRLFLines(t *testing.T) {
	t.Parallel()
	src := []byte(strings.ReplaceAll(string(readTestdata(t, "seed-example.md")), "\n", "\r\n"))
	m := Memory{ID: "mem-1900000000-abcd", Type: Fix, Content: "two\nlines", Tags: []string{"t"}, Created: "2030-01-01"}
	for name, out := range map[string][]byte{"InsertMemory": InsertMemory(src, m), "addMemory": AddMemory(src, m)} {
		if bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
			t.Errorf("%s wrote LF-only lines into a CR LF file:\n%q", name, out)
		}
		if ms, _ := ParseMemories(out, ""); len(ms) != 4 {
			t.Errorf("%s: %d memories", name, len(ms))
		}
		if back, _ := RemoveMemory(out, m.ID); !bytes.Equal(back, src) {
			t.Errorf("%s then RemoveMemory did not give the file back", name)
		}
	}
	mixed := append([]byte("# Memories\n\r\n## Fixes\n"), src...)
	if out := InsertMemory(mixed, m); !bytes.Contains(out, []byte("### mem-1900000000-abcd\n")) {
		t.Errorf("a mixed file is edited as it is: %q", out)
	}
}
