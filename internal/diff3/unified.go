package diff3

import (
	"fmt"
	"strings"
)

// Unified is the unified diff (git diff's and diff -u's format) that turns
// a into b, its hunks with context lines of context, under the names from
// and to ("/dev/null" for a side that is not there); "" when a and b are
// equal. It lines them up by the longest common subsequence the merge
// uses.
func Unified(a, b, from, to string, context int) string {
	if a == b {
		return ""
	}
	al, bl := SplitLines(a), SplitLines(b)
	ids := map[string]int{}
	m := lineMatches(numberLines(ids, al), numberLines(ids, bl))
	// The edit script: ' ' keeps a line of both, '-' drops one of a, '+'
	// adds one of b.
	type op struct {
		kind byte
		i, j int // the line of a (kept, dropped) or of b (added)
	}
	var ops []op
	j := 0
	for i := range al {
		if m[i] < 0 {
			ops = append(ops, op{'-', i, j})
			continue
		}
		for ; j < m[i]; j++ {
			ops = append(ops, op{'+', i, j})
		}
		ops = append(ops, op{' ', i, j})
		j++
	}
	for ; j < len(bl); j++ {
		ops = append(ops, op{'+', len(al), j})
	}
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", from, to)
	line := func(o op) {
		var s string
		if o.kind == '+' {
			s = bl[o.j]
		} else {
			s = al[o.i]
		}
		out.WriteByte(o.kind)
		out.WriteString(s)
		if !strings.HasSuffix(s, "\n") {
			out.WriteString("\n\\ No newline at end of file\n")
		}
	}
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: context before, then changes and the context between
		// them while two runs of changes are at most 2×context apart.
		start := k
		for start > 0 && k-start < context && ops[start-1].kind == ' ' {
			start--
		}
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(run, end+context)
				break
			}
			end = run
		}
		hunk := ops[start:end]
		aLo, bLo, aN, bN := hunk[0].i, hunk[0].j, 0, 0
		for _, o := range hunk {
			if o.kind != '+' {
				aN++
			}
			if o.kind != '-' {
				bN++
			}
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aLo, aN), hunkRange(bLo, bN))
		for _, o := range hunk {
			line(o)
		}
		k = end
	}
	return out.String()
}

// hunkRange is a hunk's side in its header: its first line (from 1) and
// count, the count left out when it is 1, the line before it when 0.
func hunkRange(lo, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", lo)
	case 1:
		return fmt.Sprint(lo + 1)
	}
	return fmt.Sprintf("%d,%d", lo+1, n)
}
