package entry

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestAddMemoriesAsOneByOne: adding memories in one pass gives the file
// adding them one at a time from the last gives, whatever the file holds
// (sections missing or out of order, ids already there, CR LF lines).
func TestAddMemoriesAsOneByOne(t *testing.T) {
	t.Parallel()
	files := []string{
		"",
		MemoriesTemplate,
		"# Memories\n\n## Fixes\n\n### mem-1700000000-0001\n> old fix\n<!-- tags: a | created: 2024-01-01 -->\n",
		"# Memories\n\n## Context\nA paragraph under the heading.\n\n## Patterns\n",
		strings.ReplaceAll(MemoriesTemplate, "\n", "\r\n"),
		"# Memories\n\n## Decisions\n\n### mem-1700000000-0002\n> kept\n<!-- tags: b | created: 2024-01-02 -->",
	}
	r := rand.New(rand.NewSource(1))
	for fi, src := range files {
		for round := 0; round < 20; round++ {
			var ms []Memory
			for i := range 1 + r.Intn(8) {
				id := fmt.Sprintf("mem-17000%05d-%04x", r.Intn(3), i)
				if r.Intn(5) == 0 {
					id = "mem-1700000000-0001" // already in one file
				}
				ms = append(ms, Memory{ID: id, Type: MemoryTypes[r.Intn(len(MemoryTypes))], Content: fmt.Sprintf("memory %d of round %d", i, round), Tags: []string{"t"}, Created: "2026-01-01"})
			}
			want := []byte(src)
			for i := len(ms) - 1; i >= 0; i-- {
				want = AddMemory(want, ms[i])
			}
			if got := AddMemories([]byte(src), ms); string(got) != string(want) {
				t.Fatalf("file %d round %d:\n got %q\nwant %q", fi, round, got, want)
			}
		}
	}
}
