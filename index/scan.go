package index

import (
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"lore/internal/words"
	"lore/mdstore/entry"
)

// Scan searches documents held in memory by reading every one of them. It
// follows the same rules as the bleve index with a simpler score (the
// words' inverse document frequencies, but neither how often a word occurs
// in an entry nor how long the entry is), and is what lore answers with
// when that index is busy, broken or not installed.
type Scan struct {
	docs []Doc          // in no particular order: answers are sorted
	at   map[string]int // where each id is in docs
}

var _ Index = (*Scan)(nil)

// NewScan holds docs for searching.
func NewScan(docs ...Doc) *Scan {
	s := &Scan{docs: make([]Doc, 0, len(docs)), at: make(map[string]int, len(docs))}
	s.Index(docs...)
	return s
}

// Index adds or replaces documents.
func (s *Scan) Index(docs ...Doc) error {
	for _, d := range docs {
		if i, ok := s.at[d.ID]; ok {
			s.docs[i] = d
			continue
		}
		s.at[d.ID] = len(s.docs)
		s.docs = append(s.docs, d)
	}
	return nil
}

// Remove drops documents by ID.
func (s *Scan) Remove(ids ...string) error {
	for _, id := range ids {
		i, ok := s.at[id]
		if !ok {
			continue
		}
		last := len(s.docs) - 1
		s.docs[i] = s.docs[last]
		s.at[s.docs[i].ID] = i
		s.docs[last] = Doc{}
		s.docs = s.docs[:last]
		delete(s.at, id)
	}
	return nil
}

// Clear drops every document.
func (s *Scan) Clear() error {
	clear(s.docs)
	s.docs = s.docs[:0]
	clear(s.at)
	return nil
}

// Weights of a query word's match, by where and how it matched, as the
// index weighs them: a title or tag word a quarter more than a content
// word (the index counts it in the content and again in its own field), a
// fuzzy match half an exact one, a match of the word's stem as much as a
// content word, on top of the word's own match (the word itself ranks
// above its other forms). Each is multiplied by the square of the word's
// inverse document frequency (idf), as tf-idf does: a word that few
// entries hold outweighs several that many hold.
const (
	weightTitle   = 1.25
	weightContent = 1.0
	fuzzyWeight   = 0.5
	stemWeight    = 1.0
)

// idf is the inverse document frequency of a word that docs of n entries
// hold, as bleve counts it.
func idf(docs, n int) float64 { return 1 + math.Log(float64(n)/float64(docs+1)) }

// Search answers q: documents passing the filters, scored by the words
// they match (scoreAll), best first; newest first without text.
func (s *Scan) Search(q Query) (Result, error) {
	return search(q, s.each)
}

// each shows every document to one visitor per worker, on every core.
func (s *Scan) each(newVisitor func() func(d *Doc)) error {
	workers := min(runtime.GOMAXPROCS(0), max(1, len(s.docs)/256))
	var wg sync.WaitGroup
	for w := range workers {
		visit := newVisitor()
		wg.Go(func() {
			for i := w; i < len(s.docs); i += workers {
				visit(&s.docs[i])
			}
		})
	}
	wg.Wait()
	return nil
}

// A docPass shows every document of a store to visitors, one made by
// newVisitor for each of its workers, which run at the same time; a
// visitor that keeps a document copies it. Each pass shows the same
// documents.
type docPass func(newVisitor func() func(d *Doc)) error

