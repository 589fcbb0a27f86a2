// Allowlists derived from gitleaks (MIT licence); see doc.go.

package secrets

import (
	"math"
	"slices"
	"strings"
)

// globalAllowlist is gitleaks' global allowlist, which applies to every
// rule: template and environment references, runs of one letter, system
// paths, and two stopwords.
//
// Changed from gitleaks: its first expression, `(?i)^true|false|null$`,
// allows any secret that starts with "true", ends with "null" or holds
// "false" anywhere; here it allows only the three words, as was meant.
// The expressions, each anchored with ^ in gitleaks, share one ^ here, so
// that Go's regexp tries them at the secret's start only.
var globalAllowlist = allowlist{
	secret: &lazyRegexp{expr: `^(?:` +
		`(?i:true|false|null)$|` +
		`(?i:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+|\*+|\.+)$|` +
		`\$(?:\d+|{\d+})$|` +
		`\$(?:[A-Z_]+|[a-z_]+)$|` +
		`\${(?:[A-Z_]+|[a-z_]+)}$|` +
		`\{\{[ \t]*[\w ().|]+[ \t]*}}$|` +
		`\$\{\{[ \t]*(?:(?:env|github|secrets|vars)(?:\.[A-Za-z]\w+)+[\w "'&./=|]*)[ \t]*}}$|` +
		`%(?:[A-Z_]+|[a-z_]+)%$|` +
		`%[+\-# 0]?[bcdeEfFgGoOpqstTUvxX]$|` +
		`\{\d{0,2}}$|` +
		`@(?:[A-Z_]+|[a-z_]+)@$|` +
		`/Users/(?i:[a-z0-9]+/[\w .-/]+)$|` +
		`/(?:bin|etc|home|opt|tmp|usr|var)/[\w ./-]+$)`},
	stopwords: []string{"014df517-39d1-4453-b7b3-9930c563627c", "abcdefghijklmnopqrstuvwxyz"},
}

// lines returns the whole lines of text that c's match touches.
func (c candidate) lines(text string) string {
	start := strings.LastIndexByte(text[:c.matchStart], '\n') + 1
	end := c.matchEnd
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		end += i
	} else {
		end = len(text)
	}
	return text[start:end]
}

// allowed reports whether the allowlist accepts c, a candidate in text;
// lowerSecret is c's secret in lower case. Cheap tests come first.
func (a *allowlist) allowed(text string, c candidate, lowerSecret string) bool {
	switch {
	case a.containsStopword(lowerSecret):
		return true
	case a.secret != nil && a.secret.compiled().MatchString(text[c.start:c.end]):
		return true
	case a.match != nil && a.match.compiled().MatchString(text[c.matchStart:c.matchEnd]):
		return true
	case a.line != nil && a.line.compiled().MatchString(c.lines(text)):
		return true
	}
	return false
}

// containsStopword reports whether s, in lower case, holds one of the
// stopwords. At each byte of s it looks up, by binary search, the
// stopwords that begin with the next three bytes (every stopword has
// three), so the list needs no index built at run time.
func (a *allowlist) containsStopword(s string) bool {
	words := a.stopwords
	for i := 0; i+3 <= len(s); i++ {
		key := s[i : i+3]
		j, _ := slices.BinarySearchFunc(words, key, func(w, key string) int {
			return strings.Compare(w[:3], key)
		})
		for ; j < len(words) && words[j][:3] == key; j++ {
			if strings.HasPrefix(s[i:], words[j]) {
				return true
			}
		}
	}
	return false
}

// shannonEntropy returns the Shannon entropy of s in bits per byte. gitleaks
// counts runes but divides by bytes; for the ASCII that secrets are made of
// the two agree.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
