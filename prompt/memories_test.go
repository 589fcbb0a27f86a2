package prompt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"lore/internal/loretest"
	"lore/mdstore/catalog"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

func mem(id string, typ entry.MemoryType, content string, tags ...string) entry.Memory {
	if tags == nil {
		tags = []string{}
	}
	return entry.Memory{ID: id, Type: typ, Content: content, Tags: tags, Created: "2025-01-20"}
}

var sample = []entry.Memory{
	mem("mem-1737372000-a1b2", entry.Pattern, "This codebase uses barrel exports for all module boundaries.\nEach directory has an index.ts that re-exports public API.", "imports", "structure"),
	mem("mem-1737372100-c3d4", entry.Pattern, "Always run `cargo test` before declaring tasks complete.", "workflow", "testing"),
	mem("mem-1737380000-e5f6", entry.Decision, "Chose JSONL over SQLite for event storage: simpler, git-friendly, append-only.", "architecture", "storage"),
	mem("mem-1737390000-0a7b", entry.Fix, "ECONNREFUSED on port 5432 means PostgreSQL isn't running. Fix: `docker-compose up -d`", "docker", "debugging", "database"),
	mem("mem-1737400000-0c9d", entry.Context, "The `ralph-core` crate is the shared library; `ralph-cli` is the binary entry point.", "architecture", "crates"),
}

// memoriesSection primes with memories alone, within a share of tokens,
// and returns the Memories section and the line that says what was left
// out.
func memoriesSection(ms []entry.Memory, tokens int) (Section, string) {
	ctx := Prime(Input{Memories: ms}, Options{Budgets: config.Budgets{MemoriesTokens: tokens}})
	for _, sec := range ctx.Sections {
		if sec.Name == SectionMemories {
			return sec, ctx.Omitted
		}
	}
	return Section{Omitted: len(ms)}, ctx.Omitted
}

func TestAnAmpleShareRendersEverythingGrouped(t *testing.T) {
	sec, omitted := memoriesSection(sample, 100000)
	if sec.Omitted != 0 || omitted != "" || sec.Shown != 5 || len(sec.Entries) != 5 {
		t.Fatalf("section = %+v, omitted %q", sec, omitted)
	}
	loretest.Golden(t, "testdata/prime-all.md", sec.Markdown)
}

func TestTheShareCutsBetweenWholeMemoriesNewestFirst(t *testing.T) {
	full, _ := memoriesSection(sample, 100000)
	for budget := 1; budget <= utf8.RuneCountInString(full.Markdown)/CharsPerToken+1; budget++ {
		sec, omitted := memoriesSection(sample, budget)
		if n := utf8.RuneCountInString(sec.Markdown); n > budget*CharsPerToken {
			t.Fatalf("budget %d: %d characters", budget, n)
		}
		if sec.Shown+sec.Omitted != len(sample) {
			t.Fatalf("budget %d: counts do not add up: %+v", budget, sec)
		}
		for _, m := range sample {
			if strings.Contains(sec.Markdown, "# "+m.ID) && !strings.Contains(sec.Markdown, outline(DefaultHeadingLevel).memoryBlock(m)) {
				t.Fatalf("budget %d: %s not whole", budget, m.ID)
			}
		}
		if sec.Omitted > 0 && !strings.Contains(omitted, "memor") {
			t.Fatalf("budget %d: cut without saying so (%q)", budget, omitted)
		}
	}
	// With room for about two memories, the newest two are kept.
	sec, omitted := memoriesSection(sample, 120)
	if want := []string{"memory:mem-1737400000-0c9d", "memory:mem-1737390000-0a7b"}; !slices.Equal(sec.Entries, want) {
		t.Fatalf("shown %v, want %v", sec.Entries, want)
	}
	if omitted != "_Left out to stay within the budget: 3 memories. `lore search` finds them._" {
		t.Errorf("omitted line %q", omitted)
	}
	loretest.Golden(t, "testdata/prime-budget-120.md", sec.Markdown)
}

