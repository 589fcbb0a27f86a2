package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// StopWords are the English words a query ignores (Lucene's list): they
// match nearly every entry and would only add noise.
var StopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true,
	"but": true, "by": true, "for": true, "if": true, "in": true, "into": true, "is": true,
	"it": true, "no": true, "not": true, "of": true, "on": true, "or": true, "such": true,
	"that": true, "the": true, "their": true, "then": true, "there": true, "these": true,
	"they": true, "this": true, "to": true, "was": true, "will": true, "with": true,
}

// IsWordRune says whether r belongs to a word: letters and digits.
func IsWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// Words calls fn with the byte range of each word of s — each run of
// letters and digits — in order, until fn returns false.
func Words(s string, fn func(start, end int) bool) {
	start := -1
	for i, r := range s {
		if IsWordRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			if !fn(start, i) {
				return
			}
			start = -1
		}
	}
	if start >= 0 {
		fn(start, len(s))
	}
}

// Tokens splits s into the words search compares: its Words, lowercased,
// without stop words. The bleve index analyzes entries with the same rule.
func Tokens(s string) []string {
	var out []string
	Words(s, func(start, end int) bool {
		if w := strings.ToLower(s[start:end]); !StopWords[w] {
			out = append(out, w)
		}
		return true
	})
	return out
}

// Fuzziness is how many edits a query word may be from a word it matches:
// none up to 2 characters, one up to 5, two beyond (Elasticsearch's
// "auto").
func Fuzziness(term string) int {
	switch n := utf8.RuneCountInString(term); {
	case n <= 2:
		return 0
	case n <= 5:
		return 1
	}
	return 2
}

// EditDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and swaps of two neighbours each
// count one — what bleve's Levenshtein automaton counts), compared rune by
// rune. It stops early and reports false once the distance exceeds max.
func EditDistance(a, b string, max int) (int, bool) {
	if a == b {
		return 0, true
	}
	// Words are short: their runes and the rows live on the stack, so that
	// comparing a query word with every word of many entries allocates
	// nothing.
	var bufA, bufB [shortWord]rune
	ra, rb := appendRunes(bufA[:0], a), appendRunes(bufB[:0], b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return 0, false
	}
	// Three rows of the dynamic programme: two back (for swaps), one back,
	// current.
	var rows [3][shortWord + 1]int
	prev2, prev, cur := rows[0][:], rows[1][:], rows[2][:]
	if len(rb) >= shortWord {
		prev2, prev, cur = make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	}
	for j := 0; j <= len(rb); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > max {
			return 0, false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if d := prev[len(rb)]; d <= max {
		return d, true
	}
	return 0, false
}

// shortWord is the length in runes up to which EditDistance works on the
// stack.
const shortWord = 32

// appendRunes appends the runes of s to buf.
func appendRunes(buf []rune, s string) []rune {
	for _, r := range s {
		buf = append(buf, r)
	}
	return buf
}

// Matches says whether a word of an entry matches a query word: exactly,
// or within the query word's fuzziness.
func Matches(queryTerm, docTerm string) (exact, fuzzy bool) {
	if queryTerm == docTerm {
		return true, false
	}
	_, ok := EditDistance(queryTerm, docTerm, Fuzziness(queryTerm))
	return false, ok && Fuzziness(queryTerm) > 0
}

// SnippetWidth is about how many characters a snippet shows.
const SnippetWidth = 160

// Snippet is a window of text showing its first word that matches one of
// the query terms (exactly if any does, else fuzzily), whitespace
// collapsed, "…" where it was cut; the beginning of text when no word
// matches. It never splits a character.
func Snippet(text string, terms []string, width int) string {
	text = strings.Join(strings.Fields(text), " ")
	runes := []rune(text)
	if len(runes) <= width {
		return text
	}
	at := firstMatch(text, terms)
	start := 0
	if at >= 0 {
		// A match in the first half shows from the beginning; a later
		// one a quarter of the width into the window.
		if pos := utf8.RuneCountInString(text[:at]); pos > width/2 {
			start = pos - width/4
		}
	}
	end := min(len(runes), start+width)
	start = max(0, end-width)
	// Cut at spaces where one is near, so words stay whole.
	if start > 0 {
		for k := start; k < start+15 && k < end; k++ {
			if runes[k] == ' ' {
				start = k + 1
				break
			}
		}
	}
	if end < len(runes) {
		for k := end - 1; k > end-15 && k > start; k-- {
			if runes[k] == ' ' {
				end = k
				break
			}
		}
	}
	out := string(runes[start:end])
	if start > 0 {
		out = "…" + out
	}
	if end < len(runes) {
		out += "…"
	}
	return out
}

// firstMatch is the byte offset of the first word of text matching a term
// exactly, else fuzzily; -1 when none does.
func firstMatch(text string, terms []string) int {
	exactAt, fuzzyAt := -1, -1
	Words(text, func(start, end int) bool {
		w := strings.ToLower(text[start:end])
		for _, t := range terms {
			exact, fuzzy := Matches(t, w)
			if exact {
				exactAt = start
				return false
			}
			if fuzzy && fuzzyAt < 0 {
				fuzzyAt = start
			}
		}
		return true
	})
	if exactAt >= 0 {
		return exactAt
	}
	return fuzzyAt
}

// Suggest is the "did you mean" for a query that found nothing: each
// query word that is not a word of the entries becomes the closest word
// that is (within two edits, or one more than its fuzziness), preferring
// common words. It returns "" when it has nothing better to offer.
func Suggest(query string, vocabulary func(yield func(term string, docFreq int) bool)) string {
	terms := Tokens(query)
	if len(terms) == 0 || vocabulary == nil {
		return ""
	}
	type best struct {
		term       string
		dist, freq int
		exact      bool
	}
	bests := make([]best, len(terms))
	for i := range bests {
		bests[i].dist = -1
	}
	vocabulary(func(term string, freq int) bool {
		for i, t := range terms {
			b := &bests[i]
			if b.exact {
				continue
			}
			if term == t {
				b.exact = true
				continue
			}
			limit := max(2, Fuzziness(t)+1)
			d, ok := EditDistance(t, term, limit)
			if !ok {
				continue
			}
			if b.dist < 0 || d < b.dist || (d == b.dist && (freq > b.freq || (freq == b.freq && term < b.term))) {
				*b = best{term: term, dist: d, freq: freq}
			}
		}
		return true
	})
	changed := false
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t
		if b := bests[i]; !b.exact && b.dist > 0 {
			out[i] = b.term
			changed = true
		}
	}
	if !changed {
		return ""
	}
	return strings.Join(out, " ")
}
