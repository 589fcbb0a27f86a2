package index

import (
	"math/bits"
	"slices"
	"sort"
	"strings"

	"lore/internal/words"
	"lore/mdstore"
)

// Scan searches documents held in memory by reading every one of them. It
// follows the same rules as the bleve index with a simpler score (no term
// statistics), and is what lore answers with when that index is busy,
// broken or not installed.
type Scan struct {
	docs map[string]Doc
}

var _ Index = (*Scan)(nil)

// NewScan holds docs for searching.
func NewScan(docs ...Doc) *Scan {
	s := &Scan{docs: make(map[string]Doc, len(docs))}
	s.Index(docs...)
	return s
}

// Index adds or replaces documents.
func (s *Scan) Index(docs ...Doc) error {
	for _, d := range docs {
		s.docs[d.ID] = d
	}
	return nil
}

// Remove drops documents by ID.
func (s *Scan) Remove(ids ...string) error {
	for _, id := range ids {
		delete(s.docs, id)
	}
	return nil
}

// Clear drops every document.
func (s *Scan) Clear() error {
	clear(s.docs)
	return nil
}

// Weights of a query word's match, by where and how it matched, as the
// index weighs them: a title or tag word a quarter more than a content
// word (the index counts it in the content and again in its own field), a
// fuzzy match half an exact one.
const (
	weightTitle   = 1.25
	weightContent = 1.0
	fuzzyWeight   = 0.5
)

// Search answers q: documents passing the filters, scored by the words
// they match (sum of each word's best match, times the share of query
// words matched), best first; newest first without text.
func (s *Scan) Search(q Query) (Result, error) {
	terms := QueryTokens(q.Text)
	var hits []Hit
	var passing []Doc
	for _, d := range s.docs {
		if !passes(d, q) {
			continue
		}
		passing = append(passing, d)
		if len(terms) == 0 {
			hits = append(hits, Hit{Doc: d})
			continue
		}
		if score := scoreDoc(d, terms); score > 0 {
			hits = append(hits, Hit{Doc: d, Score: score})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if !a.Created.Equal(b.Created) {
			return a.Created.After(b.Created)
		}
		return a.ID < b.ID
	})
	res := Result{Total: len(hits)}
	if q.Limit > 0 && len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	for i := range hits {
		text := hits[i].Content
		if firstMatch(text, terms) < 0 && hits[i].Title != "" {
			text = hits[i].Title
		}
		hits[i].Snippet = Snippet(text, terms, SnippetWidth)
	}
	res.Hits = hits
	if len(hits) == 0 && len(terms) > 0 {
		res.Suggestion = Suggest(q.Text, vocabularyOf(passing))
	}
	return res, nil
}

// passes says whether d passes q's filters.
func passes(d Doc, q Query) bool {
	if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, d.Kind) {
		return false
	}
	if len(q.Types) > 0 && !containsFold(q.Types, d.Type) {
		return false
	}
	if len(q.Categories) > 0 && !containsFold(q.Categories, d.Type) {
		return false
	}
	if len(q.Tags) > 0 && !slices.ContainsFunc(d.Tags, func(t string) bool { return containsFold(q.Tags, t) }) {
		return false
	}
	if (q.Task != "" && d.Task != q.Task) || (q.Run != "" && d.Run != q.Run) {
		return false
	}
	if !q.Since.IsZero() && (d.Created.IsZero() || d.Created.Before(q.Since)) {
		return false
	}
	return true
}

func containsFold(list []string, v string) bool {
	return slices.ContainsFunc(list, func(s string) bool { return strings.EqualFold(s, v) })
}

// MayMatch says whether d can be a hit of q, whose words are terms
// (Tokens(q.Text)): it passes q's filters and, when q has words, q is its
// id or one of its words matches a query word, exactly or within the
// word's fuzziness. It scores nothing and allocates nothing for lowercase
// ASCII words: the bleve index asks it of every changed entry, to make
// those a search can find searchable first.
func MayMatch(d Doc, q Query, terms []string) bool {
	if !passes(d, q) {
		return false
	}
	if len(terms) == 0 {
		return true
	}
	if d.EntryID != "" && strings.TrimSpace(q.Text) == d.EntryID {
		return true
	}
	if holdsMatch(d.Title, terms) || holdsMatch(d.Content, terms) || holdsMatch(d.EntryID, terms) {
		return true
	}
	return slices.ContainsFunc(d.Tags, func(tag string) bool { return holdsMatch(tag, terms) })
}

