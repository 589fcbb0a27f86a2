package lifecycle

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// Change is what lore edit changes in one entry; a field left empty (nil
// for Content and Tags) keeps what the entry has. Type is a memory's,
// Category a learning's, Title a knowledge entry's (its slug, the id,
// stays).
type Change struct {
	Content  *string
	Tags     []string
	Type     string
	Title    string
	Category string
	// Cite, when set, makes the entry's citations anew from its text as
	// the edit leaves it (lore edit --cite, and the files the new text
	// names): what it cites is replaced in the edit's commit.
	Cite func(text string) ([]cites.Cite, error)
}

// Edited is the entry an edit wrote, as it is now; Unchanged when the
// change asked for what the entry already held (nothing was committed).
type Edited struct {
	Kind      entry.Kind
	ID        string
	Memory    *entry.Memory
	Knowledge *entry.Knowledge
	Learning  *entry.Learning
	Unchanged bool
}

// ErrNotEditable: iterations and skills are not edited by lore edit.
var ErrNotEditable = errors.New("not editable")

// Edit changes the entry id names in place, as one commit "lore: edit
// <kind> <id>" with Lore-Id and Lore-Kind trailers: a memory keeps its
// id, position and created date (its block moves only to the section of
// a new type), a knowledge entry its slug and created_at (updated_at is
// set), a learning its id and the rest of its frontmatter. The old
// version stays in git's history. Secrets are refused as in add.
func Edit(s *mdstore.Store, id string, c Change) (Edited, *mdstore.WriteResult, error) {
	kind, id := entry.KindOfID(id)
	ed := Edited{Kind: kind, ID: id}
	if kind == entry.KindJournal {
		return ed, nil, fmt.Errorf("lifecycle: an iteration (%s) is %w: the journal records what happened", id, ErrNotEditable)
	}
	for field, set := range map[string]bool{"type": c.Type != "", "title": c.Title != "", "category": c.Category != ""} {
		if set && field != map[entry.Kind]string{entry.KindMemory: "type", entry.KindKnowledge: "title", entry.KindLearning: "category"}[kind] {
			return ed, nil, &entry.InputError{Field: field, Msg: fmt.Sprintf("a %s has no %s to edit", kind, field)}
		}
	}
	var build func(tx *mdstore.Tx) (mdstore.Edit, error)
	switch kind {
	case entry.KindMemory:
		build = func(tx *mdstore.Tx) (mdstore.Edit, error) { return editMemory(tx, id, c, &ed) }
	case entry.KindLearning:
		build = func(tx *mdstore.Tx) (mdstore.Edit, error) { return editLearning(tx, id, c, &ed) }
	default:
		now := s.Now().UTC().Format(time.RFC3339)
		build = func(tx *mdstore.Tx) (mdstore.Edit, error) { return editKnowledge(tx, id, c, now, &ed) }
	}
	res, err := s.Write(func(tx *mdstore.Tx) error {
		e, err := build(tx)
		unchanged := errors.Is(err, mdstore.ErrUnchanged)
		if err != nil && (!unchanged || c.Cite == nil) {
			return err
		}
		if !unchanged {
			tx.Apply(e)
		}
		body, text, key := "", "", id
		switch {
		case ed.Memory != nil:
			body, text = ed.Memory.Content, ed.Memory.Content
		case ed.Learning != nil:
			body, text, key = ed.Learning.Body, ed.Learning.Body, cites.KeyOf(entry.LearningPath(id))
		case ed.Knowledge != nil:
			body, text, key = ed.Knowledge.Title, ed.Knowledge.Title+"\n"+ed.Knowledge.Body, cites.KeyOf(entry.KnowledgePath(id))
		}
		if c.Cite != nil {
			cs, err := c.Cite(text)
			if err != nil {
				return err
			}
			data, _, err := tx.Read(cites.Path)
			if err != nil {
				return err
			}
			was := cites.Of(data, key)
			same := func(c cites.Cite) bool { // the same file and content, whatever commit stamped it
				return slices.ContainsFunc(was, func(w cites.Cite) bool { return w.File == c.File && w.Lines == c.Lines && w.Blob == c.Blob })
			}
			if unchanged && len(was) == len(cs) && !slices.ContainsFunc(cs, func(c cites.Cite) bool { return !same(c) }) {
				return mdstore.ErrUnchanged // the entry and what it cites, as they were
			}
			tx.Apply(mdstore.Edit{Path: cites.Path, Op: mdstore.OpCite, ID: key, Cites: cs})
		}
		tx.SetMessage(mdstore.CommitMessage("lore: edit "+string(kind)+" "+id, body, "Lore-Id", id, "Lore-Kind", string(kind)))
		return nil
	})
	if errors.Is(err, mdstore.ErrUnchanged) {
		ed.Unchanged = true
		return ed, nil, nil
	}
	return ed, res, err
}

