package mdstore

import (
	"bytes"
	"errors"
	"fmt"
	"lore/mdstore/entry"
	"slices"
	"strings"
)

// A learning's lifecycle (seed 002, "Lifecycle"): its status (active,
// staged, rejected, pruned) says whether prime and search show it, and a
// learning that superseded_by names has been replaced by a newer one and
// is shown no more either. Both change as one commit that edits only
// those lines of the file's frontmatter: what a person wrote there by hand
// stays as it is.

// frontmatterField is a frontmatter line to set: Value is written as it
// is (a plain word, or a quoted string from YAMLQuote); "" removes the
// key.
type frontmatterField struct {
	Key   string `json:"key"`
	Value string `json:"value,omitempty"`
}

// setFrontmatterFields sets each field's line in src's frontmatter: a key
// that is there is rewritten where it is (with the lines that continue its
// value), a new one goes just before the closing "---", and one set to ""
// is removed. Everything else, comments included, is kept byte for byte.
func setFrontmatterFields(src []byte, fields []frontmatterField) ([]byte, error) {
	err := errors.New("no frontmatter: the file must start with a --- line")
	out := entry.KeepingCRLF(src, func(src []byte) []byte {
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
				at = slices.IndexFunc(fields, func(f frontmatterField) bool { return string(key) == f.Key })
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

// SetLearningStatus gives learning id another status, with the reason
// (none clears the one it had), as one commit whose message says both. A
// learning already with that status and reason is left as it is (res nil).
func (s *Store) SetLearningStatus(id, status, reason string) (l entry.Learning, res *WriteResult, err error) {
	if !slices.Contains(entry.LearningStatuses, status) {
		return entry.Learning{}, nil, &entry.InputError{Field: "status", Msg: fmt.Sprintf("status %q must be one of %s", status, strings.Join(entry.LearningStatuses, ", "))}
	}
	if err := (&entry.SecretCheck{}).Text("reason", &reason); err != nil {
		return entry.Learning{}, nil, err
	}
	reason = strings.TrimSpace(reason)
	res, err = s.Write(func(tx *Tx) error {
		cur, err := tx.learning(id)
		if err != nil {
			return err
		}
		l = cur
		if cur.Status == status && cur.StatusReason == reason {
			return errUnchanged
		}
		l.Status, l.StatusReason = status, reason
		quoted := ""
		if reason != "" {
			quoted = entry.YAMLQuote(reason)
		}
		tx.Apply(Edit{Path: cur.Path, Op: OpFields, Fields: []frontmatterField{{"status", status}, {"status_reason", quoted}}})
		body := reason
		if body == "" {
			body = l.Body
		}
		tx.SetMessage(CommitMessage("lore: learning "+id+" "+cur.Status+" -> "+status, body, "Lore-Id", id, "Lore-Kind", "learning"))
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return l, nil, nil
	}
	return l, res, err
}

// SupersedeLearning records that learning newer replaces learning old
// (old's superseded_by), as one commit: old is shown no more, and its
// status is left as it is until pruning. newer must be a shown learning
// that old does not already replace, directly or along a chain.
func (s *Store) SupersedeLearning(old, newer string) (l entry.Learning, res *WriteResult, err error) {
	if old == newer {
		return entry.Learning{}, nil, &entry.InputError{Field: "new", Msg: fmt.Sprintf("a learning cannot supersede itself (%s)", old)}
	}
	res, err = s.Write(func(tx *Tx) error {
		cur, err := tx.learning(old)
		if err != nil {
			return err
		}
		l = cur
		if cur.SupersededBy == newer {
			return errUnchanged
		}
		n, err := tx.learning(newer)
		if err != nil {
			return err
		}
		if !n.Shown() {
			why := newer + " is " + n.Status
			if n.SupersededBy != "" {
				why = newer + " is itself superseded by " + n.SupersededBy
			}
			return &entry.InputError{Field: "new", Msg: fmt.Sprintf("%s cannot supersede %s: %s", newer, old, why)}
		}
		l.SupersededBy = newer
		tx.Apply(Edit{Path: cur.Path, Op: OpFields, Fields: []frontmatterField{{"superseded_by", newer}}})
		tx.SetMessage(CommitMessage("lore: learning "+old+" superseded by "+newer, n.Body,
			"Lore-Id", old, "Lore-Kind", "learning", "Lore-Superseded-By", newer))
		return nil
	})
	if errors.Is(err, errUnchanged) {
		return l, nil, nil
	}
	return l, res, err
}

// errUnchanged ends a write that has nothing to change: no commit.
var errUnchanged = errors.New("unchanged")

// learning reads learning id as the change builds on it; a missing one
// is a NotFoundError, one that does not parse its FileError.
func (t *Tx) learning(id string) (entry.Learning, error) {
	if !entry.ValidLearningID(id) {
		return entry.Learning{}, entry.NotFound(entry.KindLearning, id)
	}
	p := t.path(entry.LearningPath(id))
	data, ok, err := t.Read(p)
	if err != nil {
		return entry.Learning{}, err
	}
	if !ok {
		return entry.Learning{}, entry.NotFound(entry.KindLearning, id)
	}
	return entry.ParseLearning(data, p)
}
