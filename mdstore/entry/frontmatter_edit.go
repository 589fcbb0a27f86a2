package entry

import (
	"bytes"
	"errors"
	"slices"
	"strings"
)

// FrontmatterField is a frontmatter line to set: Value is written as it
// is (a plain word, or a quoted string from yamlfm.Quote); "" removes the
// key.
type FrontmatterField struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

// SetFrontmatterFields sets each field's line in src's frontmatter: a key
// that is there is rewritten where it is (with the lines that continue its
// value), a new one goes just before the closing "---", and one set to ""
// is removed. Everything else, comments included, is kept byte for byte.
func SetFrontmatterFields(src []byte, fields []FrontmatterField) ([]byte, error) {
	err := errors.New("no frontmatter: the file must start with a --- line")
	out := KeepingCRLF(src, func(src []byte) []byte {
		if !bytes.HasPrefix(src, []byte("---\n")) {
			return src
		}
		end := bytes.Index(src[3:], []byte("\n---\n"))
		if end < 0 && bytes.HasSuffix(src, []byte("\n---")) {
			end = len(src) - 3 - 4
		}
		if end < 0 {
			err = errors.New("frontmatter is not closed by a --- line")
			return src
		}
		head, rest := src[4:3+end+1], src[3+end+1:] // the fields' lines; "---\n…" on
		done := make([]bool, len(fields))
		var b bytes.Buffer
		b.WriteString("---\n")
		lines := bytes.SplitAfter(head, []byte("\n"))
		for i := 0; i < len(lines); i++ {
			line := lines[i]
			key, _, found := bytes.Cut(line, []byte(":"))
			at := -1
			if found {
				at = slices.IndexFunc(fields, func(f FrontmatterField) bool { return string(key) == f.Key })
			}
			if at < 0 {
				b.Write(line)
				continue
			}
			// The key's value goes on for as long as lines are indented
			// or are items of a block list.
			for i+1 < len(lines) && len(lines[i+1]) > 0 && strings.ContainsRune(" \t-", rune(lines[i+1][0])) {
				i++
			}
			if !done[at] && fields[at].Value != "" {
				b.WriteString(fields[at].Key + ": " + fields[at].Value + "\n")
			}
			done[at] = true
		}
		for i, f := range fields {
			if !done[i] && f.Value != "" {
				b.WriteString(f.Key + ": " + f.Value + "\n")
			}
		}
		b.Write(rest)
		err = nil
		return b.Bytes()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
