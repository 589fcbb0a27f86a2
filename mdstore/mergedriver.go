package mdstore

import (
	"bytes"
	"errors"
	"strings"

	"lore/internal/gitx"
)

// Git merges lore's files with lore's merge driver (package merge) when two
// things are in place: .gitattributes, committed, sends the files to the
// driver named "lore"; and each clone's git configuration says what that
// driver runs. Without the configuration git falls back to its own merge.
const (
	MergeDriver        = "lore"
	mergeDriverCommand = "lore merge-driver %O %A %B %P"
)

// MergeAttributes are the .gitattributes lines for lore's files.
var MergeAttributes = []string{
	MemoriesPath + " merge=" + MergeDriver,
	Dir + "/**/*.md merge=" + MergeDriver,
}

const attributesComment = "# lore: merge memory files entry by entry (lore merge-driver)"

// addAttributes returns .gitattributes with the MergeAttributes lines it
// lacks added at its end, everything else kept; nil when none is missing.
func addAttributes(old []byte) []byte {
	have := map[string]bool{}
	for _, line := range strings.Split(string(old), "\n") {
		have[strings.Join(strings.Fields(line), " ")] = true
	}
	var missing []string
	for _, line := range MergeAttributes {
		if !have[line] {
			missing = append(missing, line)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	out := bytes.Clone(old)
	if len(out) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if !have[attributesComment] {
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, attributesComment+"\n"...)
	}
	for _, line := range missing {
		out = append(out, line+"\n"...)
	}
	return out
}

// AddMergeAttributes makes the store's .gitattributes send its files to
// lore's merge driver, in one commit of that file alone; changed is false
// when the lines were all there.
func (s *Store) AddMergeAttributes() (changed bool, res *WriteResult, err error) {
	res, err = s.write(func(tx *storeTx) error {
		data, _, err := tx.read(AttributesPath)
		if err != nil {
			return err
		}
		if addAttributes(data) == nil {
			return nil
		}
		changed = true
		tx.edit(AttributesPath, func(old []byte, _ bool) ([]byte, bool, error) {
			if next := addAttributes(old); next != nil {
				return next, true, nil
			}
			return old, true, nil
		})
		tx.message(commitMessage("lore: merge memory files with lore's merge driver", "", "Lore-Kind", "store"))
		return nil
	})
	return changed, res, err
}

// HasMergeAttributes reports whether the store's .gitattributes, as it is
// on disk, holds every MergeAttributes line.
func (s *Store) HasMergeAttributes() (bool, error) {
	text, err := s.readFileText(AttributesPath)
	if err != nil {
		return false, err
	}
	return addAttributes([]byte(text)) == nil, nil
}

// ErrNoRepository is returned by what only works in a git repository.
var ErrNoRepository = errors.New("mdstore: not in a git repository")

// RegisterMergeDriver sets [merge "lore"] in the clone's git configuration
// (.git/config): git then runs `lore merge-driver` for the files
// .gitattributes sends to it. It reports whether the configuration
// changed.
func (s *Store) RegisterMergeDriver() (bool, error) {
	if s.repo == nil {
		return false, ErrNoRepository
	}
	return s.repo.SetLocalSection("merge", MergeDriver, []gitx.ConfigSetting{
		{Key: "name", Value: "lore: merge memory files entry by entry"},
		{Key: "driver", Value: mergeDriverCommand},
	})
}

// UnregisterMergeDriver removes [merge "lore"] from the clone's git
// configuration.
func (s *Store) UnregisterMergeDriver() (bool, error) {
	if s.repo == nil {
		return false, ErrNoRepository
	}
	return s.repo.RemoveLocalSection("merge", MergeDriver)
}

// MergeDriverCommand is what git runs for lore's files in this clone, ""
// when no driver is configured.
func (s *Store) MergeDriverCommand() string {
	if s.repo == nil {
		return ""
	}
	v, _ := s.repo.Config("merge." + MergeDriver + ".driver")
	return v
}

// HooksDir is where git looks for this repository's hooks ("" outside
// git): core.hooksPath, or .git/hooks.
func (s *Store) HooksDir() string {
	if s.repo == nil {
		return ""
	}
	return s.repo.HooksDir()
}
