package prompt

import (
	"cmp"
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"

	"lore/internal/neardup"
	"lore/mdstore/entry"
)

// CharsPerToken is the conversion lore uses for budgets: four characters
// make one token.
const CharsPerToken = 4

// MemoryRelevanceKey is a memory's key in Input.Relevance: the id of its
// search document.
func MemoryRelevanceKey(id string) string { return entry.MemoriesPath + "#" + id }

// rankMemories orders memories for the Memories section: with a task, the
// most relevant to it first (full-text relevance), newest first among
// equals; without one, newest first (seed 001). It returns pointers into
// memories: ten thousand memories are a megabyte to copy.
func rankMemories(memories []entry.Memory, t Task, rel map[string]float64, stale map[string]bool) []*entry.Memory {
	// One sort of keys. Memories of the same second keep their file
	// order (entry.SortNewestFirst).
	type key struct {
		score float64
		stale bool // a file it cites changed: below a fresh one of the same score
		unix  int64
		pos   int
	}
	keys := make([]key, len(memories))
	// The relevance of memories by id: a few of many.
	var byID map[string]float64
	if t.Given() {
		for p, r := range rel {
			if id, ok := strings.CutPrefix(p, entry.MemoriesPath+"#"); ok {
				if byID == nil {
					byID = map[string]float64{}
				}
				byID[id] = r
			}
		}
	}
	for i, m := range memories {
		keys[i] = key{unix: m.Unix(), pos: i, stale: stale[m.ID]}
		if byID != nil {
			keys[i].score = byID[m.ID]
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.score != b.score {
			return cmp.Compare(b.score, a.score)
		}
		if a.stale != b.stale {
			return boolCompare(a.stale, b.stale)
		}
		if a.unix != b.unix {
			return cmp.Compare(b.unix, a.unix)
		}
		return cmp.Compare(a.pos, b.pos)
	})
	out := make([]*entry.Memory, len(memories))
	for i, k := range keys {
		out[i] = &memories[k.pos]
	}
	return out
}

// fitMemories selects, in the order given, the memories whose rendering
// (Render) fits in limit characters, and says how many were left out and
// how many it asked about near-duplicates; lens are their lengths
// (memoryLen). A memory that does not fit is skipped whole and a smaller,
// later one may still fit. A memory that nearly duplicates one selected
// before it (more than 80% of their words shared, internal/neardup, of
// any type) is left out and counted in dups: the one ranked first (the
// newest, among equally relevant ones) is shown. Only memories that fit
// are asked about, so the work grows with the budget, not the store.
func (o outline) fitMemories(candidates []*entry.Memory, lens []int, limit int) (included []entry.Memory, omitted, dups, compared int) {
	if limit <= 0 {
		return nil, len(candidates), 0, 0
	}
	seen := neardup.New()

	// The rendered length is a sum of parts: the title once, each used
	// section's header once, and each memory's block.
	var sectionUsed []entry.MemoryType // a few types, asked of every memory
	total := 0
	for i, m := range candidates {
		c := 1 + lens[i] // "\n" + the block
		if len(included) == 0 {
			c += runeLen(o.section(memoriesTitle))
		}
		used := slices.Contains(sectionUsed, m.Type)
		if !used {
			c += 1 + runeLen(o.entry(m.Type.Section()))
		}
		if total+c <= limit {
			compared++
			if seen.Of("", m.Content) >= 0 {
				dups++
				continue
			}
			seen.Add("", m.Content)
			total += c
			if !used {
				sectionUsed = append(sectionUsed, m.Type)
			}
			included = append(included, *m)
		}
	}
	return included, len(candidates) - len(included) - dups, dups, compared
}

const memoriesTitle = "Memories"

// Render writes memories grouped by type in seed 001's format (memories.md's:
// "# Memories", "## Patterns", "### mem-…"), keeping their order within each
// type; "" when there are none.
func Render(memories []entry.Memory) string { return outline(1).renderMemories(memories, noMark) }

// noMark marks nothing.
func noMark(string) string { return "" }