func editMemory(tx *mdstore.Tx, id string, c Change, ed *Edited) (mdstore.Edit, error) {
	data, _, err := tx.Read(entry.MemoriesPath)
	if err != nil {
		return mdstore.Edit{}, err
	}
	f := entry.ParseMemoriesFile(data, entry.MemoriesPath)
	b, ok := f.ShownBlock(id)
	i := slices.IndexFunc(f.Memories, func(m entry.Memory) bool { return m.Line == b.Line })
	if !ok || i < 0 {
		return mdstore.Edit{}, entry.NotFound(entry.KindMemory, id)
	}
	m := f.Memories[i]
	check := &entry.SecretCheck{}
	if c.Content != nil {
		if m.Content, err = entry.NormalizeText("content", *c.Content); err != nil {
			return mdstore.Edit{}, err
		}
	}
	if c.Tags != nil {
		if m.Tags, err = entry.InputTags(c.Tags); err != nil {
			return mdstore.Edit{}, err
		}
	}
	if c.Type != "" {
		if m.Type, err = entry.ParseMemoryType(c.Type); err != nil {
			return mdstore.Edit{}, err
		}
	}
	if err := check.Texts(entry.TextField{Name: "content", Value: &m.Content}, entry.TextField{Name: "tags", List: &m.Tags}); err != nil {
		return mdstore.Edit{}, err
	}
	ed.Memory = &m
	if old := f.Memories[i]; old.Type == m.Type && old.Content == m.Content && slices.Equal(old.Tags, m.Tags) {
		return mdstore.Edit{}, mdstore.ErrUnchanged
	}
	return mdstore.Edit{Path: entry.MemoriesPath, Op: mdstore.OpReplaceMemory, Memory: &m}, nil
}

func editLearning(tx *mdstore.Tx, id string, c Change, ed *Edited) (mdstore.Edit, error) {
	l, err := readLearning(tx, id)
	if err != nil {
		return mdstore.Edit{}, err
	}
	in := entry.NewLearning{Category: l.Category, Tags: l.Tags, Task: l.Task, Body: l.Body, Status: l.Status, Kind: l.Kind, TaskType: l.TaskType, Runs: l.SourceRuns}
	if c.Content != nil {
		in.Body = *c.Content
	}
	if c.Tags != nil {
		in.Tags = c.Tags
	}
	if c.Category != "" {
		in.Category = c.Category
	}
	if in, err = in.Normalize(&entry.SecretCheck{}); err != nil {
		return mdstore.Edit{}, err
	}
	was := l
	l.Body, l.Tags, l.Category = in.Body, in.Tags, in.Category
	ed.Learning = &l
	if bytes.Equal(entry.RenderLearning(l), entry.RenderLearning(was)) {
		return mdstore.Edit{}, mdstore.ErrUnchanged
	}
	return mdstore.Edit{Path: l.Path, Op: mdstore.OpPut, Content: string(entry.RenderLearning(l))}, nil
}

func editKnowledge(tx *mdstore.Tx, slug string, c Change, now string, ed *Edited) (mdstore.Edit, error) {
	p := entry.KnowledgePath(slug)
	data, ok, err := tx.Read(p)
	if err != nil {
		return mdstore.Edit{}, err
	}
	if !ok || !entry.IsSlug(slug) {
		return mdstore.Edit{}, entry.NotFound(entry.KindKnowledge, slug)
	}
	k, err := entry.ParseKnowledge(data, p)
	if err != nil {
		return mdstore.Edit{}, err
	}
	in := entry.NewKnowledge{Title: k.Title, Tags: k.Tags, Feature: k.Feature, Body: k.Body, Sources: k.Sources}
	if c.Content != nil {
		in.Body = *c.Content
	}
	if c.Tags != nil {
		in.Tags = c.Tags
	}
	if c.Title != "" {
		in.Title = c.Title
	}
	if in, err = in.Normalize(&entry.SecretCheck{}); err != nil {
		return mdstore.Edit{}, err
	}
	was := k
	k.Title, k.Tags, k.Body = in.Title, in.Tags, in.Body
	ed.Knowledge = &k
	if bytes.Equal(entry.RenderKnowledge(k), entry.RenderKnowledge(was)) {
		return mdstore.Edit{}, mdstore.ErrUnchanged
	}
	k.UpdatedAt = now
	return mdstore.Edit{Path: p, Op: mdstore.OpPut, Content: string(entry.RenderKnowledge(k))}, nil
}
