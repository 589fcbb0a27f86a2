package entry

import "strings"

// The shapes of ids, names and markers, written out by hand: a regular
// expression compiled when the package loads costs every lore process
// its start-up (six of them were a millisecond here), and most commands
// never use them. Each function says the expression it stands for; a fuzz
// test checks that the two agree.

// isLearningID matches ^l-[0-9a-f]{6}$.
func isLearningID(s string) bool {
	return len(s) == 8 && strings.HasPrefix(s, "l-") && all(s[2:], isLowerHex)
}

// isRunID matches ^[a-z0-9][a-z0-9._-]{0,63}$.
func isRunID(s string) bool {
	return len(s) >= 1 && len(s) <= 64 && isLowerAlnum(s[0]) &&
		all(s[1:], func(c byte) bool { return isLowerAlnum(c) || c == '.' || c == '_' || c == '-' })
}

// isCategory matches ^[a-z][a-z0-9_-]*$.
func isCategory(s string) bool {
	return len(s) >= 1 && 'a' <= s[0] && s[0] <= 'z' &&
		all(s[1:], func(c byte) bool { return isLowerAlnum(c) || c == '_' || c == '-' })
}

// isSlug matches ^[a-z0-9]+(-[a-z0-9]+)*$.
func IsSlug(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' || strings.Contains(s, "--") {
		return false
	}
	return all(s, func(c byte) bool { return isLowerAlnum(c) || c == '-' })
}

// HasConflictMarkers reports whether data holds a line git's merge
// leaves around a conflict.
func HasConflictMarkers(data []byte) bool {
	for _, line := range strings.Split(string(data), "\n") {
		if isConflictMarker(strings.TrimSuffix(line, "\r")) {
			return true
		}
	}
	return false
}

// isConflictMarker matches ^(<<<<<<<|>>>>>>>|\|\|\|\|\|\|\|)( |$)|^=======$:
// a line git's merge leaves around a conflict.
func isConflictMarker(line string) bool {
	if line == "=======" {
		return true
	}
	for _, m := range []string{"<<<<<<<", ">>>>>>>", "|||||||"} {
		if rest, ok := strings.CutPrefix(line, m); ok && (rest == "" || rest[0] == ' ') {
			return true
		}
	}
	return false
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
func isLowerHex(c byte) bool   { return 'a' <= c && c <= 'f' || '0' <= c && c <= '9' }
