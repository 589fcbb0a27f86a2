package entry

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MemoryType is the kind of a memory; each type has its own section in
// memories.md.
type MemoryType string

// The four memory types of seed 001, in the order of their sections.
const (
	Pattern  MemoryType = "pattern"
	Decision MemoryType = "decision"
	Fix      MemoryType = "fix"
	Context  MemoryType = "context"
)

// MemoryTypes lists the types in the canonical order of their sections.
var MemoryTypes = []MemoryType{Pattern, Decision, Fix, Context}

// ParseMemoryType accepts a type name in any case.
func ParseMemoryType(s string) (MemoryType, error) {
	t := MemoryType(strings.ToLower(strings.TrimSpace(s)))
	for _, known := range MemoryTypes {
		if t == known {
			return t, nil
		}
	}
	return "", &InputError{Field: "type", Msg: fmt.Sprintf("unknown memory type %q (use pattern, decision, fix or context)", s)}
}

// Section is the "## " heading the type's memories live under.
func (t MemoryType) Section() string {
	switch t {
	case Pattern:
		return "Patterns"
	case Decision:
		return "Decisions"
	case Fix:
		return "Fixes"
	case Context:
		return "Context"
	}
	return ""
}

// Emoji is the type's symbol in seed 001, shown on terminals.
func (t MemoryType) Emoji() string {
	switch t {
	case Pattern:
		return "🔄"
	case Decision:
		return "⚖️"
	case Fix:
		return "🔧"
	case Context:
		return "📍"
	}
	return ""
}

func typeOfSection(name string) (MemoryType, bool) {
	for _, t := range MemoryTypes {
		if t.Section() == name {
			return t, true
		}
	}
	return "", false
}

// Memory is one entry of memories.md.
type Memory struct {
	ID      string     `json:"id"`
	Type    MemoryType `json:"type"`
	Content string     `json:"content"`
	Tags    []string   `json:"tags"`
	Created string     `json:"created"` // YYYY-MM-DD
	// Line is where the memory's "### " heading is in memories.md.
	Line int `json:"-"`
}

// CreatedTime parses Created; the zero time when it is not a date.
func (m Memory) CreatedTime() time.Time {
	t, _ := time.Parse(DateLayout, m.Created)
	return t
}

// Unix is the creation time encoded in the id, 0 if the id has none.
func (m Memory) Unix() int64 {
	rest, ok := strings.CutPrefix(m.ID, "mem-")
	digits, suffix, ok2 := strings.Cut(rest, "-")
	if !ok || !ok2 || strings.Contains(suffix, "-") {
		return 0
	}
	n, _ := strconv.ParseInt(digits, 10, 64)
	return n
}

const DateLayout = "2006-01-02"

// ValidMemoryID reports whether id has the form mem-{unix}-{4 hex}, seed
// 001's MEMORY_ID_RE (mem-\d+-[0-9a-f]{4}) matched against the whole id.
func ValidMemoryID(id string) bool {
	digits, suffix, ok := strings.Cut(strings.TrimPrefix(id, "mem-"), "-")
	if !ok || !strings.HasPrefix(id, "mem-") || digits == "" || len(suffix) != 4 {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range suffix {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// newMemoryID makes mem-{unix}-{4 hex} from the clock and random source,
// avoiding every id in taken.
func NewMemoryID(now time.Time, random io.Reader, taken func(id string) bool) (string, error) {
	return NewID(random, fmt.Sprintf("mem-%d-", now.Unix()), 2, taken,
		fmt.Sprintf("no free memory id for second %d", now.Unix()))
}

// newID makes prefix followed by n random bytes in hex, trying again while
// taken says the id is taken (up to 1000 times; then the error says
// exhausted). random nil is the system's source.
func NewID(random io.Reader, prefix string, n int, taken func(string) bool, exhausted string) (string, error) {
	if random == nil {
		random = rand.Reader
	}
	b := make([]byte, n)
	for i := 0; i < 1000; i++ {
		if _, err := io.ReadFull(random, b); err != nil {
			return "", fmt.Errorf("id: %w", err)
		}
		if id := prefix + hex.EncodeToString(b); taken == nil || !taken(id) {
			return id, nil
		}
	}
	return "", errors.New(exhausted)
}

// inputTags is NormalizeTags for the tags a command was given: control
// characters (a tab, an escape) are refused, and a run of spaces inside a
// tag becomes one space ("foreign  keys" is "foreign keys"). A file
// written by hand keeps the tags it has; NormalizeTags reads them.
func InputTags(tags []string) ([]string, error) {
	clean := make([]string, len(tags))
	for i, raw := range tags {
		switch {
		case strings.ContainsAny(raw, "\n\r"):
			clean[i] = raw // NormalizeTags refuses a line break
		case strings.IndexFunc(raw, unicode.IsControl) >= 0:
			return nil, &InputError{Field: "tags", Msg: fmt.Sprintf("tag %d (%q) contains a control character", i+1, raw)}
		default:
			clean[i] = strings.Join(strings.Fields(raw), " ")
		}
	}
	return NormalizeTags(clean)
}

// NormalizeTags lowercases and trims tags and drops duplicates. A tag that
// is empty or contains '|', ',' or "-->" would break the metadata comment
// and is refused.
func NormalizeTags(tags []string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for i, raw := range tags {
		tag := strings.ToLower(strings.TrimSpace(raw))
		var problem string
		switch {
		case tag == "":
			problem = "is empty"
		case strings.Contains(tag, "|"):
			problem = "contains '|'"
		case strings.Contains(tag, ","):
			problem = "contains ','"
		case strings.Contains(tag, "-->"):
			problem = "contains '-->'"
		case strings.ContainsAny(tag, "\n\r\x00"):
			problem = "contains a line break"
		case !utf8.ValidString(tag):
			problem = "is not valid UTF-8"
		}
		if problem != "" {
			return nil, &InputError{Field: "tags", Msg: fmt.Sprintf("tag %d (%q) %s", i+1, raw, problem)}
		}
		if !seen[tag] {
			seen[tag] = true
			out = append(out, tag)
		}
	}
	return out, nil
}

// SplitTags splits a comma-separated list ("a, b,c"). An empty string is
// no tags; empty items are kept so that NormalizeTags can refuse them.
func SplitTags(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// normalizeText turns CR LF and lone CR into LF and trims blank lines and
// spaces around the whole text; it refuses empty text, NUL bytes and
// bytes that are not UTF-8, naming field ("content", "body").
func NormalizeText(field, s string) (string, error) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimSpace(s)
	if s == "" {
		return "", &InputError{Field: field, Msg: field + " is empty"}
	}
	if strings.ContainsRune(s, 0) {
		return "", &InputError{Field: field, Msg: field + " contains a NUL byte"}
	}
	if !utf8.ValidString(s) {
		return "", &InputError{Field: field, Msg: field + " is not valid UTF-8"}
	}
	return s, nil
}

// SortNewestFirst orders memories by the time in their ids, newest first;
// memories of the same second keep their file order (a new memory is
// written above older ones).
func SortNewestFirst(memories []Memory) {
	type key struct {
		unix int64
		pos  int
	}
	keys := make([]key, len(memories))
	for i, m := range memories {
		keys[i] = key{m.Unix(), i}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i].unix > keys[j].unix })
	sorted := make([]Memory, len(memories))
	for i, k := range keys {
		sorted[i] = memories[k.pos]
	}
	copy(memories, sorted)
}
