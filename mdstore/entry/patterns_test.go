package entry

import (
	"regexp"
	"testing"
)

// The hand-written matchers agree with the expressions they stand for.
var patternOracles = []struct {
	name  string
	match func(string) bool
	re    *regexp.Regexp
}{
	{"learning id", isLearningID, regexp.MustCompile(`^l-[0-9a-f]{6}$`)},
	{"run id", isRunID, regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)},
	{"category", isCategory, regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)},
	{"slug", IsSlug, regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)},
	{"conflict marker", isConflictMarker, regexp.MustCompile(`^(<<<<<<<|>>>>>>>|\|\|\|\|\|\|\|)( |$)|^=======$`)},
}

func FuzzPatternsMatchTheirExpressions(f *testing.F) {
	for _, s := range []string{"", "l-a1b2c3", "l-A1B2C3", "run-1a2b3c4d", "a..b", "pitfall", "tool_usage", "Pitfall",
		"rust-s-testing", "-a", "a--b", "a b", "a  b", "x/y.z+1", "<<<<<<< HEAD", "<<<<<<<", "=======", "======= x",
		"||||||| base", ">>>>>>>x", "\n", "l-a1b2c3\n", string(make([]byte, 64)), "a123456789012345678901234567890123456789012345678901234567890123"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range patternOracles {
			if got, want := p.match(s), p.re.MatchString(s); got != want {
				t.Errorf("%s(%q) = %v, the expression says %v", p.name, s, got, want)
			}
		}
	})
}