// renderMemories writes memories grouped by type, as Render does, with the
// title at the sections' level, each type one level below and each memory
// under its type; a memory with a mark (Input.Mark) has it under its
// block.
func (o outline) renderMemories(memories []entry.Memory, mark func(id string) string) string {
	if len(memories) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(o.section(memoriesTitle))
	for _, t := range entry.MemoryTypes {
		first := true
		for _, m := range memories {
			if m.Type != t {
				continue
			}
			if first {
				b.WriteString("\n" + o.entry(t.Section()))
				first = false
			}
			b.WriteString("\n" + o.memoryBlock(m) + mark(m.ID))
		}
	}
	return b.String()
}

// memoryBlock is entry.FormatMemory's block with its heading under its
// type's.
func (o outline) memoryBlock(m entry.Memory) string {
	block := entry.FormatMemory(m) // "### id\n…", memories.md's level 3
	return strings.Repeat("#", int(o)+2) + strings.TrimLeft(block, "#")
}

// runeLen is how many characters s has (utf8.RuneCountInString), its
// ASCII read eight bytes at a time: prime measures every entry it may
// show, bodies of kilobytes among them.
func runeLen(s string) int {
	n := 0
	for len(s) > 0 {
		ascii := 0 // bytes of s that are ASCII, from the start
		for ascii+8 <= len(s) && binary.LittleEndian.Uint64([]byte(s[ascii:ascii+8]))&0x8080808080808080 == 0 {
			ascii += 8
		}
		for ascii < len(s) && s[ascii] < utf8.RuneSelf {
			ascii++
		}
		n, s = n+ascii, s[ascii:]
		if len(s) > 0 { // a rune that is not ASCII, or a byte that is not UTF-8: one character
			_, size := utf8.DecodeRuneInString(s)
			n, s = n+1, s[size:]
		}
	}
	return n
}

// memoryLen is runeLen(o.memoryBlock(m)) without building the block:
// the heading, "> line\n" or ">\n" per content line, and the metadata
// comment.
func (o outline) memoryLen(m entry.Memory) int {
	n := int(o) + 2 + 1 + runeLen(m.ID) + 1
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

// markLine is the line prime writes under a stale or unverified entry,
// label and text, the text cut to maxMark characters.
func markLine(label, text string) string {
	if r := []rune(text); len(r) > maxMark {
		text = string(r[:maxMark-1]) + "…"
	}
	return "_⚠ " + label + ": " + text + "_\n"
}

// The labels of markLine.
const (
	staleLabel      = "Stale"
	unverifiedLabel = "Unverified"
)

// maxMark bounds a mark's text, so that a section can count the line
// before the mark is made (making a stale one walks a file's history).
const maxMark = 240

// markRoom is the most a mark's line takes: what a section counts for a
// stale or unverified entry it may show.
var markRoom = runeLen(markLine(unverifiedLabel, strings.Repeat("x", maxMark)))

// boolCompare orders false before true.
func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// marks counts markRoom in lens for the stale or unverified memories of
// ms: their lines are made (pl.mark) only for those shown.
func (pl *plan) marks(ms []*entry.Memory, lens []int) {
	if pl.in.Mark == nil || (len(pl.in.Stale) == 0 && pl.in.Unverified == nil) {
		return
	}
	for i, m := range ms {
		if pl.flagged(m.ID) {
			lens[i] += markRoom
		}
	}
}

// flagged reports whether the entry of a memory id or file path is
// stale or unverified: shown with a mark.
func (pl *plan) flagged(key string) bool {
	return pl.in.Stale[key] || (pl.in.Unverified != nil && pl.in.Unverified(key))
}

// mark is the line under the entry of a memory id or file path: what
// Input.Mark says of a stale or unverified one, "" for any other; each is
// asked of Input.Mark once.
func (pl *plan) mark(key string) string {
	if pl.in.Mark == nil || !pl.flagged(key) {
		return ""
	}
	if m, ok := pl.markOf[key]; ok {
		return m
	}
	if pl.markOf == nil {
		pl.markOf = map[string]string{}
	}
	label := unverifiedLabel
	if pl.in.Stale[key] {
		label = staleLabel
	}
	m := ""
	if text := pl.in.Mark(key); text != "" {
		m = markLine(label, text)
	}
	pl.markOf[key] = m
	return m
}
