package index

import (
	"slices"
	"strings"
	"unicode/utf8"

	"lore/internal/words"
)

// Tokens splits s into the terms search compares: its words and
// identifiers, whole and by their parts (words.EachTerm), lowercased,
// without stop words. The bleve index analyzes entries with the same rule
// (and keeps their Stems apart); a query's words are QueryTokens.
func Tokens(s string) []string {
	var out []string
	eachToken(s, func(w string) { out = append(out, w) })
	return out
}

// eachToken calls yield with each of s's Tokens, in order, without
// collecting them.
func eachToken(s string, yield func(string)) {
	words.EachTerm(s, func(start, end int) bool {
		if w := strings.ToLower(s[start:end]); !words.StopWords[w] {
			yield(w)
		}
		return true
	})
}

// lettersOnly says whether w is a lowercase ASCII word, letters only.
func lettersOnly(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return w != ""
}

// QueryTokens are the words a query looks for: its Tokens, each once, so
// that a word repeated in a query is not worth more (a word's stem is
// another way to match that word, not another word), without the words
// of a question that carry no topic (words.QuestionWords) when it has
// another: "how do we rotate the signing key" looks for rotate, signing
// and key.
func QueryTokens(s string) []string {
	var all, topic []string
	for _, w := range Tokens(s) {
		if !slices.Contains(all, w) {
			all = append(all, w)
			if !words.QuestionWords[w] {
				topic = append(topic, w)
			}
		}
	}
	if len(topic) == 0 {
		return all
	}
	return topic
}

// Fuzziness is how many edits a query word that may be a typo
// (QueryWord) may be from a word it matches: none up to FuzzyMinLength-1
// characters, one up to 5, two beyond (Elasticsearch's "auto", which
// starts at 3).
func Fuzziness(term string) int {
	switch n := utf8.RuneCountInString(term); {
	case n < FuzzyMinLength:
		return 0
	case n <= 5:
		return 1
	}
	return 2
}

// FuzzyMinLength is the length of the shortest word matched fuzzily. A
// word of three letters is one edit from 3.6 others on average among the
// 2,879 words of the recall benchmark's store (91% of them have one), a
// word of four letters from 1.8: a three-letter typo finds mostly other
// words. (The typo queries of go run ./bench recall rank alike from 3 to
// 5.)
const FuzzyMinLength = 4

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
	words.Each(text, func(start, end int) bool {
		w := strings.ToLower(text[start:end])
		for _, t := range terms {
			if t == w {
				exactAt = start
				return false
			}
		}
		if fuzzyAt < 0 && slices.ContainsFunc(terms, func(t string) bool { _, near := nearEdits(t, w, Fuzziness(t)); return near }) {
			fuzzyAt = start
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
// common words — one that keeps its first letter and changes at most a
// third of it ("barel" barrel, "exprots" exports): a question asked in
// other words than the store's is no typo, and rewriting it word by word
// into the nearest words made nonsense ("court booking page breaks on
// phones" became "out booking have create phones", "the app forgets who
// I am" "pr format s"). It returns "" when it has nothing better to
// offer.
func Suggest(query string, vocabulary func(yield func(term string, docFreq int) bool)) string {
	terms := QueryTokens(query)
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
			limit := min(max(2, Fuzziness(t)+1), len(t)/3)
			if limit == 0 || term[0] != t[0] {
				continue
			}
			d, ok := words.EditDistance(t, term, limit)
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
