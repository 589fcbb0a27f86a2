package yamlfm

import (
	"regexp"
	"testing"
)

func FuzzPlainFlowItemMatchesItsExpression(f *testing.F) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9_./+-]*( [a-z0-9_./+-]+)*$`)
	for _, s := range []string{"", "a b", "a  b", "x/y.z+1", "-a", "a ", "A", "rust-s-testing", "\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isPlainFlowItem(s), re.MatchString(s); got != want {
			t.Errorf("isPlainFlowItem(%q) = %v, the expression says %v", s, got, want)
		}
	})
}
