package secrets

import "sync"

// ruleSet is a set of indexes into rules.
type ruleSet [2]uint64

func (s *ruleSet) add(i int)              { s[i/64] |= 1 << (i % 64) }
func (s *ruleSet) addAll(t ruleSet)       { s[0] |= t[0]; s[1] |= t[1] }
func (s ruleSet) has(i int) bool          { return s[i/64]&(1<<(i%64)) != 0 }
func (s ruleSet) empty() bool             { return s[0] == 0 && s[1] == 0 }
func (s ruleSet) contains(t ruleSet) bool { return s[0]&t[0] == t[0] && s[1]&t[1] == t[1] }

// A keyword is one of the rules' keywords and the rules that name it.
type keyword struct {
	word  string // lower case, two bytes or more
	rules ruleSet
}

// A keywordIndex finds the rules' keywords in a text without lowering it.
type keywordIndex struct {
	// byFirst lists the keywords by their first byte, in both cases.
	byFirst [256][]keyword
	// second[c] is the set of second bytes, lower case, of the keywords
	// that begin with c: a byte pair that is not in it starts no keyword.
	second [256][4]uint64
}

var keywords struct {
	once  sync.Once
	index keywordIndex
}

// keywordTable returns the keyword index, built on first use.
func keywordTable() *keywordIndex {
	keywords.once.Do(func() {
		t := &keywords.index
		for i, r := range rules {
		words:
			for _, w := range r.keywords {
				bucket := t.byFirst[w[0]]
				for j := range bucket {
					if bucket[j].word == w {
						bucket[j].rules.add(i)
						continue words
					}
				}
				kw := keyword{word: w}
				kw.rules.add(i)
				t.byFirst[w[0]] = append(bucket, kw)
				t.second[w[0]][w[1]/64] |= 1 << (w[1] % 64)
			}
		}
		for c := byte('a'); c <= 'z'; c++ {
			t.byFirst[c-'a'+'A'] = t.byFirst[c]
			t.second[c-'a'+'A'] = t.second[c]
		}
	})
	return &keywords.index
}

// mayStartKeyword reports whether a keyword may begin at text[i], judging
// by the first two bytes only.
func (t *keywordIndex) mayStartKeyword(text string, i int) bool {
	if i+1 >= len(text) {
		return false
	}
	c := lowerByte(text[i+1])
	return t.second[text[i]][c/64]&(1<<(c%64)) != 0
}

// A keywordHit is a place in a text where keywords begin, and the rules
// that name them.
type keywordHit struct {
	pos   int
	rules ruleSet
}

// keywordHits returns, in order, the places in text where the rules'
// keywords begin, compared without regard to ASCII case as gitleaks'
// prefilter does on the lowered text. It reads text once, and allocates
// nothing if no keyword occurs.
func keywordHits(text string) []keywordHit {
	t := keywordTable()
	var hits []keywordHit
	for i := 0; i+1 < len(text); i++ {
		if !t.mayStartKeyword(text, i) {
			continue
		}
		var here ruleSet
		for _, k := range t.byFirst[text[i]] {
			if !here.contains(k.rules) && hasPrefixFold(text[i:], k.word) {
				here.addAll(k.rules)
			}
		}
		if !here.empty() {
			hits = append(hits, keywordHit{pos: i, rules: here})
		}
	}
	return hits
}

// hasPrefixFold reports whether s begins with lower, ignoring ASCII case in
// s; lower is lower case.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if lowerByte(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// lowerByte returns c in lower case if it is an ASCII letter.
func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
