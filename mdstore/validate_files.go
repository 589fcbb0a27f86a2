package mdstore

import (
	"lore/internal/gitx"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// ValidationFiles lists the store's files for Validate
// (catalog.ValidationFiles): from the worktree, or, with staged set, as
// the git index holds them.
func (s *Store) ValidationFiles(staged bool) ([]entry.File, error) {
	return catalog.ValidationFiles(s.root, s.repo, s.prefix, staged)
}

// SetAside lists the changes lore set aside (gitx.SetAside): a queued
// change it cannot commit, the record of a killed write it could neither
// finish nor undo.
func (s *Store) SetAside() ([]gitx.SetAsideRecord, error) {
	if s.repo == nil {
		return nil, nil
	}
	return gitx.SetAsideRecords(s.pendingDir())
}
