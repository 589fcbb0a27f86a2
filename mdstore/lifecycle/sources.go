package lifecycle

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adrg/frontmatter"

	"lore/internal/markdown"
	"lore/internal/words"
	"lore/mdstore/entry"
)

// The stores of the systems people keep their agents' memory in today,
// relative to a project's top (or, for Claude Code's memory folder, the
// folder itself).
const (
	beadsConfigPath     = ".beads/backup/config.jsonl"
	ralphDecisionsPath  = ".ralph/agent/decisions.md"
	claudeProjectFile   = "CLAUDE.md"
	claudeMemoryIndex   = "MEMORY.md"
	beadsMemoryPrefix   = "kv.memory."
	claudeMemoryTag     = "claude-memory"
	claudeProjectTag    = "claude-md"
	beadsMemoryTag      = "beads"
	ralphDecisionTag    = "ralph-decision"
	maxSourceTitleChars = 80
)

// readBeadsMemories reads beads' memories (bd remember) from the backup
// of its config table that bd writes as JSON lines, p holding data: each
// row whose key is kv.memory.<key> is a memory. A memory becomes a
// knowledge entry: beads names it by its key and bd remember --key
// updates it in place, as a knowledge entry is named by its slug; its
// first line is the title. A line that is not JSON refuses the import,
// naming it.
func readBeadsMemories(p string, data []byte) ([]entry.Knowledge, []entry.Warning, error) {
	var out []entry.Knowledge
	var warnings []entry.Warning
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), MaxSeedFileSize)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var row struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		}
		if err := json.Unmarshal(text, &row); err != nil {
			return nil, nil, &entry.FileError{Path: p, Line: line, Msg: "not a row of beads' config table: " + err.Error()}
		}
		key, ok := strings.CutPrefix(row.Key, beadsMemoryPrefix)
		if !ok {
			continue
		}
		slug := sourceSlug(key, "")
		body := strings.TrimSpace(row.Value)
		if slug == "" || body == "" {
			warnings = append(warnings, entry.Warning{Path: p, Line: line, Message: fmt.Sprintf("memory %q left out: no name lore can keep, or nothing in it", key)})
			continue
		}
		out = append(out, entry.Knowledge{Slug: slug, Title: words.FirstLine(body, maxSourceTitleChars), Tags: []string{beadsMemoryTag}, Body: body})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	return out, warnings, nil
}

