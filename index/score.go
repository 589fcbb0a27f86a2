package index

import (
	"math"
	"slices"
)

// The one scoring rule. Both searchers find, for each document, how it
// holds each query word — in which field, how often, in a field how long,
// and for a possible typo which near word — and hand that to a Scorer:
// Scan by tokenizing the document, the bleve index from its postings
// (term frequency and norm) and dictionaries. So a document scores the
// same in both, to the last bit, and the two engines rank alike; what
// differs is only how fast they find the documents.
//
// A query word matches a document by clauses: the word itself in the
// title, the tags and the content (which holds the title and tag words
// too), its English stem among the stems of the content's words, and —
// for a word no entry holds, a possible typo (QueryWord.Fuzziness) — the
// nearest word of each field within its fuzziness instead of the word
// itself. A clause weighs
//
//	boost × √freq × norm × idf²
//
// (bleve's tf-idf, which the labelled sets of go run ./bench recall were
// tuned on): freq is how often the term is in the field, norm is
// 1/√(the field's length in terms), as bleve's postings store it (Norm),
// idf is the query word's (idf: the entries holding it or its stem), and
// boost is the field's: a title or tag word a quarter on top of the
// content, a stem as much as the content, a near word half its field's
// weight divided by its edits plus one, with its own idf (a near word
// that few entries hold is the likelier meaning). A word's score is the
// sum of its clauses times the share of them it matched, so a word in the
// title, the tags and the content outranks the same word in the content
// alone; the document's score sums its words' (Scorer.Score), times the
// share of the rare words it matched.

// Field is a field of a document that a query word's clauses match in.
type Field uint8

// The fields a query word's clauses match in.
const (
	FieldTitle Field = iota
	FieldTags
	FieldContent
	numFields
)

// Weights of the clauses (see Field). With a title weight of 3, one
// common word of a knowledge title outranked an entry holding most of the
// query (go run ./bench recall: R@1 0.78 at 3, 0.89 at 0.25); with the
// stem at half, word forms found R@1 0.90 of their entries, 0.95 at one.
// An entry whose id is the whole query comes first (BoostID).
var fieldBoost = [numFields]float64{FieldTitle: 0.25, FieldTags: 0.25, FieldContent: 1}

const (
	stemBoost   = 1.0
	fuzzyFactor = 0.5
	// BoostID weighs an entry whose id is the whole query.
	BoostID = 20.0
)

// idf is the inverse document frequency of a word that docs of n entries
// hold, as bleve counts it.
func idf(docs, n int) float64 { return 1 + math.Log(float64(n)/float64(docs+1)) }

// Norm is how a field of length terms weighs a match in it: 1/√length,
// rounded to a float32 as bleve's postings keep it (TermFieldDoc.Norm).
func Norm(length int) float64 {
	if length <= 0 {
		return 0
	}
	return float64(float32(1 / math.Sqrt(float64(length))))
}

// WordMatch is how one document holds one query word: the weight of each
// of its clauses, before the word's idf, 0 for a clause that does not
// match. Its zero value matches nothing.
type WordMatch struct {
	exact [numFields]float64
	stem  float64
	near  [numFields]float64 // with the near word's own idf²
}

// Exact records the word itself, freq times in field f, whose norm is
// norm.
func (m *WordMatch) Exact(f Field, freq uint64, norm float64) {
	m.exact[f] = fieldBoost[f] * math.Sqrt(float64(freq)) * norm
}

// Stem records the word's stem, freq times among the stems (norm: of
// the stems' field).
func (m *WordMatch) Stem(freq uint64, norm float64) {
	m.stem = stemBoost * math.Sqrt(float64(freq)) * norm
}

// Near records a word edits away from a possible typo, freq times in
// field f; rarity is the near word's IDF2. A field keeps its best near
// word.
func (m *WordMatch) Near(f Field, freq uint64, norm float64, edits int, rarity float64) {
	w := fieldBoost[f] * fuzzyFactor / float64(edits+1) * math.Sqrt(float64(freq)) * norm * rarity
	m.near[f] = max(m.near[f], w)
}

// IDF2 is how rare a word held by docs of n entries is, as a clause's
// weight counts it: its idf squared.
func IDF2(docs, n int) float64 {
	g := idf(docs, n)
	return g * g
}

// score is what m is worth for w, whose rarity is IDF2 (see Field).
func (w *QueryWord) score(m *WordMatch, rarity float64) float64 {
	var sum float64
	clauses, matched := 0, 0
	add := func(v, times float64) {
		clauses++
		if v > 0 {
			matched++
			sum += v * times
		}
	}
	if w.Fuzziness == 0 {
		for f := range numFields {
			add(m.exact[f], rarity)
		}
	}
	if w.Stem != "" {
		add(m.stem, rarity)
	}
	if w.Fuzziness > 0 {
		for f := range numFields {
			add(m.near[f], 1)
		}
	}
	if matched == 0 {
		return 0
	}
	return sum * float64(matched) / float64(clauses)
}

// A Scorer scores documents by the one rule (see Field) against a
// query's words in a store of n entries. It serves one goroutine at a
// time: Score reuses a buffer.
type Scorer struct {
	words        []QueryWord
	rarity       []float64 // IDF2 of each word
	rare, common []int     // places in words of the query's own words
	counted      int       // how many those are (not Extra)
	leads        []bool
	n            int
	strict       bool
	commonOnly   bool
	values       []float64 // Score's, of each word
}

