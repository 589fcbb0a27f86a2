// Package thesaurus says which words of English mean what a word means:
// its synonyms in WordNet 3.0 (Princeton University; see LICENSE.WordNet),
// in related.txt, which cmd/internal/genthesaurus writes from Debian's
// wordnet-base (go generate). Search looks for them when a query says in
// everyday words what the store says in others ("physician" for
// "doctor").
package thesaurus

import (
	_ "embed"
	"slices"
	"strings"
)

//go:generate sh -c "go run lore/cmd/internal/genthesaurus /usr/share/wordnet > related.txt"

// table is related.txt: a line per word, sorted, "word\trelated words".
//
//go:embed related.txt
var table string

// Related are the words related to word (lowercase): those of the first
// of its Lemmas that the table holds; nil when none does.
func Related(word string) []string {
	for _, l := range Lemmas(word) {
		if rel := lookUp(l); rel != "" {
			return strings.Fields(rel)
		}
	}
	return nil
}

// lookUp is the related words of word as the table writes them, "" when
// it has none: a binary search over the table's bytes, each probe moved
// back to the start of its line, so that nothing is read or built before.
func lookUp(word string) string {
	lo, hi := 0, len(table) // the first line whose word is >= word starts in [lo, hi]
	for lo < hi {
		start := strings.LastIndexByte(table[:(lo+hi)/2], '\n') + 1
		end := start + strings.IndexByte(table[start:], '\n')
		if k, _, _ := strings.Cut(table[start:end], "\t"); k < word {
			lo = end + 1
		} else {
			hi = start
		}
	}
	if lo >= len(table) {
		return ""
	}
	line := table[lo:]
	line = line[:strings.IndexByte(line, '\n')]
	if k, rest, _ := strings.Cut(line, "\t"); k == word {
		return rest
	}
	return ""
}

// Lemmas are the forms WordNet may list a word under: the word itself,
// then what its inflection's suffix stands for by WordNet's own rules
// (morphy: "doctors" doctor, "wiped" wipe and wip, "tallies" tally).
func Lemmas(word string) []string {
	out := []string{word}
	for _, r := range [...][2]string{
		{"ies", "y"}, {"ses", "s"}, {"xes", "x"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"},
		{"es", "e"}, {"es", ""}, {"s", ""},
		{"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
		{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"},
	} {
		if base, ok := strings.CutSuffix(word, r[0]); ok && len(base)+len(r[1]) >= 3 {
			if l := base + r[1]; !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	return out
}
