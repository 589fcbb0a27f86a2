package merge

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"lore/internal/diff3"
	"lore/mdstore/entry"
)

// --- memories.md ---

// memUnit is one memory block of memories.md as the merge sees it: the
// blank line written before it (kept with the block, as mdstore.InsertMemory adds
// and mdstore.RemoveMemory removes them together) and the block itself.
type memUnit struct {
	id    string
	typ   entry.MemoryType // the section it is under
	blank string           // the blank line before the block, "" if none
	block string           // from "### <id>" to its last content or metadata line
	gap   int              // how many prose lines come before it
}

// text is the block without its final line break, for comparisons.
func (u *memUnit) text() string {
	return strings.TrimSuffix(strings.TrimSuffix(u.block, "\n"), "\r")
}

// memLayout splits memories.md into its memory blocks and its prose: every
// line outside a block. A second block with an id already seen is prose.
type memLayout struct {
	prose []string
	units []*memUnit
	byID  map[string]*memUnit
}

func layoutMemories(src []byte) *memLayout {
	text := string(src)
	l := &memLayout{byID: map[string]*memUnit{}}
	typ := entry.Pattern // seed 001 starts in Patterns
	addProse := func(s string) {
		for _, line := range diff3.SplitLines(s) {
			if t, ok := entry.SectionOf(line); ok {
				typ = t
			}
			l.prose = append(l.prose, line)
		}
	}
	pos := 0
	for _, b := range entry.MemoryBlocks(src) {
		if _, dup := l.byID[b.ID]; dup {
			continue // stays in the prose
		}
		start := b.Start
		blank := ""
		if start > pos && text[start-1] == '\n' {
			prev := strings.LastIndexByte(text[:start-1], '\n') + 1
			if prev >= pos && strings.TrimSpace(text[prev:start]) == "" {
				blank, start = text[prev:start], prev
			}
		}
		addProse(text[pos:start])
		u := &memUnit{id: b.ID, typ: typ, blank: blank, block: text[b.Start:b.End], gap: len(l.prose)}
		l.units = append(l.units, u)
		l.byID[b.ID] = u
		pos = b.End
	}
	addProse(text[pos:])
	return l
}

// memPiece is a piece of the merged memories.md: a prose line, or a memory
// (its blank line and block, or a conflict about it).
type memPiece struct {
	line       string
	unit       *memOut
	fromTheirs bool // a prose line only theirs has
}

// memOut is a memory as the merge writes it: its id and the time in it
// (for placing it newest first), the section it belongs in, the blank
// line before it, and its block or the conflict about it.
type memOut struct {
	id    string
	unix  int64
	typ   entry.MemoryType
	blank string
	text  string
}

func memoryUnix(id string) int64 { return entry.Memory{ID: id}.Unix() }

// merge3 is the three-way rule for one value: a side that did not change
// it gives way to the other; the same change on both sides is that change.
func merge3[T comparable](base, ours, theirs T, inBase bool) (v T, fromTheirs, conflict bool) {
	switch {
	case ours == theirs:
		return ours, false, false
	case inBase && ours == base:
		return theirs, true, false
	case inBase && theirs == base:
		return ours, false, false
	}
	return ours, false, true
}

// Renamed is a memory the merge gave a new id: both branches added a
// memory with one id (4 random hex digits a second: clones writing at
// once can draw the same) and different texts. Both are kept; the one
// whose block sorts after the other's gets ID, made from its text, so
// that the merge in either direction, on any clone, renames the same
// memory to the same id.
type Renamed struct {
	Was, ID string
	Side    string // "ours" or "theirs"
}

func (r Renamed) String() string {
	return r.Was + " was added on both branches with different texts; both are kept, " + r.Side + "' as " + r.ID
}

// renameCollisions gives a new id to one of each pair of memories added
// on both sides under one id with different type or text (Renamed), in
// the side's layout, so that the merge sees two additions.
func renameCollisions(lb, lo, lt *memLayout) []Renamed {
	taken := func(id string) bool { return lb.byID[id] != nil || lo.byID[id] != nil || lt.byID[id] != nil }
	var renamed []Renamed
	for _, o := range slices.Clone(lo.units) {
		t := lt.byID[o.id]
		if t == nil || lb.byID[o.id] != nil || (o.typ == t.typ && o.text() == t.text()) {
			continue
		}
		side, l, u := "theirs", lt, t
		if string(o.typ)+o.text() > string(t.typ)+t.text() {
			side, l, u = "ours", lo, o
		}
		id := collisionID(u, taken)
		renamed = append(renamed, Renamed{Was: u.id, ID: id, Side: side})
		delete(l.byID, u.id)
		u.block = strings.Replace(u.block, u.id, id, 1) // in its heading, the block's first line
		u.id = id
		l.byID[id] = u
	}
	return renamed
}

