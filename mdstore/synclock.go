package mdstore

import (
	"os"
	"path/filepath"

	"lore/internal/fsx"
)

// lore sync pulls and pushes the branch with C git. A lore write that
// commits while git merges or rebases races it (see mergedrops.go), so
// lore sync holds the sync lock exclusively for as long as it runs, and
// every write holds it shared for as long as it commits: a write waits
// for no sync — it finds the lock taken and queues its change, which sync
// (or the next lore command) commits when it is over. The kernel drops
// the lock of a process that dies.

// syncingReason is why a write is queued while lore sync runs.
const syncingReason = "lore sync is bringing in the remote's changes; lore commits this after it"

// syncLockPath is the sync lock's file, in lore's state in the git
// directory.
func (s *Store) syncLockPath() string { return filepath.Join(s.StateDir(), "sync.lock") }

// holdForWrite takes the sync lock shared without waiting, for a write;
// free is false when a lore sync holds it. release lets go.
func (s *Store) holdForWrite() (release func(), free bool) {
	if s.repo == nil || s.syncing {
		return func() {}, true
	}
	f, err := os.OpenFile(s.syncLockPath(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return func() {}, true // no state directory yet: no sync either
	}
	ok, err := fsx.TryLock(f, false)
	if err != nil || !ok {
		f.Close()
		return func() {}, err != nil
	}
	return func() { f.Close() }, true
}

// BeginSync takes the sync lock exclusively, waiting for the writes in
// progress (config.yaml's lock_timeout at most): until end, other lore
// processes queue their changes, and this store's own writes go on.
func (s *Store) BeginSync() (end func(), err error) {
	if err := os.MkdirAll(s.StateDir(), 0o755); err != nil {
		return nil, err
	}
	unlock, err := fsx.Lock(s.syncLockPath(), true, s.config.LockTimeout)
	if err != nil {
		return nil, err
	}
	s.syncing = true
	return func() {
		s.syncing = false
		unlock()
	}, nil
}
