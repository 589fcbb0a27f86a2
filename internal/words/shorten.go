package words

import (
	"strings"
	"unicode/utf8"
)

// Shorten is s cut to n characters, the last of them "…", when it is
// longer.
func Shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// FirstLine is the first line of s, shortened to n characters, with " …"
// after it when more lines follow: a text on one line of a table.
func FirstLine(s string, n int) string {
	line, _, more := strings.Cut(s, "\n")
	if utf8.RuneCountInString(line) > n {
		return Shorten(line, n)
	}
	if more {
		return line + " …"
	}
	return line
}
