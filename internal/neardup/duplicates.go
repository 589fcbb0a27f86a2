package neardup

import (
	"cmp"
	"slices"
	"strings"

	"lore/internal/words"
)

// Duplicates tells whether a learning says nearly what one of a list of
// learnings says: the same category and more than 80% of their keywords
// in common (seed 002). Each learning's keywords are taken once.
//
// A question costs what the few learnings that could be its duplicates
// cost, not the whole list (prefix filtering): two sets with more than 80%
// in common share a word among the first |set| - ⌊0.8|set|⌋ words of
// each, in any fixed order of words, so each learning is filed under
// those words only, with its category, and a question looks at the
// learnings of its category filed under its own. The order puts rare
// words first (New), so that the lists stay short. The first
// word under which a question finds a learning is the first they share
// in that order (any earlier one would be in both prefixes), so only the
// words from there on, in each, can be shared: when those are too few,
// the learning is passed over without being compared (positional
// filtering).
//
// Words are numbered as they are met (their ids), a learning's keywords
// kept as its words' ids in ascending order. A question marks its own
// words once; comparing it with a learning counts the learning's words
// it does not hold, and stops at the miss that leaves too few.
type Duplicates struct {
	categories []int32   // each learning's category (its id in categoryIDs)
	sets       [][]int32 // each learning's keywords
	// filed holds, under a category and a word (filing), the learnings
	// of that category filed under that word.
	filed       map[uint64][]filedAt
	categoryIDs map[string]int32
	// ids numbers the words; vocabulary is the words by id. The words
	// New counted are numbered in the list's order of words
	// (rarer first, then alphabetical), from 0 to counted-1; a word met
	// later has a higher id and comes before all of those, in
	// alphabetical order (it was counted 0 times).
	ids        map[string]int32
	vocabulary []string
	counted    int32
	// expected holds the keywords of the bodies New counted,
	// so that each is taken once; given holds them in the order they
	// were given, and next is where the next body asked about is looked
	// for first: a body asked about in that order is found without
	// hashing it (a knowledge entry's text is a kilobyte or more).
	expected map[string]*keyed
	given    []givenBody
	next     int
	// the last body asked about, for the Add or Set that follows
	lastBody string
	last     *keyed
	// compared[i] is asked when Of last compared learning i with the
	// body asked about: one filed under several words is compared once;
	// held[w] is asked when that body holds word w.
	compared, held []uint32
	asked          uint32
	// overlaps[n] is nearDuplicateOverlap(n), for the sizes met so far.
	overlaps []int32
	// taken[id] is body when wordIDs last met word id in body (its
	// count of bodies): a word repeated in a body is taken once.
	taken []int32
	body  int32
}

// filedAt is a learning filed under a word: its position in the list, the
// word's place in its prefix and how many keywords it has, so that a
// learning that cannot be a near duplicate for its size or that place is
// passed over without reading it.
type filedAt struct {
	learning, at, size int32
}

// givenBody is a body New was given, and its keywords.
type givenBody struct {
	body string
	k    *keyed
}

// keyed is a body's keywords (their ids, ascending) and, once asked for,
// its prefix.
type keyed struct {
	words  []int32
	prefix []int32
	filed  bool // prefix is set
}

// New returns an empty list that expects learnings like bodies
// (the ones that will be added or asked about), whose words it counts to
// order them. The zero Duplicates orders words alphabetically, which
// gives the same answers, more slowly on a long list of similar words.
func New(bodies ...string) *Duplicates {
	d := &Duplicates{expected: make(map[string]*keyed, len(bodies)), given: make([]givenBody, len(bodies))}
	var frequency []int32 // by id, as first numbered
	for i, b := range bodies {
		if k := d.expected[b]; k != nil {
			d.given[i] = givenBody{b, k}
			continue
		}
		k := &keyed{words: d.wordIDs(b)}
		d.expected[b], d.given[i] = k, givenBody{b, k}
		for _, w := range k.words {
			if int(w) == len(frequency) {
				frequency = append(frequency, 0)
			}
			frequency[w]++
		}
	}
	// Number the words again in the list's order: rarer first, then
	// alphabetical.
	order := make([]int32, len(d.vocabulary))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if frequency[a] != frequency[b] {
			return cmp.Compare(frequency[a], frequency[b])
		}
		return strings.Compare(d.vocabulary[a], d.vocabulary[b])
	})
	renumbered := make([]int32, len(order))
	vocabulary := make([]string, len(order))
	for rank, id := range order {
		renumbered[id] = int32(rank)
		vocabulary[rank] = d.vocabulary[id]
		d.ids[d.vocabulary[id]] = int32(rank)
	}
	d.vocabulary, d.counted = vocabulary, int32(len(vocabulary))
	for _, k := range d.expected {
		for i, w := range k.words {
			k.words[i] = renumbered[w]
		}
		slices.Sort(k.words)
	}
	return d
}

