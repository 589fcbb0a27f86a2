package sigils

import (
	"sort"
	"strings"
)

// span is a stretch of code in the text: [start, end).
type span struct {
	start, end int
	fenced     bool
}

// codeSpans finds the code in a Markdown text, in order: fenced code
// blocks (a line of three or more backticks or tildes, closed by a line
// of at least as many of the same character), and inline code spans (a
// run of backticks closed by the next run of the same length, within a
// paragraph). It follows CommonMark with two leniencies agents need: a
// fence may be indented any amount (fences in list items) or quoted
// ("> ```"), and a fence that is never closed is not code, since an
// agent that forgot to close one still means the sigils after it.
func codeSpans(text string) []span {
	type line struct {
		start, end int // end excludes the newline
		fenceChar  byte
		fenceLen   int
		closer     bool // only fence characters: it can close a fence
		blank      bool
	}
	var ls []line
	for start := 0; start <= len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		l := line{start: start, end: end}
		l.blank = strings.TrimSpace(strings.TrimLeft(text[start:end], " \t>")) == ""
		if run, bare := Fence(text[start:end]); run != "" {
			l.fenceChar, l.fenceLen, l.closer = run[0], len(run), bare
		}
		ls = append(ls, l)
		if end == len(text) {
			break
		}
		start = end + 1
	}
	// longestCloser[c][i]: the longest closing line of c at index i or later.
	var longest [2][]int
	for k, c := range []byte{'`', '~'} {
		longest[k] = make([]int, len(ls)+1)
		for i := len(ls) - 1; i >= 0; i-- {
			longest[k][i] = longest[k][i+1]
			if ls[i].closer && ls[i].fenceChar == c {
				longest[k][i] = max(longest[k][i], ls[i].fenceLen)
			}
		}
	}
	var spans []span
	para := -1 // the first line of the paragraph being read
	flush := func(upTo int) {
		if para >= 0 {
			spans = append(spans, inlineSpans(text, ls[para].start, ls[upTo-1].end)...)
			para = -1
		}
	}
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		if l.fenceLen > 0 {
			k := 0
			if l.fenceChar == '~' {
				k = 1
			}
			if longest[k][i+1] >= l.fenceLen {
				flush(i)
				j := i + 1
				for !(ls[j].closer && ls[j].fenceChar == l.fenceChar && ls[j].fenceLen >= l.fenceLen) {
					j++
				}
				spans = append(spans, span{start: l.start, end: ls[j].end, fenced: true})
				i = j
				continue
			}
		}
		if l.blank {
			flush(i)
			continue
		}
		if para < 0 {
			para = i
		}
	}
	flush(len(ls))
	sort.Slice(spans, func(i, j int) bool { return spans[i].start < spans[j].start })
	return spans
}

// Fence reads a line as a code fence: the run of three or more backticks
// or tildes it begins with — after any indentation, in a quote ("> ```")
// too — and whether the line is that run alone (bare), which is what a
// closing fence is; "" when the line is no fence (a backtick fence's info
// string holds no backtick).
func Fence(line string) (run string, bare bool) {
	body := strings.TrimRight(strings.TrimLeft(line, " \t>"), " \t\r")
	if len(body) < 3 || (body[0] != '`' && body[0] != '~') {
		return "", false
	}
	n := 0
	for n < len(body) && body[n] == body[0] {
		n++
	}
	if n < 3 || body[0] == '`' && strings.IndexByte(body[n:], '`') >= 0 {
		return "", false
	}
	return body[:n], n == len(body)
}

// FenceFor is a backtick fence that nothing in text closes: one backtick
// longer than the longest run of them in text, and at least three. Text
// quoted from an agent's output (a stack trace, say) may hold fences of
// its own; inside a fence of three, its first would end the quote, and
// what follows — sigils among it — would be read as the prompt's own.
func FenceFor(text string) string {
	longest, n := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// Closes reports whether line closes the fence that run opened: a bare
// fence of the same character, at least as long.
func Closes(line, run string) bool {
	got, bare := Fence(line)
	return bare && got != "" && got[0] == run[0] && len(got) >= len(run)
}

// inlineSpans finds the code spans of the paragraph text[from:to]: a run
// of n backticks opens one, the next run of exactly n closes it; a run
// that no run closes is literal text. Linear: for each length, the runs
// of that length are visited in order once.
func inlineSpans(text string, from, to int) []span {
	type run struct{ start, n int }
	var runs []run
	for i := from; i < to; {
		if text[i] != '`' {
			i++
			continue
		}
		j := i
		for j < to && text[j] == '`' {
			j++
		}
		runs = append(runs, run{i, j - i})
		i = j
	}
	if len(runs) < 2 {
		return nil
	}
	byLen := map[int][]int{} // length → indexes of the runs of that length
	for i, r := range runs {
		byLen[r.n] = append(byLen[r.n], i)
	}
	next := map[int]int{} // length → position in byLen of the next candidate closer
	var spans []span
	for i := 0; i < len(runs); {
		r := runs[i]
		same := byLen[r.n]
		k := next[r.n]
		for k < len(same) && same[k] <= i {
			k++
		}
		next[r.n] = k
		if k == len(same) {
			i++ // never closed: literal backticks
			continue
		}
		closer := runs[same[k]]
		spans = append(spans, span{start: r.start, end: closer.start + closer.n})
		i = same[k] + 1
	}
	return spans
}
