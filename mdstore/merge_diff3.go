package mdstore

import (
	"strings"
)

// --- diff3, line by line ---

// splitLines cuts s after every '\n'; the last line may have none.
func splitLines(s string) []string {
	var lines []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

// span is the lines [lo, hi) of one side.
type span struct{ lo, hi int }

// diff3Chunk is a run of lines that all three sides share (stable) or the
// lines between two such runs.
type diff3Chunk struct {
	stable             bool
	base, ours, theirs span
}

// The ways a chunk resolves.
const (
	takeOurs = iota // stable, changed by ours only, or changed alike on both sides
	takeTheirs
	takeConflict
)

// diff3 lines up ours and theirs against base, as GNU diff3 and git do:
// each side is matched with base by a longest common subsequence, and the
// base lines matched on both sides, in order, split the files into chunks.
type diff3 struct {
	base, ours, theirs []string
	b, o, t            []int // the lines as numbers, equal lines equal numbers
	chunks             []diff3Chunk
}

func newDiff3(base, ours, theirs []string) *diff3 {
	d := &diff3{base: base, ours: ours, theirs: theirs}
	ids := map[string]int{}
	number := func(lines []string) []int {
		out := make([]int, len(lines))
		for i, l := range lines {
			id, ok := ids[l]
			if !ok {
				id = len(ids)
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	d.b, d.o, d.t = number(base), number(ours), number(theirs)
	mo, mt := lineMatches(d.b, d.o), lineMatches(d.b, d.t)
	i, j, k := 0, 0, 0
	for {
		start := i
		for i < len(d.b) && mo[i] == j && mt[i] == k {
			i, j, k = i+1, j+1, k+1
		}
		if n := i - start; n > 0 {
			d.chunks = append(d.chunks, diff3Chunk{stable: true, base: span{start, i}, ours: span{j - n, j}, theirs: span{k - n, k}})
		}
		next := i
		for next < len(d.b) && (mo[next] < 0 || mt[next] < 0) {
			next++
		}
		if next == len(d.b) {
			if i < len(d.b) || j < len(d.o) || k < len(d.t) {
				d.chunks = append(d.chunks, diff3Chunk{base: span{i, len(d.b)}, ours: span{j, len(d.o)}, theirs: span{k, len(d.t)}})
			}
			return d
		}
		d.chunks = append(d.chunks, diff3Chunk{base: span{i, next}, ours: span{j, mo[next]}, theirs: span{k, mt[next]}})
		i, j, k = next, mo[next], mt[next]
	}
}

func equalRuns(a []int, as span, b []int, bs span) bool {
	if as.hi-as.lo != bs.hi-bs.lo {
		return false
	}
	for i := 0; i < as.hi-as.lo; i++ {
		if a[as.lo+i] != b[bs.lo+i] {
			return false
		}
	}
	return true
}

// resolve says which side a chunk takes.
func (d *diff3) resolve(c diff3Chunk) int {
	switch {
	case c.stable, equalRuns(d.t, c.theirs, d.b, c.base), equalRuns(d.o, c.ours, d.t, c.theirs):
		return takeOurs
	case equalRuns(d.o, c.ours, d.b, c.base):
		return takeTheirs
	}
	return takeConflict
}

// writeChunk writes the merged lines of a chunk that is not a conflict, or
// the conflict with the lines both sides share at its start and end left
// outside the markers (git's "zealous" merge). It returns the conflicts
// written.
func (d *diff3) writeChunk(emit func(string), c diff3Chunk, labels MergeLabels) int {
	switch d.resolve(c) {
	case takeOurs:
		for _, l := range d.ours[c.ours.lo:c.ours.hi] {
			emit(l)
		}
		return 0
	case takeTheirs:
		for _, l := range d.theirs[c.theirs.lo:c.theirs.hi] {
			emit(l)
		}
		return 0
	}
	o, t := c.ours, c.theirs
	for o.lo < o.hi && t.lo < t.hi && d.o[o.lo] == d.t[t.lo] {
		emit(d.ours[o.lo])
		o.lo, t.lo = o.lo+1, t.lo+1
	}
	var suffix []string
	for o.lo < o.hi && t.lo < t.hi && d.o[o.hi-1] == d.t[t.hi-1] {
		suffix = append(suffix, d.ours[o.hi-1])
		o.hi, t.hi = o.hi-1, t.hi-1
	}
	var b strings.Builder
	labels.writeConflict(&b, strings.Join(d.ours[o.lo:o.hi], ""), strings.Join(d.theirs[t.lo:t.hi], ""))
	emit(b.String())
	for i := len(suffix) - 1; i >= 0; i-- {
		emit(suffix[i])
	}
	return 1
}

// mergeLines is a three-way merge of text by lines, with git's default
// conflict style.
func mergeLines(base, ours, theirs string, labels MergeLabels) (string, int) {
	d := newDiff3(splitLines(base), splitLines(ours), splitLines(theirs))
	var w lineWriter
	conflicts := 0
	for _, c := range d.chunks {
		conflicts += d.writeChunk(w.add, c, labels)
	}
	return w.String(), conflicts
}

// lineMatches returns, for each element of a, the index of the element of
// b it is paired with in a longest common subsequence, or -1. It is
// Myers' O((N+M)D) algorithm in linear space: the middle snake splits the
// problem in two until the halves share a prefix or suffix or one is empty.
func lineMatches(a, b []int) []int {
	m := make([]int, len(a))
	for i := range m {
		m[i] = -1
	}
	var walk func(a0, a1, b0, b1 int)
	walk = func(a0, a1, b0, b1 int) {
		for a0 < a1 && b0 < b1 && a[a0] == b[b0] {
			m[a0] = b0
			a0, b0 = a0+1, b0+1
		}
		for a0 < a1 && b0 < b1 && a[a1-1] == b[b1-1] {
			a1, b1 = a1-1, b1-1
			m[a1] = b1
		}
		if a0 == a1 || b0 == b1 {
			return
		}
		x, y, ok := middleSnake(a[a0:a1], b[b0:b1])
		if !ok {
			return // nothing in common (or too costly to find): all changed
		}
		walk(a0, a0+x, b0, b0+y)
		walk(a0+x, a1, b0+y, b1)
	}
	walk(0, len(a), 0, len(b))
	return m
}

// maxDiffCost bounds the edit distance middleSnake explores before it
// gives up and calls a region changed; it keeps pathological inputs (tens
// of thousands of lines, all different) from taking minutes.
const maxDiffCost = 4096

// middleSnake finds where a shortest edit script from a to b crosses its
// middle, walking from both ends at once (the bisection of Myers' paper, as
// diff-match-patch writes it). a and b are non-empty and differ in their
// first and last elements. The split (x, y) is strictly inside: neither
// (0, 0) nor (len(a), len(b)).
func middleSnake(a, b []int) (x, y int, ok bool) {
	n, m := len(a), len(b)
	maxD := (n + m + 1) / 2
	off := maxD
	size := 2*maxD + 2
	v1, v2 := make([]int, size), make([]int, size)
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - m
	front := delta%2 != 0 // the forward path meets the reverse one
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	split := func(x, y int) (int, int, bool) {
		if (x == 0 && y == 0) || (x == n && y == m) || x < 0 || y < 0 || x > n || y > m {
			return 0, 0, false
		}
		return x, y, true
	}
	for d := 0; d < maxD && d <= maxDiffCost; d++ {
		for k1 := -d + k1start; k1 <= d-k1end; k1 += 2 {
			i := off + k1
			var x1 int
			if k1 == -d || (k1 != d && v1[i-1] < v1[i+1]) {
				x1 = v1[i+1]
			} else {
				x1 = v1[i-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < m && a[x1] == b[y1] {
				x1, y1 = x1+1, y1+1
			}
			v1[i] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > m:
				k1start += 2
			case front:
				if j := off + delta - k1; j >= 0 && j < size && v2[j] != -1 && x1 >= n-v2[j] {
					return split(x1, y1)
				}
			}
		}
		for k2 := -d + k2start; k2 <= d-k2end; k2 += 2 {
			i := off + k2
			var x2 int
			if k2 == -d || (k2 != d && v2[i-1] < v2[i+1]) {
				x2 = v2[i+1]
			} else {
				x2 = v2[i-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < m && a[n-x2-1] == b[m-y2-1] {
				x2, y2 = x2+1, y2+1
			}
			v2[i] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > m:
				k2start += 2
			case !front:
				if j := off + delta - k2; j >= 0 && j < size && v1[j] != -1 {
					x1 := v1[j]
					if y1 := off + x1 - j; x1 >= n-x2 {
						return split(x1, y1)
					}
				}
			}
		}
	}
	return 0, 0, false
}
