package index

import (
	"slices"
	"sort"
	"strings"

	"lore/mdstore"
)

// Scan searches documents held in memory by reading every one of them. It
// follows the same rules as the bleve index with a simpler score (no term
// statistics), and is what lore answers with when that index is busy,
// broken or not installed.
type Scan struct {
	docs map[string]Doc
}

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

// Weights of a query word's match, by where and how it matched: a title or
// tag counts three times the content, a fuzzy match half an exact one.
const (
	weightTitle   = 3.0
	weightContent = 1.0
	fuzzyWeight   = 0.5
)

// Search answers q: documents passing the filters, scored by the words
// they match (sum of each word's best match, times the share of query
// words matched), best first; newest first without text.
func (s *Scan) Search(q Query) (Result, error) {
	terms := Tokens(q.Text)
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

// scoreDoc scores d against the query words.
func scoreDoc(d Doc, terms []string) float64 {
	head := Tokens(d.Title + " " + strings.Join(d.Tags, " "))
	body := Tokens(d.EntryID + " " + d.Content)
	sum, matched := 0.0, 0
	for _, t := range terms {
		best := max(bestMatch(t, head, weightTitle), bestMatch(t, body, weightContent))
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
