package gitx

import (
	"os"
	"path/filepath"
	"time"

	"lore/internal/fsx"
)

// UpdateFiles is Update for a directory that is not in a git repository:
// the edits are applied to the files under root alone. The lock file
// lockTarget+".lock" serialises concurrent writers.
func UpdateFiles(root, lockTarget string, opts Options, build func(*Tx) error) (*Result, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 5 * time.Second
	}
	if err := os.MkdirAll(filepath.Dir(lockTarget), 0o755); err != nil {
		return nil, err
	}
	lock, err := acquireLock(lockTarget, opts.LockTimeout)
	if err != nil {
		return nil, err
	}
	defer lock.rollback()
	tx := &Tx{root: root}
	if err := build(tx); err != nil {
		return nil, err
	}
	for _, e := range tx.edits {
		if err := checkWritable(root, e.path); err != nil {
			return nil, err
		}
	}
	for _, e := range tx.edits {
		full := filepath.Join(root, filepath.FromSlash(e.path))
		old, exists, err := tx.ReadWorktreeFile(e.path)
		if err != nil {
			return nil, err
		}
		data, keep, err := e.fn(old, exists)
		if err != nil {
			return nil, err
		}
		switch {
		case !keep && exists:
			if err := os.Remove(full); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		case keep && (!exists || string(data) != string(old)):
			if err := fsx.WriteFile(full, data, fsx.SyncAll); err != nil {
				return nil, err
			}
		}
	}
	return &Result{Mode: ModeFiles}, nil
}
