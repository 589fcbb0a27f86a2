package mdstore

import (
	"bytes"
	"fmt"
	"slices"

	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// NewMemory is what a caller provides to add a memory.
type NewMemory struct {
	Type    entry.MemoryType
	Content string
	Tags    []string
}

// normalize checks a memory to add: no secret in any field (check), a
// known type, content, tags lore can write.
func (in NewMemory) normalize(check *entry.SecretCheck) (NewMemory, error) {
	if err := check.Texts(in.textFields()...); err != nil {
		return in, err
	}
	var err error
	if in.Type, err = entry.ParseMemoryType(string(in.Type)); err != nil {
		return in, err
	}
	if in.Content, err = entry.NormalizeText("content", in.Content); err != nil {
		return in, err
	}
	if in.Tags, err = entry.InputTags(in.Tags); err != nil {
		return in, err
	}
	return in, nil
}

// textFields are in's text fields (see entry.TextField).
func (in *NewMemory) textFields() []entry.TextField {
	return []entry.TextField{
		{Name: "type", Value: (*string)(&in.Type)},
		{Name: "content", Value: &in.Content},
		{Name: "tags", List: &in.Tags},
	}
}

// AddMemory validates m, gives it an id and the creation date and adds it
// under its section in memories.md, as one commit, with what also adds.
func (s *Store) AddMemory(in NewMemory, also ...Also) (entry.Memory, *WriteResult, error) {
	in, err := in.normalize(&entry.SecretCheck{})
	if err != nil {
		return entry.Memory{}, nil, err
	}
	now := s.now()
	m := entry.Memory{Type: in.Type, Content: in.Content, Tags: in.Tags, Created: now.UTC().Format(entry.DateLayout)}
	res, err := s.Write(func(tx *Tx) error {
		// The id is chosen once, under the lock, and kept if the commit
		// is retried: the file may already hold this memory by then.
		// It is one that neither the committed memories.md nor the one on
		// disk holds anywhere — as a block's id or not: finding it in the
		// text needs no parse of a file of thousands of memories.
		if m.ID == "" {
			var texts [][]byte
			for _, r := range []catalog.Reader{tx, tx.worktree()} {
				data, _, err := r.Read(entry.MemoriesPath)
				if err != nil {
					return err
				}
				// A clean worktree's file is the committed one: one
				// search of it is enough.
				if len(texts) == 0 || !bytes.Equal(texts[0], data) {
					texts = append(texts, data)
				}
			}
			taken := func(id string) bool {
				return slices.ContainsFunc(texts, func(t []byte) bool { return bytes.Contains(t, []byte(id)) })
			}
			var err error
			if m.ID, err = entry.NewMemoryID(now, s.random, taken); err != nil {
				return err
			}
		}
		added := m
		tx.Apply(Edit{Path: entry.MemoriesPath, Op: OpAddMemory, Memory: &added})
		trailers, err := withAlso(tx, m.ID, also, "Lore-Id", m.ID, "Lore-Kind", "memory")
		tx.SetMessage(CommitMessage("lore: add "+string(m.Type)+" "+m.ID, m.Content, trailers...))
		return err
	})
	if err != nil {
		return entry.Memory{}, nil, err
	}
	return m, res, nil
}

// DeleteMemory removes the memory's block from memories.md, as one
// commit: the block list and show read (the first valid one with that id),
// never a later duplicate; the commit says which line it was. It returns
// a NotFoundError when no block has that id.
func (s *Store) DeleteMemory(id string) (entry.Memory, *WriteResult, error) {
	if !entry.ValidMemoryID(id) {
		return entry.Memory{}, nil, entry.NotFound(entry.KindMemory, id)
	}
	var deleted entry.Memory
	res, err := s.Write(func(tx *Tx) error {
		// The memory is looked for where the commit starts from, then on
		// disk (a memory added by hand and not committed yet): a write
		// that failed cannot make it "not found".
		var f *entry.MemoriesFile
		var block entry.MemoryBlock
		found := false
		for _, r := range []catalog.Reader{tx, tx.worktree()} {
			data, _, err := r.Read(entry.MemoriesPath)
			if err != nil {
				return err
			}
			f = entry.ParseMemoriesFile(data, entry.MemoriesPath)
			if block, found = f.ShownBlock(id); found {
				break
			}
		}
		if !found {
			return entry.NotFound(entry.KindMemory, id)
		}
		deleted = entry.Memory{ID: id}
		for _, m := range f.Memories {
			if m.ID == id {
				deleted = m
				break
			}
		}
		where := fmt.Sprintf("Removed the block at %s:%d", entry.MemoriesPath, block.Line)
		for _, b := range f.Blocks {
			if b.ID == id && b.Line != block.Line {
				where += fmt.Sprintf("; another block with this id, at line %d before this commit, stays", b.Line)
				break
			}
		}
		tx.Apply(Edit{Path: entry.MemoriesPath, Op: OpRemoveMemory, ID: id})
		kind := "memory"
		if deleted.Type != "" {
			kind = string(deleted.Type)
		}
		tx.SetMessage(CommitMessage("lore: delete "+kind+" "+id, where+".\n\n"+deleted.Content, "Lore-Id", id, "Lore-Kind", "memory"))
		return nil
	})
	if err != nil {
		return entry.Memory{}, nil, err
	}
	return deleted, res, nil
}
