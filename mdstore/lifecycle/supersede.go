package lifecycle

import (
	"fmt"
	"slices"
	"strings"

	"lore/internal/gitx"
	"lore/internal/neardup"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// Supersedes is the part of an add (mdstore.Also) that retires entry old,
// of the kind the add writes, in the add's commit, with a "Supersedes:
// old" trailer. A memory's block leaves memories.md and a knowledge
// entry's file goes (seeds 000 and 001 have no status to set; the
// commit's trailer is the record, which lore show and lore history read
// back); a learning gets superseded_by, as lore learning supersede sets
// it. The old entry must exist and be another than the new one.
func Supersedes(kind entry.Kind, old string) mdstore.Also {
	return func(tx *mdstore.Tx, newID string) ([]string, error) {
		okind, old := entry.KindOfID(old)
		if okind != kind {
			return nil, &entry.InputError{Field: "supersedes", Msg: fmt.Sprintf("%s is a %s, not a %s: an entry supersedes one of its own kind", old, okind, kind)}
		}
		if old == newID {
			return nil, &entry.InputError{Field: "supersedes", Msg: fmt.Sprintf("the new entry is %s itself (an update of it): use lore edit %s", old, old)}
		}
		switch kind {
		case entry.KindMemory:
			data, _, err := tx.Read(entry.MemoriesPath)
			if err != nil {
				return nil, err
			}
			if _, ok := entry.ParseMemoriesFile(data, entry.MemoriesPath).ShownBlock(old); !ok {
				return nil, entry.NotFound(kind, old)
			}
			tx.Apply(mdstore.Edit{Path: entry.MemoriesPath, Op: mdstore.OpRemoveMemory, ID: old})
		case entry.KindKnowledge:
			p := entry.KnowledgePath(old)
			if ok, err := tx.Exists(p); err != nil {
				return nil, err
			} else if !ok || !entry.IsSlug(old) {
				return nil, entry.NotFound(kind, old)
			}
			tx.Apply(mdstore.Edit{Path: p, Op: mdstore.OpRemove})
		case entry.KindLearning:
			l, err := readLearning(tx, old)
			if err != nil {
				return nil, err
			}
			if l.SupersededBy != "" {
				return nil, &entry.InputError{Field: "supersedes", Msg: fmt.Sprintf("%s is already superseded by %s", old, l.SupersededBy)}
			}
			tx.Apply(mdstore.Edit{Path: l.Path, Op: mdstore.OpFields, Fields: []entry.FrontmatterField{{Key: "superseded_by", Value: newID}}})
		default:
			return nil, fmt.Errorf("lifecycle: a %s is %w", kind, ErrNotEditable)
		}
		return []string{"Supersedes", old}, nil
	}
}

// Similar is the first memory of type typ, or knowledge entry, whose
// text nearly repeats text (neardup's rule: more than 80% of the
// keywords shared), "" when none does: what lore add names so that the
// writer can supersede it instead. Learnings need no such notice: a
// near-duplicate learning is not added at all.
func Similar(s *mdstore.Store, kind entry.Kind, typ, text string) (string, error) {
	var ids, bodies []string
	switch kind {
	case entry.KindMemory:
		ms, _, err := s.Memories()
		if err != nil {
			return "", err
		}
		for _, m := range ms {
			if string(m.Type) == typ {
				ids, bodies = append(ids, m.ID), append(bodies, m.Content)
			}
		}
	case entry.KindKnowledge:
		ks, _, err := s.Knowledge()
		if err != nil {
			return "", err
		}
		for _, k := range ks {
			ids, bodies = append(ids, k.Slug), append(bodies, k.Title+"\n"+k.Body)
		}
	}
	d := neardup.New(slices.Concat(bodies, []string{text})...)
	for _, b := range bodies {
		d.Add(typ, b)
	}
	if i := d.Of(typ, text); i >= 0 {
		return ids[i], nil
	}
	return "", nil
}

// Retired is a memory or knowledge entry that a later one superseded,
// as it was before the commit that retired it.
type Retired struct {
	By        string // the entry that superseded it
	Commit    string
	Memory    *entry.Memory
	Knowledge *entry.Knowledge
}

// FindRetired looks along HEAD's history of the file that held entry id
// for the commit whose "Supersedes: id" trailer retired it (the newest),
// and returns the entry as the commit's parent held it; ok is false when
// no commit did.
func FindRetired(s *mdstore.Store, id string) (r Retired, ok bool, err error) {
	kind, id := entry.KindOfID(id)
	p := entry.MemoriesPath
	switch {
	case s.Repo() == nil:
		return r, false, nil
	case kind == entry.KindKnowledge && entry.IsSlug(id):
		p = entry.KnowledgePath(id)
	case kind != entry.KindMemory:
		return r, false, nil
	}
	// A memory's id holds when it was made: a commit a day older than
	// that cannot have retired it, and a mistyped id ends the walk there.
	born := (entry.Memory{ID: id}).Unix() - 86400
	walkErr := s.Repo().History(s.GitPath(p), func(v gitx.Version) bool {
		if kind == entry.KindMemory && born > 0 && v.When.Unix() < born {
			return false
		}
		if !slices.Contains(gitx.ParseTrailers(v.Message)["Supersedes"], id) || v.Before.IsZero() {
			return true
		}
		data, rerr := s.Repo().ReadBlob(v.Before)
		if rerr != nil {
			err = rerr
			return false
		}
		r = Retired{By: strings.Join(gitx.ParseTrailers(v.Message)["Lore-Id"], ", "), Commit: v.Commit.String()}
		if kind == entry.KindMemory {
			for _, m := range entry.ParseMemoriesFile(data, p).Memories {
				if m.ID == id {
					r.Memory, ok = &m, true
					break
				}
			}
		} else if k, kerr := entry.ParseKnowledge(data, p); kerr == nil {
			k.Slug = id
			r.Knowledge, ok = &k, true
		}
		return !ok
	})
	if err == nil {
		err = walkErr
	}
	return r, ok, err
}