// collisionID is a new id for u in u's second: the first free suffix
// from one made of a hash of u's type and text (the next second's when
// all 65,536 are taken).
func collisionID(u *memUnit, taken func(string) bool) string {
	sum := sha256.Sum256([]byte(string(u.typ) + "\n" + u.text()))
	start := int(sum[0])<<8 | int(sum[1])
	for unix := memoryUnix(u.id); ; unix++ {
		for k := 0; k < 1<<16; k++ {
			if id := fmt.Sprintf("mem-%d-%04x", unix, (start+k)&0xffff); !taken(id) {
				return id
			}
		}
	}
}

// mergeMemories merges memories.md by memory id. The result is ours' file
// with theirs' changes applied: theirs' new memories go into their sections,
// newest first; the prose outside the blocks merges line by line.
func mergeMemories(base, ours, theirs []byte, labels Labels) ([]byte, int, []Renamed) {
	lb, lo, lt := layoutMemories(base), layoutMemories(ours), layoutMemories(theirs)
	renamed := renameCollisions(lb, lo, lt)
	conflicts := 0
	conflictText := func(o, t *memUnit) string {
		var b strings.Builder
		oursBlock, theirsBlock := "", ""
		if o != nil {
			oursBlock = o.block
		}
		if t != nil {
			theirsBlock = t.block
		}
		labels.WriteConflict(&b, oursBlock, theirsBlock)
		return b.String()
	}

	// What becomes of each of ours' memories: nil where it is deleted or
	// moves to another section.
	kept := map[*memUnit]*memOut{}
	moved := map[string]*memOut{} // by id: theirs moved it to another section
	for _, o := range lo.units {
		b, t := lb.byID[o.id], lt.byID[o.id]
		out := &memOut{id: o.id, unix: memoryUnix(o.id), typ: o.typ, blank: o.blank, text: o.block}
		switch {
		case t == nil && b == nil: // added by ours
		case t == nil: // deleted by theirs
			if o.typ == b.typ && o.text() == b.text() {
				continue
			}
			out.text = conflictText(o, nil)
			conflicts++
		default:
			var bt, bb, bbl string
			if b != nil {
				bt, bb, bbl = string(b.typ), b.text(), b.blank
			}
			typ, _, typConflict := merge3(entry.MemoryType(bt), o.typ, t.typ, b != nil)
			_, textTheirs, textConflict := merge3(bb, o.text(), t.text(), b != nil)
			if blank, _, c := merge3(bbl, o.blank, t.blank, b != nil); !c {
				out.blank = blank
			}
			switch {
			case typConflict || textConflict:
				out.text = conflictText(o, t)
				conflicts++
			case textTheirs:
				out.text = t.block
			}
			if typ != o.typ && !typConflict && !textConflict {
				out.typ, out.blank = typ, "\n"
				moved[o.id] = out
				continue
			}
		}
		kept[o] = out
	}

	// The prose, with ours' memories in the gaps between its lines.
	d := diff3.New(lb.prose, lo.prose, lt.prose)
	gaps := make([][]*memOut, len(lo.prose)+1)
	for _, o := range lo.units {
		if out := kept[o]; out != nil {
			gaps[o.gap] = append(gaps[o.gap], out)
		}
	}
	exact := make([]bool, len(lo.prose)+1) // gaps placed where ours has them
	for i := range exact {
		exact[i] = true
	}
	for _, c := range d.Chunks {
		if d.Resolve(c) != diff3.TakeOurs {
			for g := c.Ours.Lo; g <= c.Ours.Hi; g++ {
				exact[g] = false
			}
		}
	}
	var pieces []memPiece
	emitLine := func(s string) { pieces = append(pieces, memPiece{line: s}) }
	emitUnits := func(us []*memOut) {
		for _, u := range us {
			pieces = append(pieces, memPiece{unit: u})
		}
	}
	for _, c := range d.Chunks {
		if d.Resolve(c) == diff3.TakeOurs {
			for k := c.Ours.Lo; k < c.Ours.Hi; k++ {
				if exact[k] {
					emitUnits(gaps[k])
				}
				emitLine(lo.prose[k])
			}
			continue
		}
		// Ours' lines here were replaced: its memories in these gaps go
		// before the new lines up to the last one theirs has before them
		// too, the others after (as under a heading whose intro changed).
		var us []*memOut
		for g := c.Ours.Lo; g <= c.Ours.Hi; g++ {
			us = append(us, gaps[g]...)
		}
		before := 0
		for i, u := range us {
			if t := lt.byID[u.id]; t != nil && t.gap <= c.Theirs.Lo {
				before = i + 1
			}
		}
		emitUnits(us[:before])
		if d.Resolve(c) == diff3.TakeTheirs {
			for _, l := range lt.prose[c.Theirs.Lo:c.Theirs.Hi] {
				pieces = append(pieces, memPiece{line: l, fromTheirs: true})
			}
		} else {
			conflicts += d.WriteChunk(emitLine, c, labels)
		}
		emitUnits(us[before:])
	}
	if exact[len(lo.prose)] {
		emitUnits(gaps[len(lo.prose)])
	}
	pieces = dropDuplicateSections(pieces, lo.prose, lt.prose)

	// Theirs' new memories, theirs' moves, and theirs' changes to memories
	// ours deleted, in theirs' order.
	for _, t := range lt.units {
		o, b := lo.byID[t.id], lb.byID[t.id]
		var out *memOut
		switch {
		case o != nil:
			out = moved[t.id]
		case b == nil: // added by theirs
			out = &memOut{id: t.id, blank: "\n", text: t.block}
		case t.typ != b.typ || t.text() != b.text(): // deleted by ours, changed by theirs
			out = &memOut{id: t.id, blank: "\n", text: conflictText(nil, t)}
			conflicts++
		}
		if out != nil {
			out.unix, out.typ = memoryUnix(t.id), t.typ
			pieces = insertMemoryPiece(pieces, out, t.typ)
		}
	}

	pieces = settleMemories(placeMemories(pieces))
	var w diff3.LineWriter
	for _, p := range pieces {
		if p.unit != nil {
			w.Add(p.unit.blank)
			w.Add(p.unit.text)
		} else {
			w.Add(p.line)
		}
	}
	return []byte(w.String()), conflicts, renamed
}

