package index

import (
	"slices"
	"strings"

	"lore/internal/words"
)

// A word written joined in one entry and split in another — "setup" and
// "set up", "checkout" and "check out", "sourcefreshness" and "source
// freshness" — is one word to a query, both ways, where the store writes
// the other form:
//
//   - two neighbouring words of a query whose join the store holds
//     ("set up", when some entry says "setup") are also looked for
//     joined: an entry holding the join matches both words, each with
//     half of its score;
//   - a word of a query that no entry holds, and that splits into two
//     words entries do hold ("sourcefreshness": source and freshness),
//     matches an entry holding both parts, with the sum of their
//     scores, as well as by its near words if it is a typo.
//
// The other form is an extra QueryWord (Extra): it is not a word of the
// query of its own and is not counted among them, and an entry matching
// it alone is no hit when the query has other words it must match.
// Joining only what the store itself writes joined is the point: joining
// every verb and particle at index time ("signed out", "ran out") made 20
// queries of the labelled sets worse for 4 better.

// compoundCandidates are the words a query's compounds may be, from its
// text alone: the joins of its neighbouring words (a query word each),
// and the splits of its long words (the parts of a split: at least three
// letters each, or "up").
type compoundCandidates struct {
	joins  [][2]string
	splits map[string][][2]string // by the word split
}

// Shortest and longest word split into two, and the shortest part.
const (
	splitMin  = 6
	splitMax  = 24
	partMin   = 3
	shortPart = "up" // the one shorter part allowed: set|up
)

func compoundsOf(text string, terms []string) compoundCandidates {
	var c compoundCandidates
	// Neighbours as written: identifiers' parts and stop words apart.
	var prev string
	words.Each(text, func(start, end int) bool {
		w := strings.ToLower(text[start:end])
		if prev != "" && lettersOnly(prev) && lettersOnly(w) && slices.Contains(terms, prev) && slices.Contains(terms, w) && prev != w {
			c.joins = append(c.joins, [2]string{prev, w})
		}
		prev = w
		return true
	})
	for _, t := range terms {
		if len(t) < splitMin || len(t) > splitMax || !lettersOnly(t) {
			continue
		}
		for i := 2; i <= len(t)-2; i++ {
			a, b := t[:i], t[i:]
			if (len(a) >= partMin || a == shortPart) && (len(b) >= partMin || b == shortPart) {
				if c.splits == nil {
					c.splits = map[string][][2]string{}
				}
				c.splits[t] = append(c.splits[t], [2]string{a, b})
			}
		}
	}
	return c
}

// words are every word the candidates may add to a query, each once, in
// order.
func (c compoundCandidates) words(terms []string) []string {
	var out []string
	add := func(w string) {
		if !slices.Contains(terms, w) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	for _, j := range c.joins {
		add(j[0] + j[1])
	}
	for _, t := range terms {
		for _, s := range c.splits[t] {
			add(s[0])
			add(s[1])
		}
	}
	return out
}

// QueryTerms are every word a search for text may look for: its
// QueryTokens, then the other forms of its compounds, joined or split
// (see compoundsOf), and the words related to its words (relatedOf),
// whether or not the store holds them — what a searcher must count in
// the entries before it knows which of them QueryWords keeps.
func QueryTerms(text string) []string {
	terms := QueryTokens(text)
	out := append(terms, compoundsOf(text, terms).words(terms)...)
	return appendRelated(out, terms)
}

// addCompounds adds to ws, the words of text, the other forms of its
// compounds that the store holds (docFreq, as for QueryWords), as Extra
// words, and links each compound's joined word to its parts (Parts).
func addCompounds(ws []QueryWord, text string, n int, docFreq func(term string, stem bool) int) []QueryWord {
	terms := make([]string, len(ws))
	for i, w := range ws {
		terms[i] = w.Term
	}
	c := compoundsOf(text, terms)
	place := func(term string) int {
		for i, w := range ws {
			if w.Term == term {
				return i
			}
		}
		ws = append(ws, extraWord(term, n, docFreq))
		return len(ws) - 1
	}
	for _, j := range c.joins {
		joined := j[0] + j[1]
		if slices.Contains(terms, joined) || docFreq(joined, false) == 0 {
			continue
		}
		a, b := place(j[0]), place(j[1])
		i := place(joined)
		ws[i].Parts = []int{a, b}
	}
	for i := range len(terms) {
		w := ws[i]
		if w.Docs > 0 || len(c.splits[w.Term]) == 0 {
			continue
		}
		// The split with the longest shorter part: source|freshness.
		var best [2]string
		for _, s := range c.splits[w.Term] {
			if docFreq(s[0], false) > 0 && docFreq(s[1], false) > 0 && min(len(s[0]), len(s[1])) > min(len(best[0]), len(best[1])) {
				best = s
			}
		}
		if best[0] != "" {
			ws[i].Parts = []int{place(best[0]), place(best[1])}
		}
	}
	return ws
}

// extraWord is the QueryWord of another form of a compound: a word the
// store holds, looked for exactly and by its stem.
func extraWord(term string, n int, docFreq func(term string, stem bool) int) QueryWord {
	w := QueryWord{Term: term, Docs: docFreq(term, false), Stem: Stem(term), Extra: true}
	if w.Stem != "" {
		w.Docs = max(w.Docs, docFreq(w.Stem, true))
	}
	w.Common = w.Docs > CommonAbove(n)
	return w
}
