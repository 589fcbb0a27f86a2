package prompt

import (
	"strings"

	"lore/mdstore/entry"
)

// No entry takes more than a fixed share of its section: one longer than
// entryCap of the section's budget is shown as its first lines and the
// command that shows the rest (restLine). A real store holds memories of
// several kilobytes (a whole skill pasted into a fix); without the cap one
// of them fills a section and leaves out every other.
const (
	// EntryShare is the share of a section's limit one entry may take:
	// 1/EntryShare of it.
	EntryShare = 3
	// MinEntryCap is the fewest characters the cap allows, so that a small
	// section still shows an entry's first lines whole or nothing.
	MinEntryCap = 400
	// shortEllipsis ends a line shortened to its first words.
	shortEllipsis = "…"
)

// entryCap is the most characters one entry may take in a section whose
// budget is share characters.
func entryCap(share int) int { return max(share/EntryShare, MinEntryCap) }

// restLine is the line that ends a shortened entry.
func restLine(id string) string { return shortEllipsis + " (`lore show " + id + "` for the rest)" }

// firstLines is text's first lines within room characters, each line
// costing cost(line) (its rendering); when not even the first line fits,
// its first words that do, and an ellipsis. room may be too small for
// anything: then "".
func firstLines(text string, room int, cost func(line string) int) string {
	var kept []string
	used := 0
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		c := cost(line)
		if used+c > room {
			if len(kept) == 0 {
				// The first line alone is too long: its first words.
				r := []rune(line)
				n := min(len(r), room-cost("")-runeLen(shortEllipsis))
				for n > 0 && r[n-1] != ' ' {
					n--
				}
				if n <= 0 {
					return ""
				}
				return strings.TrimRight(string(r[:n]), " ") + shortEllipsis
			}
			break
		}
		kept, used = append(kept, line), used+c
	}
	// Trailing blank lines say nothing.
	for len(kept) > 0 && strings.TrimSpace(kept[len(kept)-1]) == "" {
		kept = kept[:len(kept)-1]
	}
	return strings.Join(kept, "\n")
}

// memoryLineCost is what one content line costs in a memory's block
// (memoryLen): "> line\n", or ">\n" for an empty one.
func memoryLineCost(line string) int {
	if line == "" {
		return 2
	}
	return 3 + runeLen(line)
}

// capMemory is m shortened to its first lines and restLine so that its
// block (memoryLen) takes at most limit characters; m itself when it
// does.
func (o outline) capMemory(m entry.Memory, length, limit int) entry.Memory {
	if length <= limit {
		return m
	}
	rest := restLine(m.ID)
	short := m
	short.Content = ""
	room := limit - (o.memoryLen(short) - 2) - memoryLineCost(rest)
	short.Content = firstLines(m.Content, room, memoryLineCost)
	if short.Content == "" {
		short.Content = rest
	} else {
		short.Content += "\n" + rest
	}
	return short
}

// capMemories is candidates with each memory longer than most
// characters shortened (capMemory), and their lengths; the lists given
// when none is.
func (o outline) capMemories(candidates []*entry.Memory, lens []int, most int) ([]*entry.Memory, []int) {
	var out []*entry.Memory
	var outLens []int
	for i, n := range lens {
		if n <= most {
			continue
		}
		if out == nil {
			out, outLens = append([]*entry.Memory(nil), candidates...), append([]int(nil), lens...)
		}
		short := o.capMemory(*candidates[i], n, most)
		out[i], outLens[i] = &short, o.memoryLen(short)
	}
	if out == nil {
		return candidates, lens
	}
	return out, outLens
}

// capKnowledge is k with its body shortened to its first lines and
// restLine so that its block in the section ("\n" and knowledgeBlock)
// takes at most limit characters; k itself when it does.
func (o outline) capKnowledge(k entry.Knowledge, limit int) entry.Knowledge {
	if 1+runeLen(o.knowledgeBlock(k)) <= limit {
		return k
	}
	rest := restLine(k.Slug)
	short := k
	short.Body = ""
	lineCost := func(line string) int { return runeLen(line) + 1 }
	room := limit - (1 + runeLen(o.knowledgeBlock(short))) - lineCost(rest)
	if body := firstLines(k.Body, room, lineCost); body != "" {
		short.Body = body + "\n" + rest
	} else {
		short.Body = rest
	}
	return short
}

// capLine is a one-line entry (a learning's "- **[category]** text\n")
// shortened to its first words and restLine when it is longer than limit
// characters; line itself when it is not.
func capLine(line, id string, limit int) string {
	if runeLen(line) <= limit {
		return line
	}
	rest := " " + restLine(id) + "\n"
	short := firstLines(strings.TrimSuffix(line, "\n"), limit-runeLen(rest)+runeLen(shortEllipsis), runeLen)
	return strings.TrimSuffix(short, shortEllipsis) + rest
}
