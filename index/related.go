package index

import (
	"slices"

	"lore/internal/thesaurus"
)

// A query may say in everyday words what the store says in others: "the
// physician on call" for an entry about the doctor on call. Each word of
// a query is also looked for by the words of the same meaning that the
// store holds (thesaurus.Related: WordNet's synonyms of a word of one or
// two senses), as Related extra words: a match of one counts as a match of
// the word it stands for, at RelatedWeight of what the word itself would
// score, and never more than the word is worth (its rarity caps theirs).
// An entry saying the word itself therefore ranks above one saying a
// synonym, and a synonym the store says often (a common word) is not
// looked for.

// RelatedWeight is how much a match of a word related to a query word
// counts, against a match of the word itself.
const RelatedWeight = 0.3

// relatedOf are the words related to a query word: none for an
// identifier or a number.
func relatedOf(term string) []string {
	if !lettersOnly(term) {
		return nil
	}
	return thesaurus.Related(term)
}

// appendRelated appends to out the words related to terms that it does
// not hold yet (QueryTerms).
func appendRelated(out, terms []string) []string {
	for _, t := range terms {
		for _, r := range relatedOf(t) {
			if !slices.Contains(out, r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// addRelated adds to ws, after its own words and compounds, the words
// related to its words (not extra ones) that the store holds (docFreq, as
// for QueryWords) and that are not common, unless the query has the word
// already or it has the same stem as the word.
func addRelated(ws []QueryWord, n int, docFreq func(term string, stem bool) int) []QueryWord {
	own := len(ws)
	for i := range own {
		if ws[i].Extra {
			continue
		}
		for _, r := range relatedOf(ws[i].Term) {
			if slices.ContainsFunc(ws, func(w QueryWord) bool { return w.Term == r }) || docFreq(r, false) == 0 {
				continue
			}
			w := extraWord(r, n, docFreq)
			if w.Common || w.Stem != "" && w.Stem == ws[i].Stem {
				continue
			}
			w.Related, w.Of = true, i
			ws = append(ws, w)
		}
	}
	return ws
}