// Of returns the position of the first learning of the list that a
// learning of this category and body nearly duplicates, or -1.
func (d *Duplicates) Of(category, body string) int {
	k := d.keyed(body)
	c, ok := d.categoryIDs[category]
	if !ok {
		return -1 // none of this category
	}
	if d.asked++; d.asked == 0 { // wrapped around: forget every mark
		clear(d.compared)
		clear(d.held)
		d.asked = 1
	}
	n := int32(len(k.words))
	for len(d.held) < len(d.vocabulary) {
		d.held = append(d.held, 0)
	}
	for _, w := range k.words {
		d.held[w] = d.asked
	}
	best := int32(-1)
	for at, word := range d.prefixOf(k) {
		for _, f := range d.filed[filing(c, word)] {
			// Found first under this word, the two can share it and
			// those after it in both, no more (and found again, they
			// can share fewer): too few, and they are no near
			// duplicates, however their sizes compare.
			if best >= 0 && f.learning >= best || min(n-int32(at), f.size-f.at) < d.overlap(n+f.size) ||
				d.compared[f.learning] == d.asked {
				continue
			}
			d.compared[f.learning] = d.asked
			if d.holdsAtLeast(d.sets[f.learning], d.overlap(n+f.size)) {
				best = f.learning
			}
		}
	}
	return int(best)
}

// overlap is nearDuplicateOverlap(total), worked out once per total.
func (d *Duplicates) overlap(total int32) int32 {
	for int(total) >= len(d.overlaps) {
		d.overlaps = append(d.overlaps, int32(nearDuplicateOverlap(len(d.overlaps))))
	}
	return d.overlaps[total]
}

// Add appends a learning to the list.
func (d *Duplicates) Add(category, body string) {
	d.categories = append(d.categories, -1)
	d.sets = append(d.sets, nil)
	d.compared = append(d.compared, 0)
	d.Set(len(d.categories)-1, category, body)
}

// Set replaces the learning at position i, and what it was filed under.
func (d *Duplicates) Set(i int, category, body string) {
	k := d.keyed(body)
	if d.categoryIDs == nil {
		d.categoryIDs, d.filed = map[string]int32{}, map[uint64][]filedAt{}
	}
	if old := d.categories[i]; old >= 0 {
		for _, word := range d.prefixOf(d.keyedOf(i)) {
			key := filing(old, word)
			d.filed[key] = slices.DeleteFunc(d.filed[key], func(f filedAt) bool { return f.learning == int32(i) })
		}
	}
	c, ok := d.categoryIDs[category]
	if !ok {
		c = int32(len(d.categoryIDs))
		d.categoryIDs[category] = c
	}
	d.categories[i], d.sets[i] = c, k.words
	for at, word := range d.prefixOf(k) {
		key := filing(c, word)
		d.filed[key] = append(d.filed[key], filedAt{int32(i), int32(at), int32(len(k.words))})
	}
}

// Len is how many learnings the list holds.
func (d *Duplicates) Len() int { return len(d.categories) }

// filing is the key of the list of a category's learnings filed under a
// word.
func filing(category, word int32) uint64 { return uint64(category)<<32 | uint64(uint32(word)) }

// keyedOf is the keywords of the learning at position i, its prefix
// worked out again.
func (d *Duplicates) keyedOf(i int) *keyed { return &keyed{words: d.sets[i]} }

// prefixOf is the words a body's keywords are filed and looked up under:
// the first len(w) - ⌊0.8·len(w)⌋ in the list's order of words (words
// New did not count first, alphabetically; then the counted
// ones, rarer first), worked out once per body.
func (d *Duplicates) prefixOf(k *keyed) []int32 {
	if k.filed {
		return k.prefix
	}
	n := len(k.words) - len(k.words)*4/5
	// The ids are ascending: the uncounted words are the last ones.
	counted, _ := slices.BinarySearch(k.words, d.counted)
	uncounted := slices.Clone(k.words[counted:])
	slices.SortFunc(uncounted, func(a, b int32) int { return strings.Compare(d.vocabulary[a], d.vocabulary[b]) })
	k.prefix = append(uncounted[:min(n, len(uncounted)):min(n, len(uncounted))], k.words[:max(0, n-len(uncounted))]...)
	k.filed = true
	return k.prefix
}

// keyed is body's keywords: counted by New, or taken now.
func (d *Duplicates) keyed(body string) *keyed {
	if d.last != nil && body == d.lastBody {
		return d.last
	}
	var k *keyed
	if d.next < len(d.given) && d.given[d.next].body == body {
		k = d.given[d.next].k
		d.next++
	} else {
		k = d.expected[body]
	}
	if k == nil {
		k = &keyed{words: d.wordIDs(body)}
		slices.Sort(k.words)
	}
	d.lastBody, d.last = body, k
	return k
}