// decisionHeading is the heading of an entry of ralph-orchestrator's
// decision journal: "DEC-001 (2026-01-31)" or "DEC-011 (2026-02-21T00:23Z)".
var decisionHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(DEC-[0-9]+)\s*\(([^)]*)\)`) })

// readRalphDecisions reads ralph-orchestrator's decision journal,
// .ralph/agent/decisions.md (p holding data): each "## DEC-NNN (date)"
// section is a memory of type decision, its content the section's lines
// as written (Decision, Confidence, Alternatives, Reasoning,
// Reversibility), tagged ralph-decision and its DEC id. Its id is made
// from its date and DEC id, the same on every import. The template in the
// file's fenced block is not a decision; a decision whose date is not one
// refuses the import, naming the line.
func readRalphDecisions(p string, data []byte) ([]entry.Memory, error) {
	doc := markdown.Parse(data)
	var out []entry.Memory
	for _, s := range doc.Sections() {
		m := decisionHeading().FindStringSubmatch(s.Title)
		if m == nil {
			continue
		}
		line := 1 + bytes.Count(data[:s.Heading.Start], []byte("\n"))
		when, err := decisionTime(m[2])
		if err != nil {
			return nil, &entry.FileError{Path: p, Line: line, Msg: fmt.Sprintf("%s: %q is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MMZ)", m[1], m[2])}
		}
		content := strings.TrimSpace(string(s.Body.Of(data)))
		if content == "" {
			continue
		}
		sum := sha256.Sum256([]byte("ralph-decision:" + m[1]))
		out = append(out, entry.Memory{
			ID:      fmt.Sprintf("mem-%d-%s", when.Unix(), hex.EncodeToString(sum[:2])),
			Type:    entry.Decision,
			Content: m[1] + "\n" + content,
			Tags:    []string{ralphDecisionTag, strings.ToLower(m[1])},
			Created: when.Format(entry.DateLayout),
		})
	}
	return out, nil
}

// decisionTime reads the date of a decision's heading.
func decisionTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02T15:04Z", time.RFC3339, "2006-01-02T15:04:05Z", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("not a date: %q", s)
}

// readMarkdownSections reads a Markdown file people write for their
// agents (a project's CLAUDE.md, Claude Code's MEMORY.md), p holding
// data: each of its sections — those under its second-level headings, or
// its first-level ones when it has no other — is a knowledge entry, its
// title the heading, its slug made from it, its body the section's text
// as written (its subsections with it), tagged tag. A section of
// MEMORY.md that only lists links to topic files is its index, not an
// entry (the topic files are imported themselves).
func readMarkdownSections(p string, data []byte, tag string) []entry.Knowledge {
	doc := markdown.Parse(data)
	secs := doc.Sections()
	level := 1
	for _, s := range secs {
		if s.Level == 2 {
			level = 2
			break
		}
	}
	var out []entry.Knowledge
	for _, s := range secs {
		if s.Level != level {
			continue
		}
		body := strings.TrimSpace(string(s.Body.Of(data)))
		if body == "" || indexOnly(doc, data, s.Body) {
			continue
		}
		title := words.Shorten(s.Title, maxSourceTitleChars)
		slug := sourceSlug(s.Title, tag+"-section") // "## ???" has no letters to make one of
		out = append(out, entry.Knowledge{Slug: slug, Title: title, Tags: []string{tag}, Body: body})
	}
	return out
}

// indexLink is an item of MEMORY.md's index: a link to a topic file.
var indexLink = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[[^\]]*\]\([^)]*\.md\)`) })

// indexOnly reports whether the section body r holds nothing but list
// items that link to topic files.
func indexOnly(doc *markdown.Doc, data []byte, r markdown.Range) bool {
	items := doc.ListItems(r)
	if len(items) == 0 {
		return false
	}
	n := 0
	for _, it := range items {
		if !indexLink().Match(bytes.TrimSpace(it.Content.Of(data))) {
			return false
		}
		n += len(bytes.TrimSpace(it.Range.Of(data)))
	}
	// Nothing but the items: no paragraph between them.
	rest := 0
	for _, l := range strings.Split(strings.TrimSpace(string(r.Of(data))), "\n") {
		rest += len(strings.TrimSpace(l))
	}
	return rest <= n
}

// claudeTopic is the frontmatter of a topic file of Claude Code's memory
// folder.
type claudeTopic struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Type        string `yaml:"type"`
}

// readClaudeTopic reads a topic file of Claude Code's memory folder
// (name.md beside MEMORY.md, p holding data): a knowledge entry, its slug
// the file's name, its title the frontmatter's name, tagged with its type
// (user, feedback, project, reference) and claude-memory, its body the
// description and the text as written.
func readClaudeTopic(p string, data []byte) (entry.Knowledge, error) {
	var meta claudeTopic
	rest, err := frontmatter.Parse(bytes.NewReader(data), &meta)
	if err != nil {
		return entry.Knowledge{}, fmt.Errorf("%s: its frontmatter: %w", p, err)
	}
	name := strings.TrimSuffix(filepath.Base(p), ".md")
	title := strings.TrimSpace(meta.Name)
	if title == "" {
		title = name
	}
	body := strings.TrimSpace(string(rest))
	if d := strings.TrimSpace(meta.Description); d != "" && !strings.Contains(body, d) {
		body = strings.TrimSpace(d + "\n\n" + body)
	}
	tags := []string{claudeMemoryTag}
	if t := entry.Slugify(meta.Type); t != "" {
		tags = []string{t, claudeMemoryTag}
	}
	return entry.Knowledge{Slug: sourceSlug(name, claudeMemoryTag+"-topic"), Title: words.Shorten(title, maxSourceTitleChars), Tags: tags, Body: body}, nil
}

