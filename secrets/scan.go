package secrets

import (
	"cmp"
	"slices"
	"strings"
)

// Finding is one secret found in a text.
type Finding struct {
	Rule        string // rule id, e.g. "github-pat" (gitleaks' ids for rules that come from gitleaks)
	Description string // for people: "GitHub personal access token"
	Line        int    // 1-based line of the secret's start
	Column      int    // 1-based, in bytes
	Start, End  int    // byte offsets of the secret itself in the text: what Redact replaces
}

// Scan returns the secrets in text, in order, not overlapping.
//
// When two rules find overlapping secrets, a rule for a named kind of
// credential wins over the generic rule; between named rules, the secret
// that starts first wins, then the longer one.
func Scan(text string) []Finding {
	hits := keywordHits(text)
	if len(hits) == 0 {
		return nil
	}
	var mentioned ruleSet
	for _, h := range hits {
		mentioned.addAll(h.rules)
	}
	var named, generic []candidate
	for i, r := range rules {
		switch {
		case !mentioned.has(i):
		case r.generic:
			generic = r.candidates(text, i, hits, generic)
		default:
			named = r.candidates(text, i, hits, named)
		}
	}
	named = slices.DeleteFunc(named, func(c candidate) bool { return rules[c.rule].allows(text, c) })
	kept := keepFirst(text, named, generic)
	if len(kept) == 0 {
		return nil
	}
	return locate(text, kept)
}

// Redact returns text with each secret's bytes replaced by
// "[REDACTED:<rule>]", and the findings.
func Redact(text string) (string, []Finding) {
	findings := Scan(text)
	if len(findings) == 0 {
		return text, nil
	}
	var b strings.Builder
	b.Grow(len(text) + len(findings)*len("[REDACTED:generic-api-key]"))
	last := 0
	for _, f := range findings {
		b.WriteString(text[last:f.Start])
		b.WriteString("[REDACTED:")
		b.WriteString(f.Rule)
		b.WriteByte(']')
		last = f.End
	}
	b.WriteString(text[last:])
	return b.String(), findings
}

// A candidate is a match of a rule's pattern whose secret is not too plain,
// before the allowlists are asked. Offsets are into the scanned text.
type candidate struct {
	rule                 int // index in rules
	start, end           int // the secret
	matchStart, matchEnd int // the whole match
}

// candidates appends to found the matches of r in text whose secret is
// random enough; index is r's place in rules, hits the text's keywords.
func (r *rule) candidates(text string, index int, hits []keywordHit, found []candidate) []candidate {
	r.eachMatch(text, index, hits, func(m []int) {
		c := candidate{rule: index, matchStart: m[0], matchEnd: m[1]}
		c.start, c.end = secretBounds(m)
		if c.start == c.end {
			return
		}
		if r.entropy > 0 && shannonEntropy(text[c.start:c.end]) <= r.entropy {
			return
		}
		found = append(found, c)
	})
	return found
}

// secretBounds returns where the secret lies in a match given as the
// submatch indexes m: the first non-empty group, else the whole match.
func secretBounds(m []int) (start, end int) {
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

// allows reports whether the global allowlist or one of r's accepts c.
func (r *rule) allows(text string, c candidate) bool {
	lowerSecret := strings.ToLower(text[c.start:c.end])
	if globalAllowlist.allowed(text, c, lowerSecret) {
		return true
	}
	for _, a := range r.allow {
		if a.allowed(text, c, lowerSecret) {
			return true
		}
	}
	return false
}

// keepFirst returns, in text order, the candidates that no candidate of
// higher rank overlaps. named have passed their allowlists; generic have
// not, and are asked only if they survive, since the generic rule's
// allowlists are the costly ones (the outcome is the same: one rule's
// matches never overlap each other). A named rule outranks the generic one;
// among named rules, the earlier start wins, then the longer secret, then
// the earlier rule.
func keepFirst(text string, named, generic []candidate) []candidate {
	slices.SortFunc(named, func(a, b candidate) int {
		return cmp.Or(
			cmp.Compare(a.start, b.start),
			cmp.Compare(b.end-b.start, a.end-a.start),
			cmp.Compare(a.rule, b.rule),
		)
	})
	named = dropOverlaps(named)
	kept := make([]candidate, 0, len(named)+len(generic))
	j := 0
	for _, g := range generic {
		for j < len(named) && named[j].end <= g.start {
			kept = append(kept, named[j])
			j++
		}
		if j < len(named) && named[j].start < g.end {
			continue // overlaps named[j]
		}
		if rules[g.rule].allows(text, g) {
			continue
		}
		kept = append(kept, g)
	}
	return append(kept, named[j:]...)
}

// dropOverlaps keeps, of candidates sorted by start, each that starts after
// the last kept one ends. It reuses found's array.
func dropOverlaps(found []candidate) []candidate {
	kept := found[:0]
	for _, c := range found {
		if len(kept) == 0 || c.start >= kept[len(kept)-1].end {
			kept = append(kept, c)
		}
	}
	return kept
}

// locate turns findings in text order into Findings with lines and columns.
func locate(text string, found []candidate) []Finding {
	findings := make([]Finding, len(found))
	line, lineStart, pos := 1, 0, 0
	for i, f := range found {
		for {
			nl := strings.IndexByte(text[pos:f.start], '\n')
			if nl < 0 {
				break
			}
			line++
			pos += nl + 1
			lineStart = pos
		}
		pos = f.start
		r := rules[f.rule]
		findings[i] = Finding{
			Rule:        r.id,
			Description: r.description,
			Line:        line,
			Column:      f.start - lineStart + 1,
			Start:       f.start,
			End:         f.end,
		}
	}
	return findings
}
