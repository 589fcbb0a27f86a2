package gitconfig

import (
	"fmt"
	"strings"
)

// Entry is one variable of a git config file, in file order.
type Entry struct {
	section    string // lowercased
	subsection string // as written ("" when none)
	key        string // lowercased
	value      string
	bare       bool // "key" without "=": true for booleans
	line       int
}

// Parse parses git's config syntax: [section] and
// [section "subsection"] headers (and the legacy [section.subsection]),
// "key = value" lines and bare keys, quoting, the escapes \" \\ \n \t \b,
// backslash-newline continuations, and # or ; comments.
func Parse(text string) ([]Entry, error) {
	var out []Entry
	section, subsection := "", ""
	line := 1
	i := 0
	n := len(text)
	bad := func(format string, args ...any) error {
		return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
	}
	skipSpace := func() {
		for i < n && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r') {
			i++
		}
	}
	skipLine := func() {
		for i < n && text[i] != '\n' {
			i++
		}
	}
	if strings.HasPrefix(text, "\xef\xbb\xbf") { // UTF-8 byte order mark
		i = 3
	}
	for i < n {
		skipSpace()
		if i >= n {
			break
		}
		switch c := text[i]; {
		case c == '\n':
			i++
			line++
		case c == '#' || c == ';':
			skipLine()
		case c == '[':
			i++
			start := i
			for i < n && (isConfigNameChar(text[i]) || text[i] == '.') {
				i++
			}
			name := text[start:i]
			subsection = ""
			skipSpace()
			if i < n && text[i] == '"' {
				i++
				var sub strings.Builder
				for {
					if i >= n || text[i] == '\n' {
						return nil, bad("unterminated subsection name")
					}
					if text[i] == '"' {
						i++
						break
					}
					if text[i] == '\\' && i+1 < n {
						i++
					}
					sub.WriteByte(text[i])
					i++
				}
				subsection = sub.String()
				skipSpace()
			} else if dot := strings.IndexByte(name, '.'); dot >= 0 {
				// [section.subsection], the old syntax: lowercased.
				name, subsection = name[:dot], strings.ToLower(name[dot+1:])
			}
			if i >= n || text[i] != ']' || name == "" {
				return nil, bad("bad section header")
			}
			i++
			section = strings.ToLower(name)
		default:
			if !isConfigNameChar(c) {
				return nil, bad("unexpected character %q", c)
			}
			if section == "" {
				return nil, bad("variable outside a section")
			}
			start := i
			for i < n && isConfigNameChar(text[i]) {
				i++
			}
			e := Entry{section: section, subsection: subsection, key: strings.ToLower(text[start:i]), line: line}
			skipSpace()
			if i >= n || text[i] == '\n' || text[i] == '#' || text[i] == ';' {
				e.bare = true
				out = append(out, e)
				continue
			}
			if text[i] != '=' {
				return nil, bad("expected '=' after %q", e.key)
			}
			i++
			value, err := parseConfigValue(text, &i, &line)
			if err != nil {
				return nil, bad("%v", err)
			}
			e.value = value
			out = append(out, e)
		}
	}
	return out, nil
}

// parseConfigValue reads a value up to the end of its (logical) line.
func parseConfigValue(text string, i *int, line *int) (string, error) {
	var b strings.Builder
	quoted := false
	pendingSpace := ""
	n := len(text)
	for *i < n {
		c := text[*i]
		switch {
		case c == '\n' && !quoted:
			return b.String(), nil
		case c == '\n':
			return "", fmt.Errorf("unterminated quote")
		case (c == '#' || c == ';') && !quoted:
			for *i < n && text[*i] != '\n' {
				*i++
			}
			return b.String(), nil
		case c == '"':
			quoted = !quoted
			b.WriteString(pendingSpace)
			pendingSpace = ""
			*i++
		case c == '\\':
			if *i+1 >= n {
				return "", fmt.Errorf("backslash at end of file")
			}
			*i++
			esc := text[*i]
			*i++
			switch esc {
			case '\n':
				*line++
				continue // a continuation line
			case '\r':
				if *i < n && text[*i] == '\n' {
					*i++
					*line++
					continue
				}
				return "", fmt.Errorf("bad escape")
			case 'n':
				esc = '\n'
			case 't':
				esc = '\t'
			case 'b':
				esc = '\b'
			case '\\', '"':
			default:
				return "", fmt.Errorf("bad escape \\%c", esc)
			}
			b.WriteString(pendingSpace)
			pendingSpace = ""
			b.WriteByte(esc)
		case (c == ' ' || c == '\t' || c == '\r') && !quoted:
			// Inner white space is kept, leading and trailing is not.
			if b.Len() > 0 {
				pendingSpace += string(c)
			}
			*i++
		default:
			b.WriteString(pendingSpace)
			pendingSpace = ""
			b.WriteByte(c)
			*i++
		}
	}
	if quoted {
		return "", fmt.Errorf("unterminated quote")
	}
	return b.String(), nil
}

func isConfigNameChar(c byte) bool {
	return c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
