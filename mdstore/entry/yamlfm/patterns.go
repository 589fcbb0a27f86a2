package yamlfm

import "strings"

// isPlainFlowItem matches ^[a-z0-9][a-z0-9_./+-]*( [a-z0-9_./+-]+)*$: a
// list item YAML reads as written without quotes.
func isPlainFlowItem(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || s[len(s)-1] == ' ' || strings.Contains(s, "  ") {
		return false
	}
	return all(s, func(c byte) bool {
		return isLowerAlnum(c) || c == '_' || c == '.' || c == '/' || c == '+' || c == '-' || c == ' '
	})
}

func all(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }
func isLetter(c byte) bool     { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
