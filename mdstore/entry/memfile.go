package entry

import (
	"bytes"
	"fmt"
	"iter"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// MemoriesTemplate is the content of a new memories.md (seed 001).
const MemoriesTemplate = "# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n## Context\n"

// matchMetadata is seed 001's METADATA_RE,
//
//	<!-- tags: ([^|]*) \| created: (\d{4}-\d{2}-\d{2}) -->
//
// written out by hand (the regexp was a quarter of the parse time); a fuzz
// test checks the two agree. It returns the two groups.
func matchMetadata(line string) (tags, created string, ok bool) {
	const open, sep, close = "<!-- tags: ", " | created: ", " -->"
	for from := 0; ; {
		i := strings.Index(line[from:], open)
		if i < 0 {
			return "", "", false
		}
		start := from + i + len(open)
		from = from + i + 1
		// [^|]* then " |": the tags end before the first '|'.
		bar := strings.IndexByte(line[start:], '|')
		if bar < 1 || line[start+bar-1] != ' ' {
			continue
		}
		tagsEnd := start + bar - 1
		rest := line[tagsEnd:]
		if !strings.HasPrefix(rest, sep) {
			continue
		}
		date := rest[len(sep):]
		if len(date) < 10+len(close) || !isDate(date[:10]) || !strings.HasPrefix(date[10:], close) {
			continue
		}
		return line[start:tagsEnd], date[:10], true
	}
}

// isDate matches \d{4}-\d{2}-\d{2}.
func isDate(s string) bool {
	for i := 0; i < 10; i++ {
		if i == 4 || i == 7 {
			if s[i] != '-' {
				return false
			}
		} else if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// memoriesFile is a parsed memories.md: the memories, the problems found,
// and where in the bytes each block and section header is, so that edits
// touch only those bytes.
type MemoriesFile struct {
	src      []byte
	Memories []Memory
	Warnings []Warning
	Blocks   []MemoryBlock              // every "### mem-…" block, valid or not
	sections map[MemoryType]sectionSpan // the first header of each type
}

// MemoryBlock is where one "### <id>" block of memories.md is: the bytes
// from its heading to the end of its last content or metadata line.
type MemoryBlock struct {
	ID         string
	Start, End int
	Line       int // of the heading
}

// sectionSpan locates a "## <Section>" header line.
type sectionSpan struct {
	lineStart, lineEnd int // lineEnd is after the newline, or len(src)
	line               int
}

// line is one line of the file with its byte range.
type line struct {
	text       string // without the line terminator
	start, end int    // end includes the terminator
	number     int
}

// eachLine yields the lines of text with their byte ranges.
func eachLine(text string) iter.Seq[line] {
	return func(yield func(line) bool) {
		for start, n := 0, 1; start < len(text); n++ {
			next := len(text)
			if end := strings.IndexByte(text[start:], '\n'); end >= 0 {
				next = start + end + 1
			}
			lt := strings.TrimSuffix(strings.TrimSuffix(text[start:next], "\n"), "\r")
			if !yield(line{text: lt, start: start, end: next, number: n}) {
				return
			}
			start = next
		}
	}
}

// lineEnd returns the end of the line of src that begins at start: after
// its newline, or len(src). With lineText it walks a file too large to
// copy into a string for eachLine.
func lineEnd(src []byte, start int) int {
	if i := bytes.IndexByte(src[start:], '\n'); i >= 0 {
		return start + i + 1
	}
	return len(src)
}

// lineText is the text of the line src[start:end], as eachLine gives it.
func lineText(src []byte, start, end int) string {
	return strings.TrimSuffix(strings.TrimSuffix(string(src[start:end]), "\n"), "\r")
}

// HeadingLevel returns the level of an ATX heading ("## x" is 2), or 0.
func HeadingLevel(text string) int {
	level := 0
	for level < len(text) && text[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0
	}
	if level < len(text) && text[level] != ' ' && text[level] != '\t' {
		return 0
	}
	return level
}

// contentLine reports whether text is a blockquote line and returns its
// text without the "> " prefix.
func contentLine(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, ">")
	if !ok {
		return "", false
	}
	return strings.TrimPrefix(rest, " "), true
}

// parseMemoriesFile reads memories.md. It never fails: every problem becomes a
// warning (with path) and every valid memory is returned. The rules follow
// seed 001's line parser so both read the same memories from a file.
func ParseMemoriesFile(src []byte, path string) *MemoriesFile {
	f := ParseMemoriesText(string(src), path)
	f.src = src
	return f
}

// parseMemoriesText is parseMemories on a string, for callers that read
// the file straight into one: a copy of a large file costs more in page
// faults than the parse itself.
func ParseMemoriesText(text, path string) *MemoriesFile {
	f := &MemoriesFile{sections: map[MemoryType]sectionSpan{}}
	warn := func(n int, format string, args ...any) {
		f.Warnings = append(f.Warnings, Warning{Path: path, Line: n, Message: fmt.Sprintf(format, args...)})
	}
	minor := func(n int, format string, args ...any) {
		f.Warnings = append(f.Warnings, Warning{Path: path, Line: n, Message: fmt.Sprintf(format, args...), Minor: true})
	}
	seen := map[string]int{} // id → line of its first valid block

	type building struct {
		id       string
		typ      MemoryType
		line     line
		content  []string
		tags     []string
		created  string
		metaLine int
		badMeta  bool // a metadata comment was there but unreadable (already reported)
		lastEnd  int
	}
	var cur *building
	currentType := Pattern // seed 001 starts in Patterns
	flush := func() {
		if cur == nil {
			return
		}
		b := cur
		cur = nil
		f.Blocks = append(f.Blocks, MemoryBlock{ID: b.id, Start: b.line.start, End: b.lastEnd, Line: b.line.number})
		if len(b.content) == 0 {
			warn(b.line.number, "memory %s has no content lines (\"> …\"); skipped", b.id)
			return
		}
		if first, dup := seen[b.id]; dup {
			warn(b.line.number, "duplicate memory id %s (first at line %d); skipped", b.id, first)
			return
		}
		seen[b.id] = b.line.number
		m := Memory{ID: b.id, Type: b.typ, Content: strings.Join(b.content, "\n"), Tags: b.tags, Created: b.created, Line: b.line.number}
		if m.Tags == nil {
			m.Tags = []string{}
		}
		if b.metaLine == 0 {
			m.Created = time.Unix(m.Unix(), 0).UTC().Format(DateLayout)
			if !b.badMeta {
				minor(b.line.number, "memory %s has no metadata comment (<!-- tags: … | created: YYYY-MM-DD -->); created date taken from its id", b.id)
			}
		}
		f.Memories = append(f.Memories, m)
	}

	for ln := range eachLine(text) {
		text := ln.text
		binary := !utf8.ValidString(text)
		if binary {
			warn(ln.number, "line is not valid UTF-8")
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		if level := HeadingLevel(text); level > 0 {
			flush()
			title := strings.TrimSpace(text[level:])
			switch level {
			case 2:
				if t, ok := sectionHeading(text); ok {
					currentType = t
					if prev, dup := f.sections[t]; dup {
						minor(ln.number, "second \"## %s\" section (first at line %d); new memories go to the first", title, prev.line)
					} else {
						f.sections[t] = sectionSpan{lineStart: ln.start, lineEnd: ln.end, line: ln.number}
					}
				}
			case 3:
				switch {
				case ValidMemoryID(title):
					cur = &building{id: title, typ: currentType, line: ln, lastEnd: ln.end}
				case title == "":
					warn(ln.number, "empty \"###\" heading; a memory heading is \"### mem-<unix>-<4 hex>\"")
				case strings.HasPrefix(title, "mem-"):
					warn(ln.number, "invalid memory id %q (expected mem-<unix>-<4 hex digits 0-9a-f>); block skipped", title)
				default:
					warn(ln.number, "%q is not a memory id (mem-<unix>-<4 hex>); block skipped", title)
				}
			}
			continue
		}
		if cur == nil {
			continue // prose, or the rest of a skipped block
		}
		if cur.metaLine != 0 {
			// The metadata comment closed the block; what follows up to
			// the next heading is prose. (Seed 001's parser would append
			// quote lines to the memory above and let a second comment
			// win; lore does neither, so that a block added above stray
			// lines keeps exactly what it was given.)
			if _, ok := contentLine(text); ok {
				warn(ln.number, "quote line after the metadata comment of %s is outside any memory; ignored", cur.id)
			} else if _, _, ok := matchMetadata(text); ok {
				warn(ln.number, "second metadata comment for %s; ignored", cur.id)
			}
			continue
		}
		if content, ok := contentLine(text); ok {
			cur.content = append(cur.content, content)
			cur.lastEnd = ln.end
			continue
		}
		if strings.Contains(text, "<!--") {
			tags, created, ok := matchMetadata(text)
			switch {
			case ok:
				if _, err := time.Parse(DateLayout, created); err != nil {
					warn(ln.number, "created date %q of %s is not a date", created, cur.id)
				}
				cur.tags = nil
				for _, tag := range strings.Split(tags, ",") {
					if tag = strings.TrimSpace(tag); tag != "" {
						cur.tags = append(cur.tags, tag)
					}
				}
				cur.created = created
				cur.metaLine = ln.number
			case !strings.Contains(text, "-->"):
				cur.badMeta = true
				warn(ln.number, "unclosed HTML comment in %s (expected <!-- tags: … | created: YYYY-MM-DD -->)", cur.id)
			default:
				cur.badMeta = true
				warn(ln.number, "malformed metadata comment in %s (expected <!-- tags: a, b | created: YYYY-MM-DD -->)", cur.id)
			}
			cur.lastEnd = ln.end
			continue
		}
		if strings.TrimSpace(text) == "" || binary {
			continue // a blank line, or already reported
		}
		warn(ln.number, "unexpected text in memory %s (content lines start with \"> \")", cur.id)
	}
	flush()
	sort.SliceStable(f.Warnings, func(i, j int) bool { return f.Warnings[i].Line < f.Warnings[j].Line })
	return f
}

// IDs returns every memory id that appears in a block heading.
func (f *MemoriesFile) IDs() map[string]bool {
	ids := make(map[string]bool, len(f.Blocks))
	for _, b := range f.Blocks {
		ids[b.ID] = true
	}
	return ids
}

// ParseMemories reads memories.md: every valid memory in file order, and
// every problem as a warning naming path and the line. It never fails.
func ParseMemories(src []byte, path string) ([]Memory, []Warning) {
	f := ParseMemoriesFile(src, path)
	return f.Memories, f.Warnings
}

// MemoryBlocks locates every memory block of memories.md, valid or not, in
// file order: what an edit of one memory touches.
func MemoryBlocks(src []byte) []MemoryBlock {
	return ParseMemoriesFile(src, "").Blocks
}

// SectionOf reads a line of memories.md as the parser does (with or
// without its line break) and reports the type whose "## " section it
// opens.
func SectionOf(line string) (MemoryType, bool) {
	text := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	if HeadingLevel(text) != 2 {
		return "", false
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	return typeOfSection(strings.TrimSpace(text[2:]))
}

// IsBlockLine reports whether the parser reads text (a line without its
// line break) as part of a memory block: a quote line or the metadata
// comment.
func IsBlockLine(text string) bool {
	if _, quote := contentLine(text); quote {
		return true
	}
	_, _, meta := matchMetadata(text)
	return meta
}

// FormatMemory renders one memory block the way seed 001 writes it, with
// blank content lines as ">" so that they survive a round trip.
func FormatMemory(m Memory) string {
	var b strings.Builder
	b.WriteString("### " + m.ID + "\n")
	for _, l := range strings.Split(m.Content, "\n") {
		if l == "" {
			b.WriteString(">\n")
		} else {
			b.WriteString("> " + l + "\n")
		}
	}
	b.WriteString("<!-- tags: " + strings.Join(m.Tags, ", ") + " | created: " + m.Created + " -->\n")
	return b.String()
}

// InsertMemory returns src with m added directly under its section header
// (after an introductory paragraph attached to the header, if any). A
// missing section is created in the canonical order; an empty file becomes
// the template first. A file whose lines all end in CR LF gets CR LF lines.
func InsertMemory(src []byte, m Memory) []byte {
	return KeepingCRLF(src, func(src []byte) []byte {
		if len(bytes.TrimSpace(src)) == 0 {
			src = []byte(MemoriesTemplate)
		}
		return insertMemory(src, memorySections(src), m)
	})
}

// addMemory is InsertMemory made idempotent: a file that already has a
// block with m's id is returned unchanged.
func AddMemory(src []byte, m Memory) []byte {
	if len(bytes.TrimSpace(src)) == 0 {
		return InsertMemory(src, m)
	}
	return KeepingCRLF(src, func(src []byte) []byte {
		// An id that appears nowhere in the file needs no parse of its
		// thousands of memories: only the sections are looked for.
		if bytes.Contains(src, []byte(m.ID)) {
			if f := ParseMemoriesFile(src, ""); f.IDs()[m.ID] {
				return src
			}
		}
		return insertMemory(src, memorySections(src), m)
	})
}

// addMemories is addMemory of each of ms, in one pass over the file
// rather than one a memory (an import of 10,000 memories into a file of
// 3.5 MB): each section gets its new memories on top, in the order of ms,
// as adding them one by one from the last would put them.
func AddMemories(src []byte, ms []Memory) []byte {
	if len(ms) == 0 {
		return src
	}
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte(MemoriesTemplate)
	}
	return KeepingCRLF(src, func(src []byte) []byte {
		// Of two memories with one id the last is added, as one by one
		// from the last would.
		have := ParseMemoriesFile(src, "").IDs()
		added := make([]bool, len(ms))
		for i := len(ms) - 1; i >= 0; i-- {
			if !have[ms[i].ID] {
				have[ms[i].ID], added[i] = true, true
			}
		}
		blocks := map[MemoryType]*strings.Builder{}
		for i, m := range ms {
			if !added[i] {
				continue
			}
			if blocks[m.Type] == nil {
				blocks[m.Type] = &strings.Builder{}
			}
			blocks[m.Type].WriteString("\n" + FormatMemory(m))
		}
		for _, t := range MemoryTypes {
			if b := blocks[t]; b != nil {
				src = insertBlock(src, memorySections(src), t, b.String())
			}
		}
		return src
	})
}

// memorySections finds the first "## <Type>" heading of each memory type,
// as parseMemories does. Only the lines that start with "##" are made
// strings: a copy of a file of thousands of memories costs more than the
// scan.
func memorySections(src []byte) map[MemoryType]sectionSpan {
	sections := map[MemoryType]sectionSpan{}
	// Only the lines that start with "##" are visited, found by one
	// search each, and the lines before them counted at once.
	line, counted := 1, 0 // line is the number of the line starting at counted
	for start := 0; start < len(src); {
		if !bytes.HasPrefix(src[start:], []byte("##")) {
			i := bytes.Index(src[start:], []byte("\n##"))
			if i < 0 {
				break
			}
			start += i + 1
		}
		line += bytes.Count(src[counted:start], []byte("\n"))
		counted = start
		end := lineEnd(src, start)
		// A section's heading is "## …", never "### …" (a memory's).
		if !bytes.HasPrefix(src[start:end], []byte("###")) {
			if t, ok := sectionHeading(lineText(src, start, end)); ok {
				if _, dup := sections[t]; !dup {
					sections[t] = sectionSpan{lineStart: start, lineEnd: end, line: line}
				}
			}
		}
		start = end
	}
	return sections
}

// sectionHeading reports the memory type whose section the line opens
// ("## Patterns").
func sectionHeading(text string) (MemoryType, bool) {
	if HeadingLevel(text) != 2 {
		return "", false
	}
	return typeOfSection(strings.TrimSpace(text[2:]))
}

// keepingCRLF applies edit to src as it is, or, when every line of src
// ends in CR LF (a file saved on Windows), to src with LF line ends, and
// gives the result CR LF line ends again: what lore adds matches the file.
// A file that mixes both is edited as it is.
func KeepingCRLF(src []byte, edit func([]byte) []byte) []byte {
	if first := bytes.IndexByte(src, '\n'); first <= 0 || src[first-1] != '\r' {
		return edit(src)
	}
	lf := bytes.Count(src, []byte("\n"))
	if lf == 0 || bytes.Count(src, []byte("\r\n")) != lf {
		return edit(src)
	}
	out := edit(bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n")))
	return bytes.ReplaceAll(out, []byte("\n"), []byte("\r\n"))
}

// insertMemory adds m to src, whose sections are those memorySections
// finds.
func insertMemory(src []byte, sections map[MemoryType]sectionSpan, m Memory) []byte {
	return insertBlock(src, sections, m.Type, "\n"+FormatMemory(m))
}

// insertBlock puts block, memories of type t each after a blank line, on
// top of t's section of src (making the section where it is missing).
func insertBlock(src []byte, sections map[MemoryType]sectionSpan, t MemoryType, block string) []byte {
	if sec, ok := sections[t]; ok {
		at := sec.lineEnd
		prefix := ""
		if at == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			prefix = "\n"
		}
		// Keep a paragraph that starts right under the header with it.
		for at < len(src) {
			end := lineEnd(src, at)
			if text := lineText(src, at, end); strings.TrimSpace(text) == "" || HeadingLevel(text) > 0 {
				break
			}
			at = end
		}
		return splice(src, at, at, prefix+block)
	}
	// The section is missing: put it before the next section that exists.
	section := "## " + t.Section() + "\n" + block
	after := false
	for _, other := range MemoryTypes {
		if other == t {
			after = true
			continue
		}
		if sec, ok := sections[other]; ok && after {
			return splice(src, sec.lineStart, sec.lineStart, section+"\n")
		}
	}
	sep := ""
	switch {
	case !bytes.HasSuffix(src, []byte("\n")):
		sep = "\n\n"
	case !bytes.HasSuffix(src, []byte("\n\n")):
		sep = "\n"
	}
	return splice(src, len(src), len(src), sep+section)
}

// RemoveMemory returns src without the memory with that id, and whether
// there was one: the block list and show read as it (the first valid block
// with the id, or the first block with it when none is valid) and the
// blank line before it. A later block with the same id, which a hand edit
// or a merge can leave, stays.
func RemoveMemory(src []byte, id string) ([]byte, bool) {
	f := ParseMemoriesFile(src, "")
	b, ok := f.ShownBlock(id)
	if !ok {
		return src, false
	}
	return f.remove(b), true
}

// shownBlock is the block of the memory with that id as list and show
// read it: the first valid block with the id, or else the first block.
func (f *MemoriesFile) ShownBlock(id string) (MemoryBlock, bool) {
	line := 0
	for _, m := range f.Memories {
		if m.ID == id {
			line = m.Line
			break
		}
	}
	first, found := MemoryBlock{}, false
	for _, b := range f.Blocks {
		if b.ID != id {
			continue
		}
		if b.Line == line {
			return b, true
		}
		if !found {
			first, found = b, true
		}
	}
	return first, found
}

// remove returns the file without block b and the blank line before it.
func (f *MemoriesFile) remove(b MemoryBlock) []byte {
	src := f.src
	start := b.Start
	if start > 0 && src[start-1] == '\n' {
		// The blank line written before the block when it was added.
		prev := bytes.LastIndexByte(src[:start-1], '\n') + 1
		if strings.TrimSpace(string(src[prev:start])) == "" {
			start = prev
		}
	}
	return splice(src, start, b.End, "")
}

func splice(src []byte, start, end int, insert string) []byte {
	out := make([]byte, 0, len(src)-(end-start)+len(insert))
	out = append(out, src[:start]...)
	out = append(out, insert...)
	return append(out, src[end:]...)
}