// search answers q by reading the documents that pass shows: a first
// pass counts them and reads those that may hold a query word
// (matcher.mayHold); a second one, only when no entry holds a word that
// may be a typo, reads the others for its near misses; a third, only
// when nothing is found, gathers the words of the documents passing q's
// filters for Suggest. What is kept is the documents that match.
func search(q Query, pass docPass) (Result, error) {
	terms := QueryTokens(q.Text)
	var hits []Hit
	var mu sync.Mutex
	if len(terms) == 0 {
		if q.Strict {
			return Result{}, nil
		}
		err := pass(func() func(d *Doc) {
			return func(d *Doc) {
				if passes(d, q) {
					mu.Lock()
					hits = append(hits, Hit{Doc: *d})
					mu.Unlock()
				}
			}
		})
		if err != nil {
			return Result{}, err
		}
		return finish(q, terms, hits), nil
	}
	var scored []scanned
	var count atomic.Int64
	// read reads the documents for which mayHold says want, keeping
	// those that match.
	read := func(want bool) error {
		count.Store(0)
		return pass(func() func(d *Doc) {
			m := newMatcher(terms)
			return func(d *Doc) {
				count.Add(1)
				if m.mayHold(d) != want {
					return
				}
				if ms, ok := m.read(d); ok {
					sc := scanned{doc: *d, matches: ms, passing: passes(d, q)}
					mu.Lock()
					scored = append(scored, sc)
					mu.Unlock()
				}
			}
		})
	}
	if err := read(true); err != nil {
		return Result{}, err
	}
	n := int(count.Load())
	// How many documents hold each term, and its stem.
	held, heldStems := make([]int, len(terms)), make([]int, len(terms))
	for _, sc := range scored {
		for i := range terms {
			if sc.matches[i]&(exactHead|exactContent) != 0 {
				held[i]++
			}
			if sc.matches[i]&byStem != 0 {
				heldStems[i]++
			}
		}
	}
	// A word no entry holds may be a typo (QueryWords): the entries
	// holding a near miss of it are among those not read yet.
	for i, t := range terms {
		if held[i] == 0 && Fuzziness(t) > 0 && heldStems[i] <= CommonAbove(n) {
			if err := read(false); err != nil {
				return Result{}, err
			}
			break
		}
	}
	qws := QueryWords(q.Text, n, func(term string, stem bool) int {
		for i, t := range terms {
			switch {
			case stem && Stem(t) == term:
				return heldStems[i]
			case !stem && t == term:
				return held[i]
			}
		}
		return 0
	})
	res := finish(q, terms, scoreAll(scored, terms, qws, q.Strict, n))
	if len(res.Hits) == 0 && !q.Strict {
		freq := map[string]int{}
		err := pass(func() func(d *Doc) {
			return func(d *Doc) {
				if !passes(d, q) {
					return
				}
				words := wordsOf(d)
				mu.Lock()
				for _, w := range words {
					freq[w]++
				}
				mu.Unlock()
			}
		})
		if err != nil {
			return Result{}, err
		}
		res.Suggestion = Suggest(q.Text, vocabularyOf(freq))
	}
	return res, nil
}

// finish orders hits, caps them at q's limit and makes their snippets.
func finish(q Query, terms []string, hits []Hit) Result {
	sortHits(hits)
	res := Result{Total: len(hits)}
	hits = q.Capped(hits)
	for i := range hits {
		text := hits[i].Content
		if firstMatch(text, terms) < 0 && hits[i].Title != "" {
			text = hits[i].Title
		}
		hits[i].Snippet = Snippet(text, terms, SnippetWidth)
	}
	res.Hits = hits
	return res
}

// sortHits orders hits best first, then newest first, then by id.
func sortHits(hits []Hit) {
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
}

// scanned is a document read for scoring: how it matches each of the
// query's words (terms), in what the bleve index's fields hold — the
// words of its title and tags (head), of its content and of its id, and
// the stems of its title, tags and content. passing says whether it
// passes the query's filters.
type scanned struct {
	doc     Doc
	matches []match
	passing bool
}

// match is how a document holds one query word: bits of where the word
// is, where a word within the query word's Fuzziness is, and whether the
// query word's stem is among the document's stems.
type match uint8

const (
	exactHead match = 1 << iota
	exactContent
	exactID
	fuzzyHead
	fuzzyContent
	fuzzyID
	byStem
)

// matcher finds how documents match a query's words, remembering the
// stems of the words it has seen (stemming is the costly part).
type matcher struct {
	terms []string
	stems []string // Stem of each term
	fuzz  []int    // Fuzziness of each term
	known map[string]string
	// needles are what a document's lowercased text holds when it holds
	// a term or a word with the term's stem (mayHold); nil when some
	// term's stem is too short to tell.
	needles []string
}