func TestExactFit(t *testing.T) {
	one := []entry.Memory{mem("mem-1-aaaa", entry.Fix, "abcd")}
	o := outline(DefaultHeadingLevel)
	text := o.renderMemories(one, noMark)
	n := utf8.RuneCountInString(text)
	if n%CharsPerToken != 0 {
		one[0].Content += strings.Repeat("x", CharsPerToken-n%CharsPerToken)
		text = o.renderMemories(one, noMark)
		n = utf8.RuneCountInString(text)
	}
	if sec, _ := memoriesSection(one, n/CharsPerToken); sec.Markdown != text || sec.Omitted != 0 {
		t.Fatalf("exact fit cut: %+v", sec)
	}
	// One token short, nothing is shown and the prime says a memory was
	// left out: the agent still learns that there is one to search for.
	if sec, omitted := memoriesSection(one, n/CharsPerToken-1); sec.Markdown != "" || sec.Omitted != 1 || !strings.Contains(omitted, "1 memory") {
		t.Fatalf("one token short: %+v, %q", sec, omitted)
	}
}

func TestMultibyteTextCountsCharacters(t *testing.T) {
	// 3-byte characters: a byte-counting budget would keep a third.
	m := mem("mem-1-aaaa", entry.Context, strings.Repeat("日", 100))
	text := outline(DefaultHeadingLevel).renderMemories([]entry.Memory{m}, noMark)
	budget := (utf8.RuneCountInString(text) + CharsPerToken - 1) / CharsPerToken
	if sec, _ := memoriesSection([]entry.Memory{m}, budget); sec.Markdown != text || !utf8.ValidString(sec.Markdown) {
		t.Fatalf("cut: %q", sec.Markdown)
	}
}

func TestLargeMemorySkippedSmallerOlderKept(t *testing.T) {
	ms := []entry.Memory{
		mem("mem-2-bbbb", entry.Pattern, strings.Repeat("long ", 200)),
		mem("mem-1-aaaa", entry.Pattern, "short"),
	}
	sec, omitted := memoriesSection(ms, 60)
	if !slices.Equal(sec.Entries, []string{"memory:mem-1-aaaa"}) || sec.Omitted != 1 {
		t.Fatalf("section = %+v", sec)
	}
	if !strings.Contains(omitted, "1 memory") {
		t.Fatalf("the prime does not say a memory was left out: %q", omitted)
	}
}

func TestNoMemoriesRendersNothing(t *testing.T) {
	if sec, omitted := memoriesSection(nil, 100); sec.Markdown != "" || sec.Omitted != 0 || omitted != "" {
		t.Fatalf("section = %+v, %q", sec, omitted)
	}
}

func TestMemoryLenMatchesTheBlock(t *testing.T) {
	ms := append([]entry.Memory{
		mem("mem-1-aaaa", entry.Fix, "a\n\nb ✓ 日本\n", "x", "yy"),
		mem("mem-2-bbbb", entry.Fix, "single"),
	}, sample...)
	for level := 1; level <= MaxHeadingLevel; level++ {
		o := outline(level)
		for _, m := range ms {
			block := o.memoryBlock(m)
			if got, want := o.memoryLen(m), utf8.RuneCountInString(block); got != want {
				t.Errorf("level %d, %s: memoryLen %d, the block %d", level, m.ID, got, want)
			}
			if want := strings.Repeat("#", level+2) + " " + m.ID + "\n"; !strings.HasPrefix(block, want) {
				t.Errorf("level %d: block begins %q, want %q", level, block[:min(len(block), 30)], want)
			}
		}
	}
	if got, want := outline(1).memoryBlock(sample[0]), entry.FormatMemory(sample[0]); got != want {
		t.Errorf("at level 1 the block is memories.md's:\n%s\nwant\n%s", got, want)
	}
}

// TestMemoriesRankByTheTask: with a task, the memories most relevant to
// it come first and fill a small share (newest first among equals); with
// none, the newest do (seed 001).
func TestMemoriesRankByTheTask(t *testing.T) {
	rel := map[string]float64{
		MemoryRelevanceKey("mem-1737390000-0a7b"): 1,   // the ECONNREFUSED fix
		MemoryRelevanceKey("mem-1737372000-a1b2"): 0.4, // barrel exports
	}
	share := 90 // tokens: two or three memories fit, not five
	prime := func(task Task) []string {
		ctx := Prime(Input{Memories: sample, Task: task, Relevance: rel}, Options{Budgets: config.Budgets{MemoriesTokens: share}})
		for _, sec := range ctx.Sections {
			if sec.Name == SectionMemories {
				return sec.Entries
			}
		}
		return nil
	}
	got := prime(Task{Title: "Postgres refuses connections in the tests"})
	if len(got) == 0 || got[0] != Key(entry.KindMemory, "mem-1737390000-0a7b") || len(got) == len(sample) {
		t.Fatalf("with a task: %q", got)
	}
	if got := prime(Task{}); len(got) == 0 || got[0] != Key(entry.KindMemory, "mem-1737400000-0c9d") {
		t.Fatalf("without a task, the newest first: %q", got)
	}
}

