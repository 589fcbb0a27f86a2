package diff3

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Unified's hunks are C git's: git diff --no-index (-U3, the Myers diff)
// is the oracle, on hand-picked pairs and on random edits of a text.
var funcContext = regexp.MustCompile(`(?m)^(@@ [^@]* @@).*$`)

func TestUnifiedIsGitDiffs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	pairs := [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"", "x\ny\n"},
		{"x\ny\n", ""},
		{"a\nb", "a\nb\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n", "0\n1\n2\n3\n4\n5\n6\n7\nEIGHT\n9\n10\n11\n12\n13\n14\n15\n16\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\nx\n4\n5\n6\n7\ny\n8\n"},
	}
	r := rand.New(rand.NewPCG(1, 38))
	for range 40 {
		var a []string
		for i := range 30 {
			a = append(a, string(rune('a'+i%26))+"\n")
		}
		b := append([]string(nil), a...)
		for range 1 + r.IntN(5) {
			k := r.IntN(len(b))
			switch r.IntN(3) {
			case 0:
				b = append(b[:k], b[k+1:]...)
			case 1:
				b[k] = "changed " + b[k]
			default:
				b = append(b[:k], append([]string{"new\n"}, b[k:]...)...)
			}
		}
		pairs = append(pairs, [2]string{strings.Join(a, ""), strings.Join(b, "")})
	}
	dir := t.TempDir()
	for _, p := range pairs {
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		os.WriteFile(a, []byte(p[0]), 0o644)
		os.WriteFile(b, []byte(p[1]), 0o644)
		cmd := exec.Command("git", "diff", "--no-index", "--no-color", "-U3", "--diff-algorithm=myers", "a", "b")
		cmd.Dir = dir
		out, _ := cmd.Output()
		want := string(out)
		if i := strings.Index(want, "@@"); i >= 0 {
			want = want[i:]
		}
		got := Unified(p[0], p[1], "a", "b", 3)
		if i := strings.Index(got, "@@"); i >= 0 {
			got = got[i:]
		}
		want = funcContext.ReplaceAllString(want, "$1") // git names the enclosing "function"
		if got != want {
			t.Errorf("%q → %q:\ngot\n%s\nwant (git)\n%s", p[0], p[1], got, want)
		}
	}
	if Unified("same\n", "same\n", "a", "b", 3) != "" {
		t.Error("equal texts have no diff")
	}
}
