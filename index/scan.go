package index

import (
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

// Scan searches documents held in memory by reading every one of them.
// It scores them by the rule the bleve index follows (Scorer), from the
// words it reads in them, and is what lore answers with when that index
// is busy, broken, not built yet or not installed.
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
		return finish(q, QueryTerms(q.Text), hits), nil
	}
	// The query's words, then the other forms of its compounds
	// (QueryTerms): which of those the store holds is counted here.
	all := QueryTerms(q.Text)
	var scored []scanned
	var count atomic.Int64
	// read reads the documents for which mayHold says want, keeping
	// those that match.
	read := func(want bool) error {
		count.Store(0)
		return pass(func() func(d *Doc) {
			m := newMatcher(all, len(terms), q.Text)
			return func(d *Doc) {
				count.Add(1)
				if m.mayHold(d) != want {
					return
				}
				if h, ok := m.read(d); ok {
					sc := scanned{doc: *d, holds: h, passing: passes(d, q)}
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
	held, heldStems := make([]int, len(all)), make([]int, len(all))
	for _, sc := range scored {
		for i := range all {
			if sc.holds.terms[i].freq[FieldContent] > 0 {
				held[i]++
			}
			if sc.holds.terms[i].stem > 0 {
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
		for i, t := range all {
			switch {
			case stem && Stem(t) == term:
				return heldStems[i]
			case !stem && t == term:
				return held[i]
			}
		}
		return 0
	})
	scorer, nearDocs := NewScorer(qws, n, q.Strict), nearDocsOf(scored)
	hits = scoreAll(scored, all, scorer, nearDocs)
	if fallback := scorer.CommonOnly(); len(hits) == 0 && fallback != nil {
		hits = scoreAll(scored, all, fallback, nearDocs)
	}
	res := finish(q, QueryTerms(q.Text), hits)
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

// finish orders hits, caps them at q's limit and makes their snippets
// around the first of terms each holds (QueryTerms: a synonym or the
// other form of a compound that made it a hit is shown too).
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
		if a, b := a.Created.Unix(), b.Created.Unix(); a != b { // the index keeps it to the second
			return a > b
		}
		return a.ID < b.ID
	})
}

// scanned is a document read for scoring: how it holds the query's
// words (holds), and whether it passes the query's filters.
type scanned struct {
	doc     Doc
	holds   holds
	passing bool
}

// holds is how a document holds each of a query's terms, in the fields
// the bleve index keeps (see Field: the content holds the title's and the
// tags' words too), and how long those fields are.
type holds struct {
	terms []termHeld
	norms [numFields]float64 // Norm of each field's length
	stems float64            // Norm of the stems' (the content's words that have one)
	id    bool               // the document's id is the whole query
}

// termHeld is how a document holds one term: how often in each field,
// how often a word with its stem is in the content, and the words within
// its fuzziness.
type termHeld struct {
	freq [numFields]uint32
	stem uint32
	near []nearWord
}

// nearWord is a word of a field within a term's fuzziness, and how often
// the field holds it.
type nearWord struct {
	word  string
	field Field
	edits uint8
	freq  uint32
}

// matcher finds how documents match a query's words, remembering the
// stems of the words it has seen (stemming is the costly part).
type matcher struct {
	terms []string
	id    string   // the whole query, when it may be an id
	stems []string // Stem of each term
	fuzz  []int    // Fuzziness of each term
	known map[string]string
	// needles are what a document's lowercased text holds when it holds
	// a term or a word with the term's stem (mayHold); nil when some
	// term's stem is too short to tell.
	needles []string
}

// newMatcher matches terms, of which the first fuzzy may be typos (the
// query's own words; the others, the forms of its compounds, are words
// the store may hold), in the documents of a search for text.
func newMatcher(terms []string, fuzzy int, text string) *matcher {
	m := &matcher{terms: terms, id: QueryID(text), stems: make([]string, len(terms)), fuzz: make([]int, len(terms)), known: map[string]string{}}
	every := false
	for i, t := range terms {
		m.stems[i] = Stem(t)
		if i < fuzzy {
			m.fuzz[i] = Fuzziness(t)
		}
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

// read is how d holds each term; false when it holds none and its id is
// not the query.
func (m *matcher) read(d *Doc) (holds, bool) {
	h := holds{terms: make([]termHeld, len(m.terms)), id: m.id != "" && d.EntryID == m.id}
	found := h.id
	var lengths [numFields]int
	stems := 0
	visit := func(text string, f Field) {
		eachToken(text, func(w string) {
			lengths[f]++
			content := f == FieldContent
			if content && hasStem(w) {
				stems++
			}
			for i, t := range m.terms {
				th := &h.terms[i]
				switch {
				case w == t:
					th.freq[f]++
					found = true
				case m.fuzz[i] > 0:
					if edits, ok := nearEdits(t, w, m.fuzz[i]); ok {
						th.addNear(w, f, edits)
						found = true
					}
				}
				// A word's stem keeps its first letter and is no longer
				// than the word.
				if content && m.stems[i] != "" && w[0] == m.stems[i][0] && len(w) >= len(m.stems[i]) && m.stem(w) == m.stems[i] {
					th.stem++
					found = true
				}
			}
		})
	}
	visit(d.Title, FieldTitle)
	for _, tag := range d.Tags {
		visit(tag, FieldTags)
	}
	visit(d.Title, FieldContent)
	for _, tag := range d.Tags {
		visit(tag, FieldContent)
	}
	visit(d.Content, FieldContent)
	for f, n := range lengths {
		h.norms[f] = Norm(n)
	}
	h.stems = Norm(stems)
	return h, found
}

// addNear counts word, edits from the term, in field f.
func (th *termHeld) addNear(word string, f Field, edits int) {
	for i := range th.near {
		if nw := &th.near[i]; nw.field == f && nw.word == word {
			nw.freq++
			return
		}
	}
	th.near = append(th.near, nearWord{word: strings.Clone(word), field: f, edits: uint8(edits), freq: 1})
}

// QueryID is the query text when it may be an entry's id: one word,
// spaces around it trimmed, which both searchers look up whole.
func QueryID(text string) string {
	if id := strings.TrimSpace(text); !strings.ContainsAny(id, " \t\n") {
		return id
	}
	return ""
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

// MayMatch says whether d may count in q's answer, q's words being terms
// (QueryTerms(q.Text)): when q has words, q is its id or one of its
// words matches a query word, exactly, within the word's fuzziness or by
// its stem — d may be a hit, and whether or not it passes q's filters, it
// counts among the entries holding that word, which weighs the word in
// every hit's score. It scores nothing and allocates nothing for
// lowercase ASCII words that are not near a query word: the bleve index
// asks it of every changed entry, to make those that count searchable
// first.
func MayMatch(d Doc, q Query, terms []string) bool {
	if len(terms) == 0 {
		return passes(&d, q)
	}
	if d.EntryID != "" && strings.TrimSpace(q.Text) == d.EntryID {
		return true
	}
	stems := make([]string, len(terms))
	for i, t := range terms {
		stems[i] = Stem(t)
	}
	if holdsMatch(d.Title, terms, stems) || holdsMatch(d.Content, terms, stems) {
		return true
	}
	return slices.ContainsFunc(d.Tags, func(tag string) bool { return holdsMatch(tag, terms, stems) })
}

// holdsMatch says whether a word of text matches one of terms, or has
// the stem of one (stems: of each term, "" for none).
func holdsMatch(text string, terms, stems []string) bool {
	found := false
	words.EachTerm(text, func(start, end int) bool {
		w := text[start:end]
		for i, t := range terms {
			if wordMatches(t, w) || stems[i] != "" && sameStem(w, stems[i]) {
				found = true
				return false
			}
		}
		return true
	})
	return found
}

// sameStem says whether a word of an entry, as it is written, has stem:
// a word's stem keeps its first letter and is no longer than the word.
func sameStem(word, stem string) bool {
	if len(word) < len(stem) || word[0]|0x20 != stem[0] {
		return false
	}
	lower := strings.ToLower(word)
	return Stem(lower) == stem
}

// wordMatches is Matches for a word of an entry as it is written (not yet
// lowercased): exact or fuzzy.
func wordMatches(term, word string) bool {
	if strings.EqualFold(term, word) {
		return true
	}
	_, ok := nearEdits(term, strings.ToLower(word), Fuzziness(term)) // ToLower allocates only to change something
	return ok
}

// nearEdits is how many edits (words.EditDistance) a lowercase word other
// than term is from it, when at most fz. Most words are told apart
// without computing it: by their lengths, or by their letters — d edits
// add at most d letters that the other word lacks, and remove at most d
// that it has.
func nearEdits(term, word string, fz int) (int, bool) {
	if fz == 0 || term == word {
		return 0, false
	}
	if tl, ok := letterSet(term); ok {
		if wl, ok := letterSet(word); ok {
			if d := len(word) - len(term); d > fz || -d > fz ||
				bits.OnesCount64(wl&^tl) > fz || bits.OnesCount64(tl&^wl) > fz {
				return 0, false
			}
		}
	}
	return words.EditDistance(term, word, fz)
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

// scoreAll scores the passing documents of all, read for terms, by sc's
// rule; nearDocs is how many documents hold each near word (nearDocsOf).
func scoreAll(all []scanned, terms []string, sc *Scorer, nearDocs map[string]int) []Hit {
	ws := sc.Words()
	at := make([]int, len(ws)) // each word's place in terms
	for i, w := range ws {
		at[i] = slices.Index(terms, w.Term)
	}
	nearRarity := make(map[string]float64, len(nearDocs))
	for w, docs := range nearDocs {
		nearRarity[w] = IDF2(docs, sc.n)
	}
	ms := make([]WordMatch, len(ws))
	var hits []Hit
	for _, d := range all {
		if !d.passing {
			continue
		}
		clear(ms)
		for i, w := range ws {
			th, m := &d.holds.terms[at[i]], &ms[i]
			for f, freq := range th.freq {
				if freq > 0 {
					m.Exact(Field(f), uint64(freq), d.holds.norms[f])
				}
			}
			if th.stem > 0 {
				m.Stem(uint64(th.stem), d.holds.stems)
			}
			for _, nw := range th.near {
				if int(nw.edits) <= w.Fuzziness {
					m.Near(nw.field, uint64(nw.freq), d.holds.norms[nw.field], int(nw.edits), nearRarity[nw.word])
				}
			}
		}
		if score := sc.Score(ms, d.holds.id); score > 0 {
			hits = append(hits, Hit{Doc: d.doc, Score: score})
		}
	}
	return hits
}

// nearDocsOf is how many of the documents hold each word that is near a
// query term (in their content, which holds every field's words).
func nearDocsOf(all []scanned) map[string]int {
	out := map[string]int{}
	var seen []string
	for _, d := range all {
		seen = seen[:0]
		for _, th := range d.holds.terms {
			for _, nw := range th.near {
				if nw.field == FieldContent && !slices.Contains(seen, nw.word) {
					seen = append(seen, nw.word)
					out[nw.word]++
				}
			}
		}
	}
	return out
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
