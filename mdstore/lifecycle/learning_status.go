package lifecycle

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"
)

// A learning's lifecycle (seed 002, "Lifecycle"): its status (active,
// staged, rejected, pruned) says whether prime and search show it, and a
// learning that superseded_by names has been replaced by a newer one and
// is shown no more either. Both change as one commit that edits only
// those lines of the file's frontmatter: what a person wrote there by hand
// stays as it is.

// SetStatus gives learning id another status, with the reason
// (none clears the one it had), as one commit whose message says both. A
// learning already with that status and reason is left as it is (res nil).
func SetStatus(s *mdstore.Store, id, status, reason string) (l entry.Learning, res *mdstore.WriteResult, err error) {
	if !slices.Contains(entry.LearningStatuses, status) {
		return entry.Learning{}, nil, &entry.InputError{Field: "status", Msg: fmt.Sprintf("status %q must be one of %s", status, strings.Join(entry.LearningStatuses, ", "))}
	}
	if err := (&entry.SecretCheck{}).Text("reason", &reason); err != nil {
		return entry.Learning{}, nil, err
	}
	reason = strings.TrimSpace(reason)
	res, err = s.Write(func(tx *mdstore.Tx) error {
		cur, err := readLearning(tx, id)
		if err != nil {
			return err
		}
		l = cur
		if cur.Status == status && cur.StatusReason == reason {
			return mdstore.ErrUnchanged
		}
		l.Status, l.StatusReason = status, reason
		quoted := ""
		if reason != "" {
			quoted = yamlfm.Quote(reason)
		}
		tx.Apply(mdstore.Edit{Path: cur.Path, Op: mdstore.OpFields, Fields: []entry.FrontmatterField{{Key: "status", Value: status}, {Key: "status_reason", Value: quoted}}})
		body := reason
		if body == "" {
			body = l.Body
		}
		tx.SetMessage(mdstore.CommitMessage("lore: learning "+id+" "+cur.Status+" -> "+status, body, "Lore-Id", id, "Lore-Kind", "learning"))
		return nil
	})
	if errors.Is(err, mdstore.ErrUnchanged) {
		return l, nil, nil
	}
	return l, res, err
}

// Supersede records that learning newer replaces learning old
// (old's superseded_by), as one commit: old is shown no more, and its
// status is left as it is until pruning. newer must be a shown learning
// that old does not already replace, directly or along a chain.
func Supersede(s *mdstore.Store, old, newer string) (l entry.Learning, res *mdstore.WriteResult, err error) {
	if old == newer {
		return entry.Learning{}, nil, &entry.InputError{Field: "new", Msg: fmt.Sprintf("a learning cannot supersede itself (%s)", old)}
	}
	res, err = s.Write(func(tx *mdstore.Tx) error {
		cur, err := readLearning(tx, old)
		if err != nil {
			return err
		}
		l = cur
		if cur.SupersededBy == newer {
			return mdstore.ErrUnchanged
		}
		n, err := readLearning(tx, newer)
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
		tx.Apply(mdstore.Edit{Path: cur.Path, Op: mdstore.OpFields, Fields: []entry.FrontmatterField{{Key: "superseded_by", Value: newer}}})
		tx.SetMessage(mdstore.CommitMessage("lore: learning "+old+" superseded by "+newer, n.Body,
			"Lore-Id", old, "Lore-Kind", "learning", "Lore-Superseded-By", newer))
		return nil
	})
	if errors.Is(err, mdstore.ErrUnchanged) {
		return l, nil, nil
	}
	return l, res, err
}

// readLearning reads learning id as the change tx builds on it; a
// missing one is a NotFoundError, one that does not parse its FileError.
func readLearning(t *mdstore.Tx, id string) (entry.Learning, error) {
	if !entry.ValidLearningID(id) {
		return entry.Learning{}, entry.NotFound(entry.KindLearning, id)
	}
	p := entry.LearningPath(id)
	data, ok, err := t.Read(p)
	if err != nil {
		return entry.Learning{}, err
	}
	if !ok {
		return entry.Learning{}, entry.NotFound(entry.KindLearning, id)
	}
	return entry.ParseLearning(data, p)
}