// sourceSlug is the slug made from a name another system gives an entry:
// entry.Slugify's, of ASCII letters and digits only (a slug lore keeps;
// "Développement" makes "d-veloppement"), or fallback when nothing is left.
func sourceSlug(name, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range entry.Slugify(name) {
		if r < 0x80 && r != '-' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	if b.Len() == 0 {
		return fallback
	}
	return b.String()
}

// markSource notes, for each knowledge entry from x.Knowledge[from:],
// the tag that marks its source: the last of its tags (claude-md,
// claude-memory, beads).
func (x *Export) markSource(from int) {
	for _, k := range x.Knowledge[from:] {
		if x.sourceTag == nil {
			x.sourceTag = map[string]string{}
		}
		x.sourceTag[k.Slug] = k.Tags[len(k.Tags)-1]
	}
}

// uniqueSlugs gives each knowledge entry from ks[from:] that shares its
// slug with one before it the slug's next free form (slug-2, slug-3…), in
// order, so that an import of the same files gives the same slugs.
func uniqueSlugs(ks []entry.Knowledge, from int) {
	taken := map[string]bool{}
	for _, k := range ks[:from] {
		taken[k.Slug] = true
	}
	for i := from; i < len(ks); i++ {
		slug := ks[i].Slug
		for n := 2; taken[slug]; n++ {
			suffix := "-" + strconv.Itoa(n)
			base := ks[i].Slug
			if len(base) > entry.MaxSlugLength-len(suffix) {
				base = strings.TrimRight(base[:entry.MaxSlugLength-len(suffix)], "-")
			}
			slug = base + suffix
		}
		ks[i].Slug = slug
		taken[slug] = true
	}
}

// ReadSourceFile reads one file of the stores ReadSeedStores knows, given
// by itself, by its name: a CLAUDE.md, Claude Code's MEMORY.md (with the
// topic files of its folder), ralph-orchestrator's decisions.md, or the
// config.jsonl of beads' backup. ok is false for any other name (lore's
// export, which the caller reads). The file is read as a directory's is:
// a regular file, through no link.
func ReadSourceFile(p string) (x Export, found []string, warnings []entry.Warning, ok bool, err error) {
	x = Export{Version: ExportVersion}
	defer x.markSource(0)
	dir, name := filepath.Split(filepath.Clean(p))
	dir = filepath.Clean(dir)
	read := func(limit int64) ([]byte, error) {
		data, _, err := readSeedFile(dir, name, limit)
		return data, err
	}
	switch name {
	case claudeProjectFile:
		data, err := read(entry.FileReadLimit)
		if err != nil {
			return x, nil, nil, true, err
		}
		x.Knowledge = readMarkdownSections(p, data, claudeProjectTag)
		uniqueSlugs(x.Knowledge, 0)
	case claudeMemoryIndex:
		found, warnings, err = readOtherStores(dir, &x, nil, nil)
		return x, found, warnings, true, err
	case filepath.Base(ralphDecisionsPath):
		data, err := read(MaxSeedFileSize)
		if err != nil {
			return x, nil, nil, true, err
		}
		if x.Memories, err = readRalphDecisions(p, data); err != nil {
			return x, nil, nil, true, err
		}
	case filepath.Base(beadsConfigPath):
		data, err := read(MaxSeedFileSize)
		if err != nil {
			return x, nil, nil, true, err
		}
		if x.Knowledge, warnings, err = readBeadsMemories(p, data); err != nil {
			return x, nil, nil, true, err
		}
		uniqueSlugs(x.Knowledge, 0)
	default:
		return x, nil, nil, false, nil
	}
	return x, []string{p}, warnings, true, nil
}