// Memories rank by relevance, then newest first; memories of the same
// second keep their file order (a new memory is written above older ones).
func TestRankMemoriesOrder(t *testing.T) {
	ms := []entry.Memory{
		{ID: "mem-1700000000-0001"}, {ID: "mem-1700000500-0002"}, {ID: "mem-1700000500-0003"},
		{ID: "mem-1700000900-0004"}, {ID: "mem-1700000000-0005"},
	}
	ids := func(ms []*entry.Memory) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID[len(m.ID)-1:])
		}
		return strings.Join(out, "")
	}
	if got := ids(rankMemories(ms, Task{}, nil, nil)); got != "42315" {
		t.Fatalf("newest first: %s", got)
	}
	rel := map[string]float64{MemoryRelevanceKey("mem-1700000000-0005"): 0.5, MemoryRelevanceKey("mem-1700000500-0003"): 0.5}
	if got := ids(rankMemories(ms, Task{Title: "x"}, rel, nil)); got != "35421" {
		t.Fatalf("by relevance: %s", got)
	}
}

// TestKnowledgeLenMatchesTheBlock: the length prime measures a knowledge
// entry by is the length of the block it shows, for titles, tags and
// bodies with multi-byte runes, bytes that are not UTF-8, and nothing.
func TestKnowledgeLenMatchesTheBlock(t *testing.T) {
	ks := []entry.Knowledge{
		{Title: "Cache TTL", Tags: []string{"cache", "ttl"}, Body: "The LRU reads CACHE_TTL_SECONDS."},
		{Title: "日本 ✓", Tags: []string{"ü"}, Body: "a\n\nb ✓ 日本\n"},
		{Title: "broken \xe2\x82", Tags: []string{"\xac", "x"}, Body: "\xacends \xe2"},
		{},
	}
	for level := 1; level <= MaxHeadingLevel; level++ {
		o := outline(level)
		for _, k := range ks {
			h := catalog.KnowledgeHead(&k)
			if got, want := level+knowledgeChars(&h), utf8.RuneCountInString("\n"+o.knowledgeBlock(k)); got != want {
				t.Errorf("level %d, %q: knowledgeChars and the level %d, the block %d", level, k.Title, got, want)
			}
		}
	}
}

// TestRuneLenCountsAsUTF8: runeLen counts what utf8.RuneCountInString
// counts, in text with ASCII runs of every length around eight bytes,
// multi-byte runes, and bytes that are not UTF-8.
func TestRuneLenCountsAsUTF8(t *testing.T) {
	pieces := []string{"a", "abcdefg", "abcdefgh", "abcdefghijklmnopq", "é", "日本", "✓", "\xff", "\xe2\x82", "\x82", "\U0001F600", "\n"}
	rng := rand.New(rand.NewPCG(9, 4))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if s := b.String(); runeLen(s) != utf8.RuneCountInString(s) {
			t.Fatalf("runeLen(%q) = %d, want %d", s, runeLen(s), utf8.RuneCountInString(s))
		}
	}
}