func newMatcher(terms []string) *matcher {
	m := &matcher{terms: terms, stems: make([]string, len(terms)), fuzz: make([]int, len(terms)), known: map[string]string{}}
	every := false
	for i, t := range terms {
		m.stems[i], m.fuzz[i] = Stem(t), Fuzziness(t)
		m.needles = append(m.needles, t)
		if st := m.stems[i]; st != "" {
			// A word is its stem's first letters but the last one or
			// two (Porter's algorithm changes only the end of a word, and
			// by at most one letter beyond what it cuts: flaky, flaki;
			// 280,000 words checked).
			if len(st) < 2+stemNeedleMin {
				every = true
			} else {
				m.needles = append(m.needles, st[:len(st)-2])
			}
		}
	}
	if every || readEverything {
		m.needles = nil
	}
	return m
}

// readEverything turns mayHold off, for the tests that compare.
var readEverything = false

// stemNeedleMin is the shortest start of a stem worth looking for.
const stemNeedleMin = 2

// mayHold says whether d may hold one of the terms, or a word with the
// stem of one, in the fields read reads: false only when none of them
// holds a needle. (A word is a lowercased slice of its text, and
// strings.ToLower maps rune by rune: the lowercased text holds it.)
func (m *matcher) mayHold(d *Doc) bool {
	if m.needles == nil {
		return true
	}
	if m.holdsNeedle(d.Title) || m.holdsNeedle(d.Content) || m.holdsNeedle(d.EntryID) {
		return true
	}
	return slices.ContainsFunc(d.Tags, m.holdsNeedle)
}

