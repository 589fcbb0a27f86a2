package prompt

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"lore/mdstore"
)

// CharsPerToken is the conversion lore uses for budgets: four characters
// make one token.
const CharsPerToken = 4

// MemoriesBlock is the "# Memories" section of a prime.
type MemoriesBlock struct {
	// Markdown is the rendered section: seed 001's format, one "## "
	// section per type that has memories, newest first within each.
	Markdown string
	// Included are the memories in Markdown, newest first.
	Included []mdstore.Memory
	// Omitted counts the memories left out for the budget.
	Omitted int
	// Notice is the one line that says what was left out ("" if nothing).
	Notice string
}

// Memories selects, newest first, the memories that fit in budgetTokens
// (0 means no limit) and renders them grouped by type. A memory that does
// not fit is skipped whole and a smaller, older one may still fit; the
// whole block, notice included, stays within the budget.
func Memories(memories []mdstore.Memory, budgetTokens int) MemoriesBlock {
	return memoriesWithin(memories, budgetTokens*CharsPerToken, budgetTokens, true)
}

// fitMemories selects, newest first, the memories whose rendering fits in
// limit characters (0: no limit), newest first, and how many were left
// out.
func fitMemories(memories []mdstore.Memory, limit int) ([]mdstore.Memory, int) {
	if limit <= 0 {
		return nil, len(memories)
	}
	b := memoriesWithin(memories, limit, 0, false)
	return b.Included, b.Omitted
}

// memoriesWithin is Memories with the limit in characters; the notice (when
// withNotice) names budgetTokens.
func memoriesWithin(memories []mdstore.Memory, limit, budgetTokens int, withNotice bool) MemoriesBlock {
	candidates := append([]mdstore.Memory(nil), memories...)
	mdstore.SortNewestFirst(candidates)
	unlimited := limit <= 0

	// The rendered length is a sum of parts: the title once, each used
	// section's header once, and each memory's block.
	blockLen := make([]int, len(candidates))
	for i, m := range candidates {
		blockLen[i] = 1 + formattedLen(m) // "\n" + the block
	}
	sectionUsed := map[mdstore.MemoryType]int{}
	selected := make([]bool, len(candidates))
	total, count := 0, 0
	cost := func(i int) int {
		c := blockLen[i]
		if count == 0 {
			c += runeLen(title)
		}
		if sectionUsed[candidates[i].Type] == 0 {
			c += runeLen(sectionHeader(candidates[i].Type))
		}
		return c
	}
	take := func(i int) {
		total += cost(i)
		selected[i] = true
		sectionUsed[candidates[i].Type]++
		count++
	}
	for i := range candidates {
		if unlimited || total+cost(i) <= limit {
			take(i)
		}
	}
	// Make room for the notice by dropping the oldest memories included.
	for withNotice && !unlimited && count > 0 && count < len(candidates) && total+runeLen(notice(len(candidates)-count, budgetTokens)) > limit {
		for i := len(candidates) - 1; i >= 0; i-- {
			if selected[i] {
				selected[i] = false
				count--
				t := candidates[i].Type
				sectionUsed[t]--
				total -= blockLen[i]
				if sectionUsed[t] == 0 {
					total -= runeLen(sectionHeader(t))
				}
				if count == 0 {
					total = 0
				}
				break
			}
		}
	}

	var b MemoriesBlock
	for i, m := range candidates {
		if selected[i] {
			b.Included = append(b.Included, m)
		}
	}
	b.Omitted = len(candidates) - count
	b.Markdown = Render(b.Included)
	if b.Omitted > 0 && withNotice {
		n := notice(b.Omitted, budgetTokens)
		b.Notice = strings.TrimSpace(n)
		if b.Markdown == "" {
			n = b.Notice + "\n"
		}
		if runeLen(b.Markdown+n) <= limit {
			b.Markdown += n
		}
	}
	return b
}

const title = "# Memories\n"

func sectionHeader(t mdstore.MemoryType) string { return "\n## " + t.Section() + "\n" }

func notice(omitted, budgetTokens int) string {
	noun := "memories"
	if omitted == 1 {
		noun = "memory"
	}
	return fmt.Sprintf("\n_%d more %s not shown (budget: %d tokens); find them with `lore search`._\n", omitted, noun, budgetTokens)
}

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