// TestNoEntryTakesMoreThanItsShare: one memory of 7,000 characters (a
// whole skill pasted into a fix, from a real store) is shown as its first
// lines and `lore show`, and leaves room for the others (issue 37); so is
// a long knowledge entry.
func TestNoEntryTakesMoreThanItsShare(t *testing.T) {
	var long strings.Builder
	for i := range 140 {
		fmt.Fprintf(&long, "Step %d of the skill: run the command and check its output.\n", i)
	}
	ms := []entry.Memory{mem("mem-9-long", entry.Fix, long.String(), "skill")}
	for i := range 30 {
		ms = append(ms, mem(fmt.Sprintf("mem-%d-short", i), entry.Pattern, fmt.Sprintf("Short memory about w%03dx and v%03dy.", i, i)))
	}
	sec, _ := memoriesSection(ms, 2000)
	limit := 2000 * CharsPerToken
	if !slices.Contains(sec.Entries, "memory:mem-9-long") || sec.Shown != len(ms) {
		t.Fatalf("the long memory and the short ones are not all shown: %+v", sec)
	}
	block := sec.Markdown[strings.Index(sec.Markdown, "mem-9-long"):]
	block = block[:strings.Index(block, "-->")]
	if n := utf8.RuneCountInString(block); n > limit/EntryShare {
		t.Fatalf("the long memory takes %d characters of %d", n, limit)
	}
	if !strings.Contains(block, "> Step 0 of the skill") || !strings.Contains(block, "> … (`lore show mem-9-long` for the rest)") {
		t.Fatalf("the long memory is not its first lines and the way to the rest:\n%s", block)
	}

	k := entry.Knowledge{Slug: "long-skill", Title: "The whole skill", Tags: []string{"skill"}, Body: long.String(), CreatedAt: "2026-01-01T00:00:00Z"}
	ctx := Prime(Input{Knowledge: []entry.Knowledge{k}}, Options{Budgets: config.Budgets{KnowledgeTokens: 1000}})
	md := ctx.Markdown()
	if n := utf8.RuneCountInString(md[strings.Index(md, "### The whole skill"):]); n > 1000*CharsPerToken/EntryShare || !strings.Contains(md, "Step 0 of the skill") || !strings.Contains(md, "`lore show long-skill`") {
		t.Fatalf("the long knowledge entry (%d characters shown) is not capped:\n%s", n, md)
	}
}

// TestNearDuplicateMemoriesShownOnce: memories an agent wrote down again
// and again (common in real stores) are shown once, the newest; the
// others are counted as left out for that, not for the budget.
func TestNearDuplicateMemoriesShownOnce(t *testing.T) {
	text := "Run the migrations with `make migrate` before the integration tests, or they fail on a missing table"
	ms := []entry.Memory{
		mem("mem-1737400000-0003", entry.Fix, text+" again.", "db"),
		mem("mem-1737300000-0002", entry.Pattern, text+".", "db"),
		mem("mem-1737200000-0001", entry.Fix, text+" (seen twice).", "db"),
		mem("mem-1737100000-0004", entry.Pattern, "Chose JSONL over SQLite for event storage.", "storage"),
	}
	sec, omitted := memoriesSection(ms, 100000)
	want := []string{"memory:mem-1737400000-0003", "memory:mem-1737100000-0004"}
	if !slices.Equal(sec.Entries, want) || sec.Omitted != 0 || sec.Capped != 2 || !strings.Contains(omitted, "2 memories that repeat those shown") {
		t.Fatalf("section shows %v (%d left out, %d merged: %q), want %v", sec.Entries, sec.Omitted, sec.Capped, omitted, want)
	}
}

// TestALongLearningIsCapped: a learning of a whole page shows its first
// words and `lore show`, and leaves room for the others.
func TestALongLearningIsCapped(t *testing.T) {
	ls := []entry.Learning{
		{ID: "l-00000a", Category: "pitfall", Body: strings.Repeat("Check the generated code before committing it. ", 60), Status: "active", CreatedAt: "2026-01-02T00:00:00Z"},
		{ID: "l-00000b", Category: "testing_strategy", Body: "Run the golden tests with -update and read the diff.", Status: "active", CreatedAt: "2026-01-01T00:00:00Z"},
	}
	ctx := Prime(Input{Learnings: ls}, Options{Budgets: config.DefaultBudgets()})
	md := ctx.Markdown()
	if !strings.Contains(md, "- **[pitfall]** Check the generated code") || !strings.Contains(md, "… (`lore show l-00000a` for the rest)\n") ||
		!strings.Contains(md, "Run the golden tests") {
		t.Fatalf("the long learning is not capped, or the short one is left out:\n%s", md)
	}
	for _, line := range strings.Split(md, "\n") {
		if n := utf8.RuneCountInString(line); n > config.DefaultBudgets().LearningsChars/EntryShare {
			t.Fatalf("a line of %d characters:\n%s", n, line)
		}
	}
}
