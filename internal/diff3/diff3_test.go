package diff3

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

func TestDiff3(t *testing.T) {
	tests := []struct {
		name, base, ours, theirs, want string
		conflicts                      int
	}{
		{"disjoint changes", "a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "A\nb\nc\nd\nE\n", 0},
		{"insertions at both ends", "m\n", "top\nm\n", "m\nbottom\n", "top\nm\nbottom\n", 0},
		{"the same change on both sides", "a\nb\nc\n", "a\nB\nc\n", "a\nB\nc\n", "a\nB\nc\n", 0},
		{"deletion and an edit elsewhere", "a\nb\nc\nd\n", "a\nc\nd\n", "a\nb\nc\nD\n", "a\nc\nD\n", 0},
		{"overlapping edits", "a\nb\nc\n", "a\nB1\nc\n", "a\nB2\nc\n", "a\n<<<<<<< ours\nB1\n=======\nB2\n>>>>>>> theirs\nc\n", 1},
		{"common lines leave the markers", "a\nb\nz\n", "a\nx\nsame\nB1\nz\n", "a\nx\nsame\nB2\nz\n", "a\nx\nsame\n<<<<<<< ours\nB1\n=======\nB2\n>>>>>>> theirs\nz\n", 1},
		{"adjacent edits conflict", "a\nb\n", "A\nb\n", "a\nB\n", "<<<<<<< ours\nA\nb\n=======\na\nB\n>>>>>>> theirs\n", 1},
		{"two conflicts", "1\n2\n3\n4\n5\n", "x\n2\n3\n4\ny\n", "X\n2\n3\n4\nY\n", "<<<<<<< ours\nx\n=======\nX\n>>>>>>> theirs\n2\n3\n4\n<<<<<<< ours\ny\n=======\nY\n>>>>>>> theirs\n", 2},
		{"no final line break", "a\nb", "A\nb", "a\nb\nc", "<<<<<<< ours\nA\nb\n=======\na\nb\nc\n>>>>>>> theirs\n", 1},
		{"no final line break, kept", "a\nb\nc", "A\nb\nc", "a\nb\nC", "A\nb\nC", 0},
		{"empty base", "", "x\n", "x\n", "x\n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n := Merge(tt.base, tt.ours, tt.theirs, Labels{})
			if got != tt.want || n != tt.conflicts {
				t.Fatalf("got %d conflicts:\n%s\nwant %d:\n%s", n, got, tt.conflicts, tt.want)
			}
		})
	}
}

func TestDiff3LineMatchesIsALongestCommonSubsequence(t *testing.T) {
	lcsLength := func(a, b []int) int {
		dp := make([][]int, len(a)+1)
		for i := range dp {
			dp[i] = make([]int, len(b)+1)
		}
		for i := len(a) - 1; i >= 0; i-- {
			for j := len(b) - 1; j >= 0; j-- {
				if a[i] == b[j] {
					dp[i][j] = dp[i+1][j+1] + 1
				} else {
					dp[i][j] = max(dp[i+1][j], dp[i][j+1])
				}
			}
		}
		return dp[0][0]
	}
	seed := uint32(1)
	random := func(n int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>16) % n
	}
	for round := 0; round < 2000; round++ {
		a, b := make([]int, random(12)), make([]int, random(12))
		alphabet := 1 + random(4)
		for i := range a {
			a[i] = random(alphabet)
		}
		for i := range b {
			b[i] = random(alphabet)
		}
		m := lineMatches(a, b)
		n, last := 0, -1
		for i, j := range m {
			if j < 0 {
				continue
			}
			if j <= last || a[i] != b[j] {
				t.Fatalf("%v %v: matches %v are not a common subsequence", a, b, m)
			}
			last = j
			n++
		}
		if want := lcsLength(a, b); n != want {
			t.Fatalf("%v %v: matches %v have %d pairs, the LCS has %d", a, b, m, n, want)
		}
	}
}

func FuzzDiff3(f *testing.F) {
	f.Add("a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", uint8(0), uint8(1), uint8(3), uint8(4))
	f.Add("a\na\na\nb\na\n", "x\n", "", uint8(1), uint8(2), uint8(2), uint8(0))
	f.Add("", "x", "y", uint8(0), uint8(0), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, base, ours, theirs string, i, j, k, l uint8) {
		labels := Labels{}
		Merge(base, ours, theirs, labels) // must not panic
		for _, c := range []struct{ base, ours, theirs, want string }{{base, ours, base, ours}, {base, base, theirs, theirs}, {base, ours, ours, ours}} {
			if got, n := Merge(c.base, c.ours, c.theirs, labels); got != c.want || n != 0 {
				t.Fatalf("identity: merge(%q, %q, %q) = %q, %d conflicts", c.base, c.ours, c.theirs, got, n)
			}
		}
		// Disjoint changes: ours replaces base lines [i, j) and theirs
		// [k, l), with at least one line between.
		if base != "" && !strings.HasSuffix(base, "\n") {
			base += "\n"
		}
		lines := SplitLines(base)
		n := len(lines)
		if n == 0 {
			return
		}
		pos := []int{int(i) % (n + 1), int(j) % (n + 1), int(k) % (n + 1), int(l) % (n + 1)}
		sort.Ints(pos)
		if pos[2] <= pos[1] {
			if pos[1] == n {
				return
			}
			pos[2], pos[3] = pos[1]+1, max(pos[3], pos[1]+1)
		}
		fresh := func(tag, s string) []string {
			var out []string
			for i, l := range SplitLines(s) {
				l = fmt.Sprintf("\x00%s%d %s", tag, i, strings.TrimSuffix(l, "\n")) + "\n"
				if strings.Contains(base, strings.TrimSuffix(l, "\n")) {
					return nil
				}
				out = append(out, l)
			}
			return out
		}
		newOurs, newTheirs := fresh("ours", ours), fresh("theirs", theirs)
		join := func(parts ...[]string) string {
			var b strings.Builder
			for _, p := range parts {
				b.WriteString(strings.Join(p, ""))
			}
			return b.String()
		}
		o := join(lines[:pos[0]], newOurs, lines[pos[1]:])
		th := join(lines[:pos[2]], newTheirs, lines[pos[3]:])
		got, conflicts := Merge(base, o, th, labels)
		if conflicts == 0 {
			for _, l := range append(newOurs, newTheirs...) {
				if !strings.Contains(got, l) {
					t.Fatalf("merge lost %q:\n%s", l, got)
				}
			}
		}
		distinct := map[string]bool{}
		for _, l := range lines {
			distinct[l] = true
		}
		if len(distinct) == n {
			want := join(lines[:pos[0]], newOurs, lines[pos[1]:pos[2]], newTheirs, lines[pos[3]:])
			if got != want || conflicts != 0 {
				t.Fatalf("disjoint changes of distinct lines: got %d conflicts\n%q\nwant\n%q", conflicts, got, want)
			}
		}
	})
}
