package markdown

import "strings"

// Fence reads a line as a code fence as lore's parser does: the run of
// three or more backticks or tildes it begins with — after any
// indentation, in a quote ("> ```") too — and whether the line is that
// run alone (bare), which is what a closing fence is; "" when the line is
// no fence (a backtick fence's info string holds no backtick). For
// readers of a line format that holds fences (a failure report's stack
// trace), and for writers that must close one.
func Fence(line string) (run string, bare bool) {
	body := strings.TrimLeft(line, " \t>")
	_, n, bare := fenceRun(body)
	return body[:n], bare
}

// Closes reports whether line closes the fence that run opened: a bare
// fence of the same character, at least as long.
func Closes(line, run string) bool {
	got, bare := Fence(line)
	return bare && got != "" && got[0] == run[0] && len(got) >= len(run)
}

// FenceFor is a backtick fence that nothing in text closes: one backtick
// longer than the longest run of them in text, and at least three. Text
// quoted from an agent's output (a stack trace, say) may hold fences of
// its own; inside a fence of three, its first would end the quote, and
// what follows would be read as the quoting text's own.
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

// fenceRun reads the start of a line, after its indentation, as a fence:
// its character and the length of its run (0 when it is no fence), and
// whether the run is alone on the line (trailing spaces aside), as a
// closing fence is.
func fenceRun[T string | []byte](line T) (char byte, n int, bare bool) {
	if len(line) < 3 || line[0] != '`' && line[0] != '~' {
		return 0, 0, false
	}
	for n < len(line) && line[n] == line[0] {
		n++
	}
	if n < 3 {
		return 0, 0, false
	}
	bare = true
	for i := n; i < len(line); i++ {
		switch line[i] {
		case ' ', '\t', '\r', '\n':
		case '`':
			if line[0] == '`' {
				return 0, 0, false
			}
			bare = false
		default:
			bare = false
		}
	}
	return line[0], n, bare
}
