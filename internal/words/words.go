// Package words is lore's one definition of a word — a run of letters and
// digits —, of a search term (EachTerm: words, and identifiers whole and
// by their parts), and of how far apart two words are. Search splits
// queries and entries into terms with it, prime takes a task's keywords
// with it, the near-duplicate check compares learnings by their keywords,
// and validation suggests the field name a typo meant.
package words

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsWordRune says whether r belongs to a word: letters and digits.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// asciiWord says of each ASCII character whether it belongs to a word, as
// unicode's tables say: prime takes the keywords of every learning's
// body, and Each reads them a byte at a time.
var asciiWord = func() (word [utf8.RuneSelf]bool) {
	for c := range word {
		word[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return word
}()

// Each calls fn with the byte range of each word of s — each run of
// letters and digits — in order, until fn returns false.
func Each(s string, fn func(start, end int) bool) {
	start := -1
	for i, size := 0, 0; i < len(s); i += size {
		var word bool
		if c := s[i]; c < utf8.RuneSelf {
			word, size = asciiWord[c], 1
		} else { // decoded as ranging over s does
			var r rune
			r, size = utf8.DecodeRuneInString(s[i:])
			word = IsWordRune(r)
		}
		if word {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			if !fn(start, i) {
				return
			}
			start = -1
		}
	}
	if start >= 0 {
		fn(start, len(s))
	}
}

// Keywords are the words of text that say what it is about: lowercase,
// longer than two characters, in order, repeats kept.
func Keywords(text string) []string {
	var out []string
	EachKeyword(text, func(w string) { out = append(out, w) })
	return out
}

// EachKeyword calls fn with each of text's Keywords, in order, without
// collecting them: the near-duplicate check takes the keywords of every
// learning prime may show.
func EachKeyword(text string, fn func(w string)) {
	lower := strings.ToLower(text)
	Each(lower, func(start, end int) bool {
		// More than two runes: more than eight bytes are (a rune is at
		// most four), two bytes or fewer are not.
		if w := lower[start:end]; len(w) > 8 || len(w) > 2 && utf8.RuneCountInString(w) > 2 {
			fn(w)
		}
		return true
	})
}

// EditDistance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and swaps of two neighbours each
// count one — what bleve's Levenshtein automaton counts), compared rune by
// rune. It stops early and reports false once the distance exceeds max.
func EditDistance(a, b string, max int) (int, bool) {
	if a == b {
		return 0, true
	}
	// Words are short: their runes and the rows live on the stack, so that
	// comparing a query word with every word of many entries allocates
	// nothing.
	var bufA, bufB [shortWord]rune
	ra, rb := appendRunes(bufA[:0], a), appendRunes(bufB[:0], b)
	if d := len(ra) - len(rb); d > max || -d > max {
		return 0, false
	}
	// Three rows of the dynamic programme: two back (for swaps), one back,
	// current.
	var rows [3][shortWord + 1]int
	prev2, prev, cur := rows[0][:], rows[1][:], rows[2][:]
	if len(rb) >= shortWord {
		prev2, prev, cur = make([]int, len(rb)+1), make([]int, len(rb)+1), make([]int, len(rb)+1)
	}
	for j := 0; j <= len(rb); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		best := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			best = min(best, v)
		}
		if best > max {
			return 0, false
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if d := prev[len(rb)]; d <= max {
		return d, true
	}
	return 0, false
}

// shortWord is the length in runes up to which EditDistance works on the
// stack.
const shortWord = 32

// appendRunes appends the runes of s to buf.
func appendRunes(buf []rune, s string) []rune {
	for _, r := range s {
		buf = append(buf, r)
	}
	return buf
}

// connectors join the words of an identifier: user_sessions, go-git,
// index.lock, sync/client.go.
func isConnector(c byte) bool { return c == '_' || c == '-' || c == '.' || c == '/' }

// EachTerm calls fn with the byte range of each term of s, until fn
// returns false: each word (Each); before the words of an identifier that
// joins them by single '_', '-', '.' or '/', the identifier whole
// (user_sessions, index.lock, internal/gitx/objects.go); after a word, its
// parts where the case turns or digits begin or end (ParseDuration: Parse,
// Duration; HTTPServer: HTTP, Server; argon2id: argon, 2, id). Search
// indexes entries and reads queries with it, so that an identifier is
// found whole and by its parts.
func EachTerm(s string, fn func(start, end int) bool) {
	var group [][2]int // the words of the identifier being read
	flush := func() bool {
		if len(group) > 1 && !fn(group[0][0], group[len(group)-1][1]) {
			return false
		}
		if len(group) > 2 && !eachSubIdentifier(s, group, fn) {
			return false
		}
		for _, w := range group {
			if !fn(w[0], w[1]) || !eachPart(s, w[0], w[1], fn) {
				return false
			}
		}
		group = group[:0]
		return true
	}
	ok := true
	Each(s, func(start, end int) bool {
		if n := len(group); n > 0 && !(start == group[n-1][1]+1 && isConnector(s[start-1])) {
			if ok = flush(); !ok {
				return false
			}
		}
		group = append(group, [2]int{start, end})
		return true
	})
	if ok {
		flush()
	}
}

// eachSubIdentifier calls fn with the identifiers inside the identifier
// whose words are group: the segments of a path (daily_orders.py in
// dags/daily_orders.py), and the runs joined by '_' or '-' between dots
// and slashes (customer_id in orders.customer_id, daily_orders), each
// that has more than one word, once. It reports whether fn wants more.
func eachSubIdentifier(s string, group [][2]int, fn func(start, end int) bool) bool {
	var seen [][2]int
	for _, cut := range []func(c byte) bool{
		func(c byte) bool { return c == '/' },
		func(c byte) bool { return c == '/' || c == '.' },
	} {
		first := 0
		for i := 1; i <= len(group); i++ {
			if i < len(group) && !cut(s[group[i][0]-1]) {
				continue
			}
			if i-first > 1 && i-first < len(group) {
				r := [2]int{group[first][0], group[i-1][1]}
				if !slices.Contains(seen, r) {
					seen = append(seen, r)
					if !fn(r[0], r[1]) {
						return false
					}
				}
			}
			first = i
		}
	}
	return true
}

// eachPart calls fn with the parts of the word s[start:end] when it has
// more than one; it reports whether fn wants more.
func eachPart(s string, start, end int, fn func(start, end int) bool) bool {
	type class int
	const (
		other class = iota
		lower
		upper
		digit
	)
	classOf := func(r rune) class {
		switch {
		case unicode.IsDigit(r):
			return digit
		case unicode.IsUpper(r):
			return upper
		case unicode.IsLower(r):
			return lower
		}
		return other
	}
	var cuts []int
	before, prev, prevAt := other, other, -1
	for i, r := range s[start:end] {
		c := classOf(r)
		switch {
		case prevAt < 0:
		case prev == lower && c == upper, prev == digit && c != digit, prev != digit && c == digit:
			cuts = append(cuts, start+i)
		case before == upper && prev == upper && c == lower:
			// HTTPServer: the last capital of a run starts the next part
			cuts = append(cuts, start+prevAt)
		}
		before, prev, prevAt = prev, c, i
	}
	if len(cuts) == 0 {
		return true
	}
	from := start
	for _, cut := range append(cuts, end) {
		if cut > from && !fn(from, cut) {
			return false
		}
		from = cut
	}
	return true
}
