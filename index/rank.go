package index

// QueryWord is a word of a query and how search looks for it.
type QueryWord struct {
	Term string
	// Fuzziness is how many edits a word of an entry may be from Term and
	// match it: the term's Fuzziness for a word that no entry holds — a
	// typo, or a word the store does not know —; 0 for a word of the
	// store. A word the store holds is no typo, and a fuzzy match of it is
	// another word: "internal" is not "interval", and even a rare word
	// near a common one ("interval", in one entry, is two edits from
	// "internal") would make every entry holding the common one a hit.
	// (An entry's own misspelling of a word that other entries spell
	// right is not found by the word.)
	Fuzziness int
}

// QueryWords are the words of text (QueryTokens) and how to look for each
// in a store of which docFreq(term) entries hold the word term: the
// searchers count them, the bleve index in its dictionary, Scan by
// reading every entry.
func QueryWords(text string, docFreq func(term string) int) []QueryWord {
	terms := QueryTokens(text)
	out := make([]QueryWord, len(terms))
	for i, t := range terms {
		out[i] = QueryWord{Term: t}
		if docFreq(t) == 0 {
			out[i].Fuzziness = Fuzziness(t)
		}
	}
	return out
}