// wordIDs is the ids of body's keywords, each once, in no order; a word
// met for the first time is given the next id.
func (d *Duplicates) wordIDs(body string) []int32 {
	if d.ids == nil {
		d.ids = map[string]int32{}
	}
	d.body++
	var ids []int32
	words.EachKeyword(body, func(w string) {
		id, ok := d.ids[w]
		if !ok {
			id = int32(len(d.vocabulary))
			w = strings.Clone(w) // not the body's lowercase copy, kept whole
			d.ids[w] = id
			d.vocabulary = append(d.vocabulary, w)
			d.taken = append(d.taken, 0)
		}
		if d.taken[id] != d.body {
			d.taken[id] = d.body
			ids = append(ids, id)
		}
	})
	return ids
}

// holdsAtLeast says whether the body asked about (its words marked in
// held) holds need or more of a learning's keywords — whether the two are
// near duplicates, need being their nearDuplicateOverlap. It stops at the
// miss that leaves too few.
func (d *Duplicates) holdsAtLeast(words []int32, need int32) bool {
	misses := int32(len(words)) - need // how many it may miss
	if misses < 0 || len(words) == 0 {
		return false
	}
	for _, w := range words {
		if d.held[w] != d.asked {
			if misses--; misses < 0 {
				return false
			}
		}
	}
	return true
}

// nearDuplicateOverlap is the fewest words two learnings with sizes
// summing to total must share to be near duplicates: the least common
// for which Near's ratio, common / (total - common), is
// above 0.8 (it grows with common), computed as it computes it.
func nearDuplicateOverlap(total int) int {
	common := max(0, total*4/9-2) // 4/9 of total is where the ratio is 0.8
	for common < total && !(float64(common)/float64(total-common) > 0.8) {
		common++
	}
	return common
}

// KeywordSet is a text's keywords (words.Keywords), each once.
func KeywordSet(body string) map[string]bool {
	w := map[string]bool{}
	for _, k := range words.Keywords(body) {
		w[k] = true
	}
	return w
}

// Words is a learning's keywords as the near-duplicate check of
// a write compares them (the blob cache keeps them): distinct, sorted,
// each between spaces (" cache redis ttl "), so that a word is found by
// looking for it between spaces; "" when there are none.
func Words(body string) string {
	set := KeywordSet(body)
	if len(set) == 0 {
		return ""
	}
	ws := make([]string, 0, len(set))
	for w := range set {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	return " " + strings.Join(ws, " ") + " "
}

// Asked is a learning asked about, for comparing with Words:
// its keywords, and the few of them (between spaces) one of which any
// near-duplicate must hold — more than 80% shared leaves fewer than
// len(w) - ⌊0.8·len(w)⌋ of them out, so a set of that many, here the
// longest, cannot be left out whole.
type Asked struct {
	w      map[string]bool
	filter []string
}

// Ask is body asked about, to compare with the Words of a few learnings.
func Ask(body string) Asked {
	a := Asked{w: KeywordSet(body)}
	ws := make([]string, 0, len(a.w))
	for w := range a.w {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(x, y string) int {
		if len(x) != len(y) {
			return cmp.Compare(len(y), len(x))
		}
		return strings.Compare(x, y)
	})
	for _, w := range ws[:len(ws)-len(ws)*4/5] {
		a.filter = append(a.filter, " "+w+" ")
	}
	return a
}

// NearDuplicateOf says what Near says of a's keywords and those of
// words (a learning's Words), reading words only when it holds one of a's
// filter words.
func (a Asked) NearDuplicateOf(words string) bool {
	n := strings.Count(words, " ") - 1
	small, large := min(len(a.w), n), max(len(a.w), n)
	if small <= 0 || float64(small) <= 0.8*float64(large) {
		return false
	}
	held := false
	for _, f := range a.filter {
		if strings.Contains(words, f) {
			held = true
			break
		}
	}
	if !held {
		return false
	}
	common := 0
	for _, w := range strings.Fields(words) {
		if a.w[w] {
			common++
		}
	}
	return float64(common)/float64(len(a.w)+n-common) > 0.8
}

// Near says whether two learnings' keywords make them near duplicates: more than 80% shared (Jaccard). Sets whose sizes differ by
// more than that are told apart without comparing words.
func Near(a, b map[string]bool) bool {
	small, large := min(len(a), len(b)), max(len(a), len(b))
	if small == 0 || float64(small) <= 0.8*float64(large) { // the overlap is at most small/large
		return false
	}
	common := 0
	for w := range a {
		if b[w] {
			common++
		}
	}
	return float64(common)/float64(len(a)+len(b)-common) > 0.8
}
