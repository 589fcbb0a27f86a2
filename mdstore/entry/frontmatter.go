package entry

import (
	"errors"
	"strings"

	"lore/mdstore/entry/yamlfm"
)

// parseFrontmatter splits data into its frontmatter and body; a file
// whose frontmatter does not read is a FileError naming path.
func parseFrontmatter(data []byte, path string) (*yamlfm.Doc, error) {
	d, err := yamlfm.Parse(data)
	var fe *yamlfm.Error
	if errors.As(err, &fe) {
		return nil, &FileError{Path: path, Line: fe.Line, Msg: fe.Msg}
	}
	return d, err
}

// docErr returns the first of d's problems as a FileError naming path
// (every problem in its Problems), or nil.
func docErr(d *yamlfm.Doc, path string) error {
	if len(d.Problems) == 0 {
		return nil
	}
	problems := make([]Warning, len(d.Problems))
	for i, p := range d.Problems {
		problems[i] = Warning{Path: path, Line: p.Line, Message: p.Message}
	}
	p := problems[0]
	return &FileError{Path: p.Path, Line: p.Line, Msg: p.Message, Problems: problems}
}

// docTags reads a tag list: each tag non-empty, without '|', ',' or "-->"
// (the rules of memory tags), and lowercase when lower is set.
func docTags(d *yamlfm.Doc, key string, required, lower bool) []string {
	raw := d.List(key)
	if len(raw) == 0 {
		if !required {
			return nil
		}
		if n, ok := d.Field(key); ok {
			d.Problem(n.Line, "%s needs at least one tag", key)
		} else {
			d.Missing(key)
		}
		return nil
	}
	line := d.FieldLine(key)
	if lower {
		for _, t := range raw {
			if t != strings.ToLower(t) {
				d.Problem(line, "%s: tag %q must be lowercase", key, t)
				break
			}
		}
	}
	tags, err := NormalizeTags(raw)
	if err != nil {
		d.Problem(line, "%s: %s", key, err.(*InputError).Msg)
		return nil
	}
	return tags
}
