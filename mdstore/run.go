package mdstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lore/internal/fsx"
	"lore/mdstore/entry"
)

// runFile holds the clone's current run: where journal entries go when
// none is named.
func (s *Store) runFile() string { return filepath.Join(s.StateDir(), "current-run") }

// CurrentRun is the run journal entries go to when none is named, "" if
// no run was started in this clone.
func (s *Store) CurrentRun() (string, error) {
	data, err := os.ReadFile(s.runFile())
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read current run: %w", err)
	}
	run := strings.TrimSpace(string(data))
	if !entry.ValidRunID(run) {
		return "", nil
	}
	return run, nil
}

// StartRun makes name (or a new run-{8 hex} when name is "") the current
// run of this clone.
func (s *Store) StartRun(name string) (string, error) {
	if name == "" {
		var err error
		if name, err = entry.NewRunID(s.random); err != nil {
			return "", err
		}
	} else if err := entry.RefuseSecretIn("run", name); err != nil {
		return "", err
	} else if !entry.ValidRunID(name) {
		return "", &entry.InputError{Field: "run", Msg: fmt.Sprintf("run name %q may only hold lowercase letters, digits, '.', '_' and '-'", name)}
	}
	if err := fsx.WriteFile(s.runFile(), []byte(name+"\n"), fsx.SyncAll); err != nil {
		return "", err
	}
	return name, nil
}

// NewIngestKey makes an idempotency key for one invocation's iteration
// (IngestInput.Key): prefix and 8 random bytes in hex.
func (s *Store) NewIngestKey(prefix string) (string, error) {
	return entry.NewID(s.random, prefix, 8, nil, "")
}

// currentOrNewRun returns the current run, starting one if there is none.
func (s *Store) currentOrNewRun() (string, bool, error) {
	run, err := s.CurrentRun()
	if err != nil || run != "" {
		return run, false, err
	}
	run, err = s.StartRun("")
	return run, true, err
}