// insertMemoryPiece puts a memory into its section, newest first: before
// the first memory of that type whose id is older, after those of the same
// second. A section without memories gets it under its heading (after an
// introductory paragraph); a missing section is created in the canonical
// order, as insertMemory does.
func insertMemoryPiece(pieces []memPiece, u *memOut, typ entry.MemoryType) []memPiece {
	insert := func(at int, ps ...memPiece) []memPiece {
		out := make([]memPiece, 0, len(pieces)+len(ps))
		out = append(out, pieces[:at]...)
		out = append(out, ps...)
		return append(out, pieces[at:]...)
	}
	cur := entry.Pattern
	header, last := -1, -1
	headers := map[entry.MemoryType]int{}
	for i, p := range pieces {
		if p.unit == nil {
			if t, ok := entry.SectionOf(p.line); ok {
				cur = t
				if _, seen := headers[t]; !seen {
					headers[t] = i
				}
				if t == typ && header < 0 {
					header = i
				}
			}
			continue
		}
		if cur != typ {
			continue
		}
		if p.unit.unix < u.unix {
			if i == 0 {
				u.blank = ""
			}
			return insert(i, memPiece{unit: u})
		}
		last = i
	}
	if last >= 0 {
		return insert(last+1, memPiece{unit: u})
	}
	if header >= 0 {
		at := header + 1
		for at < len(pieces) && pieces[at].unit == nil {
			text := strings.TrimSuffix(strings.TrimSuffix(pieces[at].line, "\n"), "\r")
			if strings.TrimSpace(text) == "" || entry.HeadingLevel(text) > 0 {
				break
			}
			at++
		}
		return insert(at, memPiece{unit: u})
	}
	section := memPiece{line: "## " + typ.Section() + "\n"}
	after := false
	for _, t := range entry.MemoryTypes {
		if t == typ {
			after = true
			continue
		}
		if at, ok := headers[t]; ok && after {
			return insert(at, section, memPiece{unit: u}, memPiece{line: "\n"})
		}
	}
	// At the end, after a blank line; an empty file becomes the template.
	if blankPieces(pieces) {
		pieces = nil
		for _, l := range diff3.SplitLines(entry.MemoriesTemplate) {
			pieces = append(pieces, memPiece{line: l})
		}
		return insertMemoryPiece(pieces, u, typ)
	}
	var tail []byte
	for i := len(pieces) - 1; i >= 0 && len(tail) < 2; i-- {
		p := pieces[i]
		s := p.line
		if p.unit != nil {
			s = p.unit.blank + p.unit.text
		}
		tail = append([]byte(s), tail...)
	}
	if !bytes.HasSuffix(tail, []byte("\n\n")) {
		// A blank line; lineWriter first ends a last line that has no break.
		return insert(len(pieces), memPiece{line: "\n"}, section, memPiece{unit: u})
	}
	return insert(len(pieces), section, memPiece{unit: u})
}