// NewScorer scores against ws (QueryWords) in a store of n entries;
// strict is the query's Strict.
func NewScorer(ws []QueryWord, n int, strict bool) *Scorer {
	s := &Scorer{words: ws, n: n, strict: strict}
	for i, w := range ws {
		s.rarity = append(s.rarity, IDF2(w.Docs, n))
		if w.Related {
			// A word the store says more seldom than the query's own is
			// worth no more than that word.
			s.rarity[i] = min(s.rarity[i], IDF2(ws[w.Of].Docs, n))
		}
		switch {
		case w.Extra:
		case w.Common:
			s.common = append(s.common, i)
		default:
			s.rare = append(s.rare, i)
		}
	}
	// The words a join in the store stands for are one word of the
	// query: the group takes the place of the first part (rare if either
	// is), and the second part is not counted of its own.
	for _, w := range ws {
		if !w.Extra || len(w.Parts) != 2 {
			continue
		}
		a, b := w.Parts[0], w.Parts[1]
		if ws[a].Common && !ws[b].Common {
			s.common = slices.DeleteFunc(s.common, func(i int) bool { return i == a })
			s.rare = append(s.rare, a)
		}
		s.rare = slices.DeleteFunc(s.rare, func(i int) bool { return i == b })
		s.common = slices.DeleteFunc(s.common, func(i int) bool { return i == b })
	}
	s.counted = len(s.rare) + len(s.common)
	s.setLeads()
	return s
}

// setLeads says which words find documents: a rare word when the query
// has any (a common one only adds to the score of an entry it finds),
// else any word — none when the search is strict; the other form of a
// compound when the words it stands for do.
func (s *Scorer) setLeads() {
	s.leads = make([]bool, len(s.words))
	s.values = make([]float64, len(s.words))
	for _, i := range s.rare {
		s.leads[i] = !s.commonOnly
	}
	for _, i := range s.common {
		s.leads[i] = s.commonOnly || len(s.rare) == 0 && !s.strict
	}
	for j, w := range s.words {
		switch {
		case w.Related: // finds documents as the word it stands for
			s.leads[j] = s.leads[w.Of]
		case len(w.Parts) == 0:
		case w.Extra: // a join of the query's words: one word, in the first's place
			a, b := w.Parts[0], w.Parts[1]
			s.leads[b], s.leads[j] = s.leads[a], s.leads[a]
		default: // a split of a query word
			for _, p := range w.Parts {
				if s.words[p].Extra {
					s.leads[p] = s.leads[j]
				}
			}
		}
	}
}

// Entries is how many entries the store holds.
func (s *Scorer) Entries() int { return s.n }

// Words are the query's words, in the order Score takes their matches.
func (s *Scorer) Words() []QueryWord { return s.words }

// Leads says whether word i finds documents (setLeads): an entry that
// matches none of those is no hit.
func (s *Scorer) Leads(i int) bool { return s.leads[i] }

// CommonOnly is the Scorer a search falls back to when its rare words
// found nothing and it is not strict: the common words answer alone. It
// is nil when there is nothing to fall back to.
func (s *Scorer) CommonOnly() *Scorer {
	if s.strict || len(s.rare) == 0 || len(s.common) == 0 || s.commonOnly {
		return nil
	}
	c := *s
	c.commonOnly = true
	c.setLeads()
	return &c
}

// Score is the document's score: ms are its matches of each of Words, id
// says whether its id is the whole query. With rare words, it must match
// one: it scores its rare words times the share of them it matched, plus
// its common words times the share of all the words that those are; with
// common words alone, their score times the share of them it matched
// (nothing when strict). 0 is no hit.
func (s *Scorer) Score(ms []WordMatch, id bool) float64 {
	v := s.values
	for i := range s.words {
		v[i] = s.words[i].score(&ms[i], s.rarity[i])
	}
	// A compound's other form stands for its words.
	for j, w := range s.words {
		switch {
		case w.Related: // a match of the word it stands for, weighed less
			v[w.Of] = max(v[w.Of], RelatedWeight*v[j])
		case len(w.Parts) == 0:
		case w.Extra: // the join: one word with its parts (NewScorer)
			a, b := w.Parts[0], w.Parts[1]
			v[a] = max(v[a]+v[b], v[j])
		case v[w.Parts[0]] > 0 && v[w.Parts[1]] > 0: // the split: both parts
			v[j] = max(v[j], v[w.Parts[0]]+v[w.Parts[1]])
		}
	}
	sum := func(places []int) (float64, int) {
		var total float64
		matched := 0
		for _, i := range places {
			if v[i] > 0 {
				total += v[i]
				matched++
			}
		}
		return total, matched
	}
	var score float64
	c, cm := sum(s.common)
	switch {
	case s.commonOnly || len(s.rare) == 0 && !s.strict:
		if cm > 0 {
			score = c * float64(cm) / float64(len(s.common))
		}
	case len(s.rare) > 0:
		if r, rm := sum(s.rare); rm > 0 {
			score = r*float64(rm)/float64(len(s.rare)) + c*float64(cm)/float64(s.counted)
		}
	}
	if id {
		score += BoostID * IDF2(1, s.n)
	}
	return score
}
