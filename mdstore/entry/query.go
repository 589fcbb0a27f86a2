package entry

import (
	"sort"
	"strings"
	"time"
)

// MemoryFilter selects memories. Zero fields select everything.
type MemoryFilter struct {
	Types []MemoryType
	Tags  []string  // a memory with any of these tags matches
	Since time.Time // created on or after this day
	// Query matches, ignoring case, when every word of it appears in the
	// memory's content or tags.
	Query string
}

// Match reports whether m passes the filter.
func (f MemoryFilter) Match(m Memory) bool {
	if len(f.Types) > 0 && !containsType(f.Types, m.Type) {
		return false
	}
	if len(f.Tags) > 0 && !HasAnyTag(m.Tags, f.Tags) {
		return false
	}
	if !f.Since.IsZero() {
		created := m.CreatedTime()
		if created.IsZero() || created.Before(f.Since) {
			return false
		}
	}
	if q := strings.TrimSpace(f.Query); q != "" {
		text := strings.ToLower(m.Content + "\n" + strings.Join(m.Tags, " "))
		for _, word := range strings.Fields(strings.ToLower(q)) {
			if !strings.Contains(text, word) {
				return false
			}
		}
	}
	return true
}

// Filter returns the memories that pass f, in their order: memories
// itself when f selects everything.
func (f MemoryFilter) Filter(memories []Memory) []Memory {
	if len(f.Types) == 0 && len(f.Tags) == 0 && f.Since.IsZero() && strings.TrimSpace(f.Query) == "" {
		return memories
	}
	var out []Memory
	for _, m := range memories {
		if f.Match(m) {
			out = append(out, m)
		}
	}
	return out
}

func containsType(types []MemoryType, t MemoryType) bool {
	for _, x := range types {
		if x == t {
			return true
		}
	}
	return false
}

// HasAnyTag reports whether have holds any of want, ignoring case: the
// OR filter of every --tags flag.
func HasAnyTag(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if strings.EqualFold(strings.TrimSpace(h), strings.TrimSpace(w)) {
				return true
			}
		}
	}
	return false
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
