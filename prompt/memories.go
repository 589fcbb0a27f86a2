package prompt

import (
	"sort"
	"strings"
	"unicode/utf8"

	"lore/mdstore"
)

// CharsPerToken is the conversion lore uses for budgets: four characters
// make one token.
const CharsPerToken = 4

// MemoryRelevanceKey is a memory's key in Input.Relevance: the id of its
// search document.
func MemoryRelevanceKey(id string) string { return mdstore.MemoriesPath + "#" + id }

// rankMemories orders memories for the Memories section: with a task, the
// most relevant to it first (full-text relevance), newest first among
// equals; without one, newest first (seed 001).
func rankMemories(memories []mdstore.Memory, t Task, rel map[string]float64) []mdstore.Memory {
	out := append([]mdstore.Memory(nil), memories...)
	mdstore.SortNewestFirst(out)
	if t.Given() && len(rel) > 0 {
		sort.SliceStable(out, func(i, j int) bool {
			return rel[MemoryRelevanceKey(out[i].ID)] > rel[MemoryRelevanceKey(out[j].ID)]
		})
	}
	return out
}

// fitMemories selects, in the order given, the memories whose rendering
// (Render) fits in limit characters, and says how many were left out. A
// memory that does not fit is skipped whole and a smaller, later one may
// still fit.
func fitMemories(candidates []mdstore.Memory, limit int) ([]mdstore.Memory, int) {
	if limit <= 0 {
		return nil, len(candidates)
	}

	// The rendered length is a sum of parts: the title once, each used
	// section's header once, and each memory's block.
	sectionUsed := map[mdstore.MemoryType]bool{}
	var included []mdstore.Memory
	total := 0
	for _, m := range candidates {
		c := 1 + formattedLen(m) // "\n" + the block
		if len(included) == 0 {
			c += runeLen(title)
		}
		if !sectionUsed[m.Type] {
			c += runeLen(sectionHeader(m.Type))
		}
		if total+c <= limit {
			total += c
			sectionUsed[m.Type] = true
			included = append(included, m)
		}
	}
	return included, len(candidates) - len(included)
}

const title = "# Memories\n"

func sectionHeader(t mdstore.MemoryType) string { return "\n## " + t.Section() + "\n" }

// Render writes memories grouped by type in seed 001's format, keeping
// their order within each type; "" when there are none.
func Render(memories []mdstore.Memory) string {
	if len(memories) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(title)
	for _, t := range mdstore.MemoryTypes {
		first := true
		for _, m := range memories {
			if m.Type != t {
				continue
			}
			if first {
				b.WriteString(sectionHeader(t))
				first = false
			}
			b.WriteString("\n" + mdstore.FormatMemory(m))
		}
	}
	return b.String()
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

// formattedLen is runeLen(mdstore.FormatMemory(m)) without building the
// block: "### id\n", "> line\n" or ">\n" per content line, and the
// metadata comment.
func formattedLen(m mdstore.Memory) int {
	n := runeLen("### "+m.ID) + 1
	for rest := m.Content; ; {
		line, after, more := strings.Cut(rest, "\n")
		if line == "" {
			n += 2
		} else {
			n += 3 + runeLen(line)
		}
		if !more {
			break
		}
		rest = after
	}
	n += runeLen("<!-- tags:  | created:  -->\n") + runeLen(m.Created)
	for i, t := range m.Tags {
		if i > 0 {
			n += 2
		}
		n += runeLen(t)
	}
	return n
}
