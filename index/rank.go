package index

import "math"

// How rare a query word is decides how it is looked for. A word is as
// rare as the entries holding it, or holding its stem when it has one
// (Stem: deploying is as common as deploy, deployed and deployment
// together); the searchers count those entries, the bleve index in its
// dictionaries, Scan by reading them all.
//
// A word held by more than CommonShare of the entries, and by more than
// CommonDocs of them, is common: it tells no entry apart. In the labelled
// store of go run ./bench recall (307 entries), the words above 15% are
// the project's own (postgres, go, api, invoice, tally) and words of every
// note (from, error, test, failing); between 5% and 15% are its topics
// (redis 13%, docker 8%, stripe 7%), which a query needs to find their
// entries: at 5%, a task's words found its entry first for 87% of the
// tasks (100% before), at 10% typos for 93% (97% before), at 15% no kind
// of query lost. The floor keeps a small store's topics rare: in a store
// of 50 entries, the word that the ten entries of one subject share is
// what finds them.
const (
	CommonShare = 0.15
	CommonDocs  = 10
)

// CommonAbove is how many of n entries a common word is held by more
// than: CommonShare of them, and at least CommonDocs.
func CommonAbove(n int) int {
	return max(CommonDocs, int(math.Ceil(CommonShare*float64(n))))
}

// QueryWord is a word of a query and how search looks for it.
type QueryWord struct {
	Term string
	// Docs is how many entries hold the word (or its stem).
	Docs int
	// Common is set for a word that more entries hold than CommonAbove.
	// Among rare words it only adds to the score of an entry that matches
	// a rare one: it makes no entry a hit (Lucene's CommonTermsQuery).
	Common bool
	// Fuzziness is how many edits a word of an entry may be from Term and
	// match it: the term's Fuzziness for a word that no entry holds — a
	// typo, or a word the store does not know — unless it is common (by
	// its stem: another form of a common word is no typo either); 0 for a
	// word of the store. A word the store holds is no typo, and a fuzzy
	// match of it is another word: "internal" is not "interval", and even
	// a rare word near a common one ("interval", in one entry, is two
	// edits from "internal") would make every entry holding the common
	// one a hit. (An entry's own misspelling of a word that other entries
	// spell right is not found by the word.)
	Fuzziness int
	// Stem is the word's English stem (Stem), "" when it has none.
	Stem string
	// Extra marks another form of a compound of the query (see
	// compound.go), which is not a word of the query of its own.
	Extra bool
	// Parts are the places, among the query's words, of the two parts of
	// a compound's joined form: set on the joined word.
	Parts []int
	// Related marks a word of the same meaning as the query's word at
	// place Of (thesaurus.Related; see related.go): an extra word too, a
	// match of which counts as a match of that word, at RelatedWeight.
	Related bool
	Of      int
}

// QueryWords are the words of text (QueryTokens) and how to look for each
// in a store of n entries, of which docFreq(term, false) hold the word
// term, and docFreq(stem, true) the stem among the stems of their words;
// then the other forms of its compounds that the store holds (Extra; see
// compound.go) and the words related to its words that it holds (see
// related.go), among QueryTerms.
func QueryWords(text string, n int, docFreq func(term string, stem bool) int) []QueryWord {
	terms := QueryTokens(text)
	out := make([]QueryWord, len(terms))
	common := CommonAbove(n)
	for i, t := range terms {
		df := docFreq(t, false)
		w := QueryWord{Term: t, Docs: df, Stem: Stem(t)}
		if w.Stem != "" {
			w.Docs = max(df, docFreq(w.Stem, true))
		}
		w.Common = w.Docs > common
		if df == 0 && !w.Common {
			w.Fuzziness = Fuzziness(t)
		}
		out[i] = w
	}
	topicOf(out, n)
	return addRelated(addCompounds(out, text, n, docFreq), n, docFreq)
}

// topicOf keeps the rule relative to the query: when every word of ws is
// common in a store of n entries, its rarest word (and any as rare) is
// what the query is about, and counts as rare — unless more than half the
// entries hold it. In a large store the words of a team's own topics
// ("database", "connections") pass 15%, and a task made of them would
// otherwise find nothing relevant.
func topicOf(ws []QueryWord, n int) {
	rarest := -1
	for _, w := range ws {
		if !w.Common {
			return
		}
		if rarest < 0 || w.Docs < rarest {
			rarest = w.Docs
		}
	}
	if rarest < 0 || 2*rarest > n {
		return
	}
	for i := range ws {
		if ws[i].Docs == rarest {
			ws[i].Common = false
		}
	}
}

// SplitRare divides a query's words into its rare and common ones. A
// query with rare words finds only entries that match one of them, and
// counts the share of its rare words matched (the common ones add their
// own share to that); one whose words are all common finds the entries
// matching any of them — but none when it is Strict.
func SplitRare(ws []QueryWord) (rare, common []QueryWord) {
	for _, w := range ws {
		if w.Common {
			common = append(common, w)
		} else {
			rare = append(rare, w)
		}
	}
	return rare, common
}