// dropDuplicateSections removes the section headings the prose merge
// doubled: where each side added the same "## " section in a different
// place, the file keeps one heading (ours' if it has one), as many as the
// side with more of them has.
func dropDuplicateSections(pieces []memPiece, ours, theirs []string) []memPiece {
	count := func(lines []string) map[entry.MemoryType]int {
		n := map[entry.MemoryType]int{}
		for _, l := range lines {
			if t, ok := entry.SectionOf(l); ok {
				n[t]++
			}
		}
		return n
	}
	no, nt := count(ours), count(theirs)
	merged := map[entry.MemoryType]int{}
	for _, p := range pieces {
		if t, ok := entry.SectionOf(p.line); ok && p.unit == nil {
			merged[t]++
		}
	}
	for i := len(pieces) - 1; i >= 0; i-- {
		p := pieces[i]
		if t, ok := entry.SectionOf(p.line); ok && p.unit == nil && p.fromTheirs && merged[t] > max(no[t], nt[t]) {
			pieces = slices.Delete(pieces, i, i+1)
			merged[t]--
		}
	}
	return pieces
}

// placeMemories moves each memory that is not under a heading of its type
// into its section (insertMemoryPiece): the prose merge can put a heading
// from one side above memories from the other.
func placeMemories(pieces []memPiece) []memPiece {
	for moved := true; moved; {
		moved = false
		cur := entry.Pattern
		for i, p := range pieces {
			if p.unit == nil {
				if t, ok := entry.SectionOf(p.line); ok {
					cur = t
				}
				continue
			}
			if u := p.unit; u.typ != cur {
				pieces = slices.Delete(pieces, i, i+1)
				u.blank = "\n"
				pieces = insertMemoryPiece(pieces, u, u.typ)
				moved = true
				break
			}
		}
	}
	return pieces
}

// settleMemories moves memories that the merge left right above prose the
// parser would read as theirs (quote lines, a metadata comment) below that
// prose, where it is still in the same section: the prose came from one
// side and the memories from the other, and neither meant them together.
func settleMemories(pieces []memPiece) []memPiece {
	for i := 0; i < len(pieces); {
		if pieces[i].unit == nil {
			i++
			continue
		}
		group := i
		for i < len(pieces) && pieces[i].unit != nil {
			i++
		}
		last := -1
		for j := i; j < len(pieces) && pieces[j].unit == nil; j++ {
			text := strings.TrimSuffix(strings.TrimSuffix(pieces[j].line, "\n"), "\r")
			if !utf8.ValidString(text) {
				text = strings.ToValidUTF8(text, "\uFFFD")
			}
			if entry.HeadingLevel(text) > 0 {
				break
			}
			if entry.IsBlockLine(text) {
				last = j
			}
		}
		if last < 0 {
			continue
		}
		units := slices.Clone(pieces[group:i])
		copy(pieces[group:], pieces[i:last+1])
		copy(pieces[group+last+1-i:], units)
		i = last + 1
	}
	return pieces
}

func blankPieces(pieces []memPiece) bool {
	for _, p := range pieces {
		if p.unit != nil || strings.TrimSpace(p.line) != "" {
			return false
		}
	}
	return true
}
