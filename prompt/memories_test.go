package prompt

import (
	"strings"
	"testing"
	"unicode/utf8"

	"lore/internal/loretest"
	"lore/mdstore"
)

func mem(id string, typ mdstore.MemoryType, content string, tags ...string) mdstore.Memory {
	if tags == nil {
		tags = []string{}
	}
	return mdstore.Memory{ID: id, Type: typ, Content: content, Tags: tags, Created: "2025-01-20"}
}

var sample = []mdstore.Memory{
	mem("mem-1737372000-a1b2", mdstore.Pattern, "This codebase uses barrel exports for all module boundaries.\nEach directory has an index.ts that re-exports public API.", "imports", "structure"),
	mem("mem-1737372100-c3d4", mdstore.Pattern, "Always run `cargo test` before declaring tasks complete.", "workflow", "testing"),
	mem("mem-1737380000-e5f6", mdstore.Decision, "Chose JSONL over SQLite for event storage: simpler, git-friendly, append-only.", "architecture", "storage"),
	mem("mem-1737390000-0a7b", mdstore.Fix, "ECONNREFUSED on port 5432 means PostgreSQL isn't running. Fix: `docker-compose up -d`", "docker", "debugging", "database"),
	mem("mem-1737400000-0c9d", mdstore.Context, "The `ralph-core` crate is the shared library; `ralph-cli` is the binary entry point.", "architecture", "crates"),
}

func TestUnlimitedBudgetRendersEverythingGrouped(t *testing.T) {
	b := Memories(sample, 0)
	if b.Omitted != 0 || b.Notice != "" || len(b.Included) != 5 {
		t.Fatalf("block = %+v", b)
	}
	loretest.Golden(t, "testdata/prime-all.md", b.Markdown)
}

func TestBudgetCutsBetweenWholeMemoriesNewestFirst(t *testing.T) {
	full := Memories(sample, 0).Markdown
	for budget := 1; budget <= utf8.RuneCountInString(full)/CharsPerToken+1; budget++ {
		b := Memories(sample, budget)
		if n := utf8.RuneCountInString(b.Markdown); n > budget*CharsPerToken {
			t.Fatalf("budget %d: %d characters", budget, n)
		}
		if len(b.Included)+b.Omitted != len(sample) {
			t.Fatalf("budget %d: counts do not add up", budget)
		}
		for _, m := range b.Included {
			if !strings.Contains(b.Markdown, mdstore.FormatMemory(m)) {
				t.Fatalf("budget %d: %s not whole", budget, m.ID)
			}
		}
		if b.Omitted > 0 && b.Notice == "" {
			t.Fatalf("budget %d: cut without a notice", budget)
		}
	}
	// With room for about two memories, the newest two are kept.
	b := Memories(sample, 120)
	if len(b.Included) != 2 || b.Included[0].ID != "mem-1737400000-0c9d" || b.Included[1].ID != "mem-1737390000-0a7b" {
		t.Fatalf("included = %v", ids(b.Included))
	}
	loretest.Golden(t, "testdata/prime-budget-120.md", b.Markdown)
}

func TestExactFit(t *testing.T) {
	one := []mdstore.Memory{mem("mem-1-aaaa", mdstore.Fix, "abcd")}
	text := Memories(one, 0).Markdown
	n := utf8.RuneCountInString(text)
	if n%CharsPerToken != 0 {
		one[0].Content += strings.Repeat("x", CharsPerToken-n%CharsPerToken)
		text = Memories(one, 0).Markdown
		n = utf8.RuneCountInString(text)
	}
	if b := Memories(one, n/CharsPerToken); b.Markdown != text || b.Omitted != 0 {
		t.Fatalf("exact fit cut: %+v", b)
	}
	// One token short, only the notice is left: the agent still learns
	// that there is a memory to search for.
	if b := Memories(one, n/CharsPerToken-1); b.Markdown != b.Notice+"\n" || b.Omitted != 1 || len(b.Included) != 0 {
		t.Fatalf("one token short: %+v", b)
	}
}

func TestMultibyteTextCountsCharacters(t *testing.T) {
	// 3-byte characters: a byte-counting budget would keep a third.
	m := mem("mem-1-aaaa", mdstore.Context, strings.Repeat("日", 100))
	text := Memories([]mdstore.Memory{m}, 0).Markdown
	budget := (utf8.RuneCountInString(text) + CharsPerToken - 1) / CharsPerToken
	b := Memories([]mdstore.Memory{m}, budget)
	if b.Markdown != text || !utf8.ValidString(b.Markdown) {
		t.Fatalf("cut: %q", b.Markdown)
	}
}

func TestLargeMemorySkippedSmallerOlderKept(t *testing.T) {
	ms := []mdstore.Memory{
		mem("mem-2-bbbb", mdstore.Pattern, strings.Repeat("long ", 200)),
		mem("mem-1-aaaa", mdstore.Pattern, "short"),
	}
	b := Memories(ms, 60)
	if len(b.Included) != 1 || b.Included[0].ID != "mem-1-aaaa" || b.Omitted != 1 {
		t.Fatalf("block = %+v", b)
	}
	if !strings.Contains(b.Markdown, "_1 more memory not shown (budget: 60 tokens)") {
		t.Fatalf("no notice:\n%s", b.Markdown)
	}
}

func TestNoMemoriesRendersNothing(t *testing.T) {
	if b := Memories(nil, 100); b.Markdown != "" || b.Omitted != 0 {
		t.Fatalf("block = %+v", b)
	}
}

func ids(ms []mdstore.Memory) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

func TestFormattedLenMatchesFormatMemory(t *testing.T) {
	ms := append([]mdstore.Memory{
		mem("mem-1-aaaa", mdstore.Fix, "a\n\nb ✓ 日本\n", "x", "yy"),
		mem("mem-2-bbbb", mdstore.Fix, "single"),
	}, sample...)
	for _, m := range ms {
		if got, want := formattedLen(m), utf8.RuneCountInString(mdstore.FormatMemory(m)); got != want {
			t.Errorf("%s: formattedLen %d, FormatMemory %d", m.ID, got, want)
		}
	}
}
