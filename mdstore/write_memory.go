package mdstore

import (
	"bytes"
	"fmt"
	"slices"
)

// NewMemory is what a caller provides to add a memory.
type NewMemory struct {
	Type    MemoryType
	Content string
	Tags    []string
}

// normalize checks a memory to add: no secret in any field (check), a
// known type, content, tags lore can write.
func (in NewMemory) normalize(check *secretCheck) (NewMemory, error) {
	typ := string(in.Type)
	if err := check.text("type", &typ); err != nil {
		return in, err
	}
	if err := check.text("content", &in.Content); err != nil {
		return in, err
	}
	if err := check.list("tags", &in.Tags); err != nil {
		return in, err
	}
	var err error
	if in.Type, err = ParseMemoryType(typ); err != nil {
		return in, err
	}
	if in.Content, err = normalizeText("content", in.Content); err != nil {
		return in, err
	}
	if in.Tags, err = inputTags(in.Tags); err != nil {
		return in, err
	}
	return in, nil
}

// AddMemory validates m, gives it an id and the creation date and adds it
// under its section in memories.md, as one commit.
func (s *Store) AddMemory(in NewMemory) (Memory, *WriteResult, error) {
	in, err := in.normalize(&secretCheck{})
	if err != nil {
		return Memory{}, nil, err
	}
	now := s.now()
	m := Memory{Type: in.Type, Content: in.Content, Tags: in.Tags, Created: now.UTC().Format(dateLayout)}
	res, err := s.write(func(tx *storeTx) error {
		// The id is chosen once, under the lock, and kept if the commit
		// is retried: the file may already hold this memory by then.
		// It is one that neither the committed memories.md nor the one on
		// disk holds anywhere — as a block's id or not: finding it in the
		// text needs no parse of a file of thousands of memories.
		if m.ID == "" {
			var texts [][]byte
			for _, r := range []Reader{tx, tx.worktree()} {
				data, _, err := r.Read(MemoriesPath)
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
			if m.ID, err = newMemoryID(now, s.random, taken); err != nil {
				return err
			}
		}
		added := m
		tx.apply(storeEdit{Path: MemoriesPath, Op: opAddMemory, Memory: &added})
		tx.message(commitMessage("lore: add "+string(m.Type)+" "+m.ID, m.Content,
			"Lore-Id", m.ID, "Lore-Kind", "memory"))
		return nil
	})
	if err != nil {
		return Memory{}, nil, err
	}
	return m, res, nil
}

// DeleteMemory removes the memory's block from memories.md, as one
// commit: the block list and show read (the first valid one with that id),
// never a later duplicate; the commit says which line it was. It returns
// a NotFoundError when no block has that id.
func (s *Store) DeleteMemory(id string) (Memory, *WriteResult, error) {
	if !ValidMemoryID(id) {
		return Memory{}, nil, notFound(KindMemory, id)
	}
	var deleted Memory
	res, err := s.write(func(tx *storeTx) error {
		// The memory is looked for where the commit starts from, then on
		// disk (a memory added by hand and not committed yet): a write
		// that failed cannot make it "not found".
		var f *memoriesFile
		var block MemoryBlock
		found := false
		for _, r := range []Reader{tx, tx.worktree()} {
			data, _, err := r.Read(MemoriesPath)
			if err != nil {
				return err
			}
			f = parseMemoriesFile(data, MemoriesPath)
			if block, found = f.shownBlock(id); found {
				break
			}
		}
		if !found {
			return notFound(KindMemory, id)
		}
		deleted = Memory{ID: id}
		for _, m := range f.memories {
			if m.ID == id {
				deleted = m
				break
			}
		}
		where := fmt.Sprintf("Removed the block at %s:%d", MemoriesPath, block.Line)
		for _, b := range f.blocks {
			if b.ID == id && b.Line != block.Line {
				where += fmt.Sprintf("; another block with this id, at line %d before this commit, stays", b.Line)
				break
			}
		}
		tx.apply(storeEdit{Path: MemoriesPath, Op: opRemoveMemory, ID: id})
		kind := "memory"
		if deleted.Type != "" {
			kind = string(deleted.Type)
		}
		tx.message(commitMessage("lore: delete "+kind+" "+id, where+".\n\n"+deleted.Content, "Lore-Id", id, "Lore-Kind", "memory"))
		return nil
	})
	if err != nil {
		return Memory{}, nil, err
	}
	return deleted, res, nil
}