func (m *matcher) holdsNeedle(text string) bool {
	if isASCII(text) {
		for _, n := range m.needles {
			if containsFoldASCII(text, n) {
				return true
			}
		}
		return false
	}
	lower := strings.ToLower(text)
	for _, n := range m.needles {
		if strings.Contains(lower, n) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// containsFoldASCII says whether ASCII text holds lowercase needle,
// its letters in either case.
func containsFoldASCII(text, needle string) bool {
	if needle == "" {
		return true
	}
	if len(needle) > len(text) || !isASCII(needle) {
		return false // a lowercased ASCII text is ASCII
	}
	lower, upper := needle[0], needle[0]
	if 'a' <= lower && lower <= 'z' {
		upper = lower - 'a' + 'A'
	}
	starts := text[:len(text)-len(needle)+1] // where needle can start
	next := func(c byte, from int) int {
		if j := strings.IndexByte(starts[from:], c); j >= 0 {
			return from + j
		}
		return len(starts)
	}
	lo, up := next(lower, 0), len(starts)
	if upper != lower {
		up = next(upper, 0)
	}
	for {
		i := min(lo, up)
		if i == len(starts) {
			return false
		}
		if equalFoldASCII(text[i:i+len(needle)], needle) {
			return true
		}
		if i == lo {
			lo = next(lower, i+1)
		} else {
			up = next(upper, i+1)
		}
	}
}

// equalFoldASCII says whether ASCII a equals lowercase b, a's letters
// in either case.
func equalFoldASCII(a, b string) bool {
	for i := 0; i < len(b); i++ {
		c := a[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}

// read is how d matches each term; false when it matches none.
func (m *matcher) read(d *Doc) ([]match, bool) {
	ms := make([]match, len(m.terms))
	found := false
	visit := func(text string, exact, fuzzy match, stems bool) {
		eachToken(text, func(w string) {
			for i, t := range m.terms {
				switch {
				case w == t:
					ms[i] |= exact
				case m.fuzz[i] > 0 && ms[i]&fuzzy == 0 && wordMatches(t, w):
					ms[i] |= fuzzy
				}
				// A word's stem keeps its first letter and is no longer
				// than the word.
				if stems && m.stems[i] != "" && ms[i]&byStem == 0 && w[0] == m.stems[i][0] && len(w) >= len(m.stems[i]) && m.stem(w) == m.stems[i] {
					ms[i] |= byStem
				}
				found = found || ms[i] != 0
			}
		})
	}
	visit(d.Title, exactHead, fuzzyHead, true)
	for _, tag := range d.Tags {
		visit(tag, exactHead, fuzzyHead, true)
	}
	visit(d.Content, exactContent, fuzzyContent, true)
	visit(d.EntryID, exactID, fuzzyID, false)
	return ms, found
}

// stem is Stem(w), remembered.
func (m *matcher) stem(w string) string {
	st, ok := m.known[w]
	if !ok {
		st = Stem(w)
		m.known[strings.Clone(w)] = st
	}
	return st
}

// passes says whether d passes q's filters.
func passes(d *Doc, q Query) bool {
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
	return q.wantsStatus(d.Status)
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
	if !passes(&d, q) {
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

// scoreAll scores the passing documents against the query's words, in a
// store of n entries. With rare words, a document must match one: it
// scores its rare words' matches times the share of the rare words it
// matched, plus its common words' matches times the share of all the
// query's words that those are. With common words alone, it scores their
// matches times the share it matched, and is no hit when strict. When
// the rare words find nothing, and the search is not strict, the common
// words answer alone.
func scoreAll(all []scanned, terms []string, ws []QueryWord, strict bool, n int) []Hit {
	rare, common := SplitRare(ws)
	var hits []Hit
	for _, sc := range all {
		if !sc.passing {
			continue
		}
		r, rm := scoreDoc(sc, terms, rare, n)
		c, cm := scoreDoc(sc, terms, common, n)
		var score float64
		switch {
		case len(rare) > 0 && rm > 0:
			score = r*float64(rm)/float64(len(rare)) + c*float64(cm)/float64(len(ws))
		case len(rare) == 0 && !strict:
			score = c * float64(cm) / float64(len(common))
		}
		if score > 0 {
			hits = append(hits, Hit{Doc: sc.doc, Score: score})
		}
	}
	if len(hits) == 0 && len(rare) > 0 && len(common) > 0 && !strict {
		return scoreAll(all, terms, common, false, n)
	}
	return hits
}

// scoreDoc is the sum of the matches of each of ws in the document, in a
// store of n entries — its best exact or fuzzy match, plus a match of its
// stem, times its idf squared — and how many of ws it matched. terms are
// the query's words, in the order of the document's matches.
func scoreDoc(sc scanned, terms []string, ws []QueryWord, n int) (sum float64, matched int) {
	for _, w := range ws {
		mt := sc.matches[slices.Index(terms, w.Term)]
		m := max(matchWeight(mt, exactHead, fuzzyHead, weightTitle, w),
			matchWeight(mt, exactContent, fuzzyContent, weightContent, w),
			matchWeight(mt, exactID, fuzzyID, weightContent, w))
		if mt&byStem != 0 {
			m += weightContent * stemWeight
		}
		if m > 0 {
			f := idf(w.Docs, n)
			sum += m * f * f
			matched++
		}
	}
	return sum, matched
}

// matchWeight is weight for an exact match of w in a field, half of it
// for a match within w's fuzziness, 0 for none.
func matchWeight(m, exact, fuzzy match, weight float64, w QueryWord) float64 {
	switch {
	case m&exact != 0:
		return weight
	case w.Fuzziness > 0 && m&fuzzy != 0:
		return weight * fuzzyWeight
	}
	return 0
}

// wordsOf is the words of d's title, tags and content, each once.
func wordsOf(d *Doc) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range Tokens(d.Title + " " + strings.Join(d.Tags, " ") + " " + d.Content) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// vocabularyOf yields the words of freq, with in how many documents
// each appears, in order.
func vocabularyOf(freq map[string]int) func(yield func(string, int) bool) {
	return func(yield func(string, int) bool) {
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
func KindNames(names []string) ([]entry.Kind, string, bool) {
	var out []entry.Kind
	for _, n := range names {
		k := entry.Kind(strings.ToLower(strings.TrimSpace(n)))
		if !slices.Contains(entry.Kinds, k) {
			return nil, n, false
		}
		out = append(out, k)
	}
	return out, "", true
}
