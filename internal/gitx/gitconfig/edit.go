package gitconfig

import "strings"

// SetSection makes section [name "sub"] of a config file's text hold
// settings, keeping every other line as it is: keys it already holds with
// other values are rewritten in place, missing ones are added at the end
// of the section, a missing section is appended.
func SetSection(text, name, sub string, settings []Setting) string {
	return editLines(text, func(lines []string) []string {
		start, end := findSection(lines, name, sub)
		if start < 0 {
			if n := len(lines); n > 0 && strings.TrimSpace(lines[n-1]) != "" && !strings.HasSuffix(lines[n-1], "\n") {
				lines[n-1] += "\n"
			}
			lines = append(lines, sectionHeader(name, sub)+"\n")
			start, end = len(lines)-1, len(lines)
		}
		for _, s := range settings {
			line := "\t" + s.Key + " = " + quoteValue(s.Value) + "\n"
			at := -1
			for i := start + 1; i < end; i++ {
				if k, v, ok := configLine(lines[i]); ok && k == s.Key {
					if v == s.Value {
						at = -2 // already so
						break
					}
					at = i
				}
			}
			switch at {
			case -2:
			case -1:
				lines = append(lines[:end], append([]string{line}, lines[end:]...)...)
				end++
			default:
				lines[at] = line
			}
		}
		return lines
	})
}

// RemoveSection drops section [name "sub"] from a config file's text, with
// its variables and nothing else.
func RemoveSection(text, name, sub string) string {
	return editLines(text, func(lines []string) []string {
		start, end := findSection(lines, name, sub)
		if start < 0 {
			return lines
		}
		return append(lines[:start], lines[end:]...)
	})
}

// editLines applies edit to text cut into lines (each with its line
// break) and joins them again.
func editLines(text string, edit func(lines []string) []string) string {
	lines := strings.SplitAfter(text, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(edit(lines), "")
}

// Setting is one variable of a config section: key (lowercase) and
// value.
type Setting struct{ Key, Value string }

// findSection returns the line of section [name "sub"]'s header and the
// line after its last variable (the next header, or the end); -1 when the
// file has no such section. Comment lines right before the next header
// stay with that header.
func findSection(lines []string, name, sub string) (start, end int) {
	start = -1
	for i, l := range lines {
		n, s, ok := headerOf(l)
		if !ok {
			continue
		}
		if start >= 0 {
			end = i
			for end > start+1 && isCommentOrBlank(lines[end-1]) {
				end--
			}
			return start, end
		}
		if strings.EqualFold(n, name) && s == sub {
			start = i
		}
	}
	if start < 0 {
		return -1, -1
	}
	end = len(lines)
	for end > start+1 && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return start, end
}

// headerOf reads a section header line: [name] or [name "sub"].
func headerOf(line string) (name, sub string, ok bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	close := strings.LastIndexByte(t, ']')
	if close < 0 {
		return "", "", false
	}
	inner := strings.TrimSpace(t[1:close])
	name, rest, found := strings.Cut(inner, " ")
	if !found {
		if n, s, dotted := strings.Cut(inner, "."); dotted { // the legacy [name.sub]
			return n, strings.ToLower(s), true
		}
		return inner, "", true
	}
	rest = strings.TrimSpace(rest)
	if len(rest) >= 2 && rest[0] == '"' && rest[len(rest)-1] == '"' {
		sub = strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(rest[1 : len(rest)-1])
	}
	return name, sub, true
}

func isCommentOrBlank(line string) bool {
	t := strings.TrimSpace(line)
	return t == "" || t[0] == '#' || t[0] == ';'
}

// configLine reads a "key = value" line (lowercased key); false for
// anything else, a continued value included.
func configLine(line string) (key, value string, ok bool) {
	entries, err := Parse("[x]\n" + line)
	if err != nil || len(entries) != 1 {
		return "", "", false
	}
	return entries[0].key, entries[0].value, true
}

func sectionHeader(name, sub string) string {
	if sub == "" {
		return "[" + name + "]"
	}
	return "[" + name + " \"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(sub) + "\"]"
}

// quoteValue quotes a value when git would otherwise read it
// differently: leading or trailing space, a comment character, a quote or
// a backslash.
func quoteValue(v string) string {
	if v == strings.TrimSpace(v) && !strings.ContainsAny(v, "#;\"\\\n\t") {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`).Replace(v) + `"`
}
