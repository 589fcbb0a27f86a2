package index

import (
	"strings"
	"sync"

	"github.com/blevesearch/go-porterstemmer"
)

// Stems are the English stems of s's Tokens that have one (Stem), in
// order. The index keeps them in a field of their own, so that a typo is
// matched against words, never against stems.
func Stems(s string) []string {
	var out []string
	for _, t := range Tokens(s) {
		if stem := Stem(t); stem != "" {
			out = append(out, stem)
		}
	}
	return out
}

// Stem is the English stem of a lowercase term (Porter's algorithm:
// deploying, deployed and deploy are deploi, flakiness and flaky flaki,
// timeout timeout), or "" when the term is not a word of four or more
// ASCII letters. Search indexes the stems of an entry's words beside its
// words and looks for a query word's stem too, so a word form finds its
// entries while the exact word, which matches both, still ranks first.
// The words of stemsApart keep a stem of their own.
func Stem(term string) string {
	if !hasStem(term) {
		return ""
	}
	if st, ok := stemsApart()[term]; ok {
		return st
	}
	return porterstemmer.StemString(term)
}

// hasStem says whether a term has a Stem, without stemming it: a word of
// four or more ASCII letters.
func hasStem(term string) bool { return len(term) >= 4 && lettersOnly(term) }

// apartFamilies are the words to which Porter's algorithm gives the stem
// of another, common word of software notes that means something else
// (it strips suffixes by rule, not by meaning: "container" loses its
// "er" and becomes "contain"). Each line is a family's own stem, its
// words, and a word of the meaning it would otherwise meet. Without them
// a search for "container" found every entry that "contains" something,
// and "production" every "product". A family is added only for a pair
// whose meanings are unrelated (not, say, validate/valid or
// connect/connection, which a user wants to meet).
var apartFamilies = []struct{ stem, words, mate string }{
	{"container", "container containers", "contains"},
	{"production", "production productions", "products"},
	{"integrity", "integrity", "integration"},
	{"experience", "experience experiences", "experiment"},
	{"terminal", "terminal terminals", "terminate"},
	{"identical", "identical identically", "identity"},
	{"international", "international internationalize internationalized internationalization", "internal"},
	{"conversation", "conversation conversations conversational", "conversion"},
	{"responsive", "responsive responsiveness", "response"},
	{"responsib", "responsible responsibility responsibilities", "response"},
	{"invalidat", "invalidate invalidated invalidates invalidating invalidation invalidations", "invalid"},
	{"authoriz", "authorize authorized authorizes authorizing authorization authorizations", "author"},
	{"authority", "authority authorities", "author"},
	{"original", "original originally originals", "origin"},
	{"community", "community communities", "communication"},
	{"settings", "settings", "sets"},
	{"findings", "findings", "finds"},
	{"liveness", "liveness", "live"},
	{"atomic", "atomic atomically atomicity", "atom"},
	{"readings", "readings", "reads"},
	{"university", "university universities", "universe"},
	{"universal", "universal universally", "universe"},
	{"general", "general generally", "generate"},
	{"generic", "generic generics", "generate"},
	{"organiz", "organize organized organizes organizing organization organizations", "organ"},
}

// stemsApart is apartFamilies by word: each word's own stem.
var stemsApart = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, f := range apartFamilies {
		for _, w := range strings.Fields(f.words) {
			m[w] = f.stem
		}
	}
	return m
})
