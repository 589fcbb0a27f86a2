package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"lore/internal/gitx"
	"lore/internal/gitx/gitconfig"
	"lore/mdstore"
)

// Git merges lore's files with lore's merge driver (package
// mdstore/merge, run as `lore merge-driver`) when two things are in
// place: .gitattributes, committed, sends the files to the driver named
// "lore"; and each clone's git configuration says what that driver runs.
// Without the configuration git falls back to its own line merge.
const (
	MergeDriver        = "lore"
	mergeDriverCommand = "lore merge-driver %O %A %B %P"
)

// MergeAttributes are the .gitattributes lines for lore's files.
var MergeAttributes = []string{
	mdstore.MemoriesPath + " merge=" + MergeDriver,
	mdstore.Dir + "/**/*.md merge=" + MergeDriver,
}

const attributesComment = "# lore: merge memory files entry by entry (lore merge-driver)"

// AttributesEdit adds the MergeAttributes lines .gitattributes lacks, at
// its end, keeping everything else: the edit lore init and lore hooks
// install commit.
var AttributesEdit = mdstore.FileEdit{
	Path:    mdstore.AttributesPath,
	Subject: "merge memory files with lore's merge driver",
	Apply:   addAttributes,
}

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

// HasMergeAttributes reports whether .gitattributes, as it is on disk,
// holds every MergeAttributes line.
func HasMergeAttributes(s *mdstore.Store) (bool, error) {
	data, err := os.ReadFile(filepath.Join(s.Root(), mdstore.AttributesPath))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return addAttributes(data) == nil, nil
}

// RegisterMergeDriver sets [merge "lore"] in the clone's git configuration
// (.git/config): git then runs `lore merge-driver` for the files
// .gitattributes sends to it. It reports whether the configuration
// changed.
func RegisterMergeDriver(repo *gitx.Repo) (bool, error) {
	return repo.SetLocalSection("merge", MergeDriver, []gitconfig.Setting{
		{Key: "name", Value: "lore: merge memory files entry by entry"},
		{Key: "driver", Value: mergeDriverCommand},
	})
}

// MergeDriverCommand is what git runs for lore's files in this clone, ""
// when no driver is configured.
func MergeDriverCommand(repo *gitx.Repo) string {
	v, _ := repo.Config("merge." + MergeDriver + ".driver")
	return v
}
