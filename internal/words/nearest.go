package words

import "unicode/utf8"

// Nearest is the word of known closest to word, at most max edits away
// (EditDistance), for a "did you mean": of two as close, the one that
// sorts first. ok is false when none is that close, or word is one of
// them.
func Nearest(word string, known []string, max int) (nearest string, ok bool) {
	return closest(word, known, max, false)
}

// NearestName is Nearest for names a person types from memory (commands,
// flags): a word of four runes or more is also near a longer name whose
// start it is near ("lern" is a typo of learning's "lear"). Ids, which
// share their starts, are for Nearest.
func NearestName(word string, known []string, max int) (string, bool) {
	return closest(word, known, max, true)
}

func closest(word string, known []string, max int, starts bool) (nearest string, ok bool) {
	best := max
	n := utf8.RuneCountInString(word)
	for _, k := range known {
		if k == word {
			return "", false
		}
		d, within := EditDistance(word, k, best)
		if start := runePrefix(k, n); starts && !within && n >= 4 && start != k {
			d, within = EditDistance(word, start, best)
		}
		if within && (!ok || d < best || (d == best && k < nearest)) {
			nearest, best, ok = k, d, true
		}
	}
	return nearest, ok
}

// runePrefix is s's first n runes.
func runePrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
