// Package diff3 merges three versions of a text line by line, as GNU diff3
// and git do: each side is lined up with the base by a longest common
// subsequence (Myers' algorithm in linear space), and what only one side
// changed is taken from it; what both changed differently is a conflict,
// marked in git's default style. It is what lore's merge driver falls
// back to for anything it cannot merge entry by entry. Unified is the
// two-way diff on the same subsequence (lore history --patch).
package diff3

import (
	"strings"
)

// SplitLines cuts s after every '\n'; the last line may have none.
func SplitLines(s string) []string {
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

// Span is the lines [Lo, Hi) of one side.
type Span struct{ Lo, Hi int }

// Chunk is a run of lines that all three sides share (Stable) or the
// lines between two such runs.
type Chunk struct {
	Stable             bool
	Base, Ours, Theirs Span
}

// Resolution is the way a chunk resolves.
type Resolution int

// The ways a chunk resolves.
const (
	TakeOurs     Resolution = iota // stable, changed by ours only, or changed alike on both sides
	TakeTheirs                     // changed by theirs only
	TakeConflict                   // changed differently on both sides
)

// Diff lines up ours and theirs against base, as GNU diff3 and git do:
// each side is matched with base by a longest common subsequence, and the
// base lines matched on both sides, in order, split the files into chunks.
type Diff struct {
	base, ours, theirs []string
	b, o, t            []int // the lines as numbers, equal lines equal numbers
	Chunks             []Chunk
}

// numberLines gives each distinct line one number, the same for the same
// line in every version numbered with ids: lines are compared as ints.
func numberLines(ids map[string]int, lines []string) []int {
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

// New lines up the lines of three versions (SplitLines).
func New(base, ours, theirs []string) *Diff {
	d := &Diff{base: base, ours: ours, theirs: theirs}
	ids := map[string]int{}
	d.b, d.o, d.t = numberLines(ids, base), numberLines(ids, ours), numberLines(ids, theirs)
	mo, mt := lineMatches(d.b, d.o), lineMatches(d.b, d.t)
	i, j, k := 0, 0, 0
	for {
		start := i
		for i < len(d.b) && mo[i] == j && mt[i] == k {
			i, j, k = i+1, j+1, k+1
		}
		if n := i - start; n > 0 {
			d.Chunks = append(d.Chunks, Chunk{Stable: true, Base: Span{start, i}, Ours: Span{j - n, j}, Theirs: Span{k - n, k}})
		}
		next := i
		for next < len(d.b) && (mo[next] < 0 || mt[next] < 0) {
			next++
		}
		if next == len(d.b) {
			if i < len(d.b) || j < len(d.o) || k < len(d.t) {
				d.Chunks = append(d.Chunks, Chunk{Base: Span{i, len(d.b)}, Ours: Span{j, len(d.o)}, Theirs: Span{k, len(d.t)}})
			}
			return d
		}
		d.Chunks = append(d.Chunks, Chunk{Base: Span{i, next}, Ours: Span{j, mo[next]}, Theirs: Span{k, mt[next]}})
		i, j, k = next, mo[next], mt[next]
	}
}

func equalRuns(a []int, as Span, b []int, bs Span) bool {
	if as.Hi-as.Lo != bs.Hi-bs.Lo {
		return false
	}
	for i := 0; i < as.Hi-as.Lo; i++ {
		if a[as.Lo+i] != b[bs.Lo+i] {
			return false
		}
	}
	return true
}

// Resolve says which side a chunk takes.
func (d *Diff) Resolve(c Chunk) Resolution {
	switch {
	case c.Stable, equalRuns(d.t, c.Theirs, d.b, c.Base), equalRuns(d.o, c.Ours, d.t, c.Theirs):
		return TakeOurs
	case equalRuns(d.o, c.Ours, d.b, c.Base):
		return TakeTheirs
	}
	return TakeConflict
}

// WriteChunk writes the merged lines of a chunk that is not a conflict, or
// the conflict with the lines both sides share at its start and end left
// outside the markers (git's "zealous" merge). It returns the conflicts
// written.
func (d *Diff) WriteChunk(emit func(string), c Chunk, labels Labels) int {
	switch d.Resolve(c) {
	case TakeOurs:
		for _, l := range d.ours[c.Ours.Lo:c.Ours.Hi] {
			emit(l)
		}
		return 0
	case TakeTheirs:
		for _, l := range d.theirs[c.Theirs.Lo:c.Theirs.Hi] {
			emit(l)
		}
		return 0
	}
	o, t := c.Ours, c.Theirs
	for o.Lo < o.Hi && t.Lo < t.Hi && d.o[o.Lo] == d.t[t.Lo] {
		emit(d.ours[o.Lo])
		o.Lo, t.Lo = o.Lo+1, t.Lo+1
	}
	var suffix []string
	for o.Lo < o.Hi && t.Lo < t.Hi && d.o[o.Hi-1] == d.t[t.Hi-1] {
		suffix = append(suffix, d.ours[o.Hi-1])
		o.Hi, t.Hi = o.Hi-1, t.Hi-1
	}
	var b strings.Builder
	labels.WriteConflict(&b, strings.Join(d.ours[o.Lo:o.Hi], ""), strings.Join(d.theirs[t.Lo:t.Hi], ""))
	emit(b.String())
	for i := len(suffix) - 1; i >= 0; i-- {
		emit(suffix[i])
	}
	return 1
}

// Merge merges ours and theirs, both descended from base, by lines, and
// returns the result and how many conflicts it holds.
func Merge(base, ours, theirs string, labels Labels) (string, int) {
	d := New(SplitLines(base), SplitLines(ours), SplitLines(theirs))
	var w LineWriter
	conflicts := 0
	for _, c := range d.Chunks {
		conflicts += d.WriteChunk(w.Add, c, labels)
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

// Labels name the sides in conflict markers. Base is accepted for git's
// %O but not shown: markers are git's default "merge" style, which shows
// ours and theirs only. An empty label is "ours", "base" or "theirs".
type Labels struct{ Ours, Base, Theirs string }

func (l Labels) withDefaults() Labels {
	clean := func(s, def string) string {
		s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
		if strings.TrimSpace(s) == "" {
			return def
		}
		return s
	}
	return Labels{Ours: clean(l.Ours, "ours"), Base: clean(l.Base, "base"), Theirs: clean(l.Theirs, "theirs")}
}

// WriteConflict writes one conflict: ours' text and theirs' text between
// markers, each side ending with a line break.
func (l Labels) WriteConflict(b *strings.Builder, ours, theirs string) {
	l = l.withDefaults()
	b.WriteString("<<<<<<< " + l.Ours + "\n")
	WriteLines(b, ours)
	b.WriteString("=======\n")
	WriteLines(b, theirs)
	b.WriteString(">>>>>>> " + l.Theirs + "\n")
}

// WriteLines writes s, ending it with a line break if it has none.
func WriteLines(b *strings.Builder, s string) {
	b.WriteString(s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		b.WriteByte('\n')
	}
}

// LineWriter joins lines and blocks of text, starting each on a new line:
// a piece that follows one without a final line break gets one first. Only
// the last line of a side can lack its break, so joining a side's own
// pieces in order gives back its bytes.
type LineWriter struct{ strings.Builder }

// Add writes s on a line of its own.
func (w *LineWriter) Add(s string) {
	if s == "" {
		return
	}
	if n := w.Len(); n > 0 && w.String()[n-1] != '\n' {
		w.WriteByte('\n')
	}
	w.WriteString(s)
}
