package prompt

import (
	"slices"
	"strings"
	"time"

	"lore/mdstore/entry"
)

// MemoryFilter selects memories. Zero fields select everything.
type MemoryFilter struct {
	Types []entry.MemoryType
	Tags  []string  // a memory with any of these tags matches
	Since time.Time // created on or after this day
	// Query matches, ignoring case, when every word of it appears in the
	// memory's content or tags.
	Query string
}

// Match reports whether m passes the filter.
func (f MemoryFilter) Match(m entry.Memory) bool {
	if len(f.Types) > 0 && !slices.Contains(f.Types, m.Type) {
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
func (f MemoryFilter) Filter(memories []entry.Memory) []entry.Memory {
	if len(f.Types) == 0 && len(f.Tags) == 0 && f.Since.IsZero() && strings.TrimSpace(f.Query) == "" {
		return memories
	}
	var out []entry.Memory
	for _, m := range memories {
		if f.Match(m) {
			out = append(out, m)
		}
	}
	return out
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