// holdsMatch says whether a word of text matches one of terms.
func holdsMatch(text string, terms []string) bool {
	found := false
	words.Each(text, func(start, end int) bool {
		w := text[start:end]
		for _, t := range terms {
			if wordMatches(t, w) {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

// wordMatches is Matches for a word of an entry as it is written (not yet
// lowercased): exact or fuzzy. Most words are told apart without
// computing an edit distance: by their lengths, or by their letters — d
// edits add at most d letters that the other word lacks, and remove at
// most d that it has.
func wordMatches(term, word string) bool {
	fz := Fuzziness(term)
	if tl, ok := letterSet(term); ok {
		if wl, ok := letterSet(word); ok {
			if d := len(word) - len(term); d > fz || -d > fz ||
				bits.OnesCount64(wl&^tl) > fz || bits.OnesCount64(tl&^wl) > fz {
				return false
			}
		}
	}
	if strings.EqualFold(term, word) {
		return true
	}
	if fz == 0 {
		return false
	}
	_, ok := words.EditDistance(term, strings.ToLower(word), fz) // ToLower allocates only to change something
	return ok
}

// letterSet is the set of the ASCII letters (folded to lowercase) and
// digits of s, as bits; false when s holds anything else.
func letterSet(s string) (uint64, bool) {
	var set uint64
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case 'a' <= c && c <= 'z':
			set |= 1 << (c - 'a')
		case 'A' <= c && c <= 'Z':
			set |= 1 << (c - 'A')
		case '0' <= c && c <= '9':
			set |= 1 << (26 + c - '0')
		default:
			return 0, false
		}
	}
	return set, true
}

// scoreDoc scores d against the query words.
func scoreDoc(d Doc, terms []string) float64 {
	head := Tokens(d.Title + " " + strings.Join(d.Tags, " "))
	body := Tokens(d.EntryID + " " + d.Content)
	stems := Stems(d.Title + " " + strings.Join(d.Tags, " ") + " " + d.Content)
	sum, matched := 0.0, 0
	for _, t := range terms {
		best := max(bestMatch(t, head, weightTitle), bestMatch(t, body, weightContent))
		if stem := Stem(t); best == 0 && stem != "" && slices.Contains(stems, stem) {
			best = weightContent * fuzzyWeight // another form of the word, as the index weighs it
		}
		if best > 0 {
			sum += best
			matched++
		}
	}
	return sum * float64(matched) / float64(len(terms))
}

// bestMatch is weight for an exact match of t among words, half of it for
// a fuzzy one, 0 for none.
func bestMatch(t string, words []string, weight float64) float64 {
	fuzzy := false
	for _, w := range words {
		exact, fz := Matches(t, w)
		if exact {
			return weight
		}
		fuzzy = fuzzy || fz
	}
	if fuzzy {
		return weight * fuzzyWeight
	}
	return 0
}

// vocabularyOf counts in how many documents each word appears.
func vocabularyOf(docs []Doc) func(yield func(string, int) bool) {
	return func(yield func(string, int) bool) {
		freq := map[string]int{}
		for _, d := range docs {
			seen := map[string]bool{}
			for _, w := range Tokens(d.Title + " " + strings.Join(d.Tags, " ") + " " + d.Content) {
				if !seen[w] {
					seen[w] = true
					freq[w]++
				}
			}
		}
		for _, w := range sortedWords(freq) {
			if !yield(w, freq[w]) {
				return
			}
		}
	}
}

func sortedWords(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for w := range m {
		out = append(out, w)
	}
	sort.Strings(out)
	return out
}

// KindNames parses a list of kind names; the unknown one is returned with
// false.
func KindNames(names []string) ([]mdstore.Kind, string, bool) {
	var out []mdstore.Kind
	for _, n := range names {
		k := mdstore.Kind(strings.ToLower(strings.TrimSpace(n)))
		if !slices.Contains(mdstore.Kinds, k) {
			return nil, n, false
		}
		out = append(out, k)
	}
	return out, "", true
}
