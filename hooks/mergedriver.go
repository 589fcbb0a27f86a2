package hooks

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/internal/gitx/gitconfig"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// Git merges lore's files with lore's merge driver (package
// mdstore/merge, run as `lore merge-driver`) when two things are in
// place: .gitattributes, committed, sends the files to the driver named
// "lore"; and each clone's git configuration says what that driver runs.
// Without the configuration git falls back to its own line merge.
const MergeDriver = "lore"

// legacyDriverCommand is how lore registered its driver before it
// recorded which lore to run: by name, which fails where git runs without
// lore on its PATH — git then reports a conflict and leaves ours alone,
// without markers, and resolving it drops the other side.
const legacyDriverCommand = "lore merge-driver %O %A %B %P"

// mergeDriverCommand is the driver's command line in git's configuration
// (run by sh, with git's %O %A %B %P put in): the lore at path (recorded
// with LoreBinary, "" for none), else lore on PATH (FindLore's code);
// with neither, or when lore could not merge (an exit status above 1: it
// did not start, or failed before writing; 1 is a merge with conflicts
// left), git merge-file merges by lines and leaves conflict markers
// around both sides: a missing lore never leaves ours alone.
// With git merge-file's markers in it, the file is left in conflict, and
// the driver's message names lore resolve, which merges it again entry by
// entry from git's stages once lore is there.
func mergeDriverCommand(path string) string {
	return driverCommand(path, "; lore resolve merges it entry by entry once lore is installed")
}

// driverCommand is mergeDriverCommand with what its message says after
// "by lines" ("" in the command lore registered before lore resolve).
func driverCommand(path, after string) string {
	lines := findLoreLines(strings.ReplaceAll(path, "%", "%%")) // git expands % in the command
	return strings.Join(lines, "; ") + "; " +
		`if [ -n "$lore_bin" ]; then "$lore_bin" merge-driver %O %A %B %P; lore_status=$?; ` +
		`[ $lore_status -le 1 ] && exit $lore_status; ` +
		`echo "lore merge-driver failed (exit status $lore_status): git merge-file merges" %P "by lines" >&2; ` +
		`else echo "no lore at ${lore_want:-a recorded path} nor on PATH to run lore merge-driver: git merge-file merges" %P "by lines` + after + `" >&2; fi; ` +
		`git merge-file -L ours -L base -L theirs %A %O %B`
}

// previousDriverCommand is the command lore registered before its message
// named lore resolve: lore's own, updated by CheckMergeDriver.
func previousDriverCommand(path string) string { return driverCommand(path, "") }

// DriverLore reads a registered driver command: the lore it records, and
// whether it is lore's current command at all (false for a command of
// someone else's, or lore's registration by name).
func DriverLore(command string) (string, bool) {
	rest, ok := strings.CutPrefix(command, "lore_want=")
	if !ok {
		return "", false
	}
	quoted, ok := cutShellWord(rest)
	if !ok {
		return "", false
	}
	path, ok := shellUnquote(quoted)
	path = strings.ReplaceAll(path, "%%", "%")
	return path, ok && (command == mergeDriverCommand(path) || command == previousDriverCommand(path))
}

// MergeAttributes are the .gitattributes lines for lore's files.
var MergeAttributes = []string{
	entry.MemoriesPath + " merge=" + MergeDriver,
	entry.Dir + "/**/*.md merge=" + MergeDriver,
}

const attributesComment = "# lore: merge memory files entry by entry (lore merge-driver)"

// AttributesEdit adds the MergeAttributes lines .gitattributes lacks, at
// its end, keeping everything else: the edit lore init and lore hooks
// install commit.
var AttributesEdit = mdstore.FileEdit{
	Path:    entry.AttributesPath,
	Subject: "merge memory files with lore's merge driver",
	Apply:   addAttributes,
}

// addAttributes returns .gitattributes with the MergeAttributes lines it
// lacks added at its end, everything else kept; nil when none is missing.
func addAttributes(old []byte) []byte { return addLines(old, attributesComment, MergeAttributes) }

// addLines returns old with the lines it lacks added at its end, after
// comment, everything else kept; nil when none is missing.
func addLines(old []byte, comment string, lines []string) []byte {
	have := map[string]bool{}
	for _, line := range strings.Split(string(old), "\n") {
		have[strings.Join(strings.Fields(line), " ")] = true
	}
	var missing []string
	for _, line := range lines {
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
	if !have[comment] {
		if len(out) > 0 {
			out = append(out, '\n')
		}
		out = append(out, comment+"\n"...)
	}
	for _, line := range missing {
		out = append(out, line+"\n"...)
	}
	return out
}

// HasMergeAttributes reports whether .gitattributes, as it is on disk,
// holds every MergeAttributes line.
func HasMergeAttributes(s *mdstore.Store) (bool, error) {
	data, err := os.ReadFile(filepath.Join(s.Root(), entry.AttributesPath))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return addAttributes(data) == nil, nil
}

// RegisterMergeDriver sets [merge "lore"] in the clone's git configuration
// (.git/config): git then runs `lore merge-driver` for the files
// .gitattributes sends to it, through the lore at lore (LoreBinary's
// path, "" when it cannot be told: lore on PATH). It reports whether the
// configuration changed.
func RegisterMergeDriver(repo *gitx.Repo, lore string) (bool, error) {
	return repo.SetLocalSection("merge", MergeDriver, []gitconfig.Setting{
		{Key: "name", Value: "lore: merge memory files entry by entry"},
		{Key: "driver", Value: mergeDriverCommand(lore)},
	})
}

// RegisteredMergeDriver is what git runs for lore's files in this clone,
// "" when no driver is configured.
func RegisteredMergeDriver(repo *gitx.Repo) string {
	v, _ := repo.Config("merge." + MergeDriver + ".driver")
	return v
}

// DriverFix is what CheckMergeDriver found wrong with a clone's
// registration of the merge driver.
type DriverFix string

const (
	DriverKept     DriverFix = ""         // nothing
	DriverAdded    DriverFix = "added"    // the clone had none (a fresh clone)
	DriverUpgraded DriverFix = "upgraded" // it ran lore by name (legacyDriverCommand)
	DriverRepaired DriverFix = "repaired" // the lore it recorded is gone
	DriverGoRun    DriverFix = "go run"   // the lore it recorded is a build of go run (GoRunBuild)
	DriverUpdated  DriverFix = "updated"  // it was lore's previous command (previousDriverCommand)
)

// DriverCheck is what CheckMergeDriver did.
type DriverCheck struct {
	Fix DriverFix
	// Was is the lore the registration it replaced recorded (Repaired,
	// GoRun).
	Was string
	// Err says why the driver could not be registered; it is set once
	// per clone (until a registration succeeds), so that a person is told
	// once how to do it, not by every command.
	Err error
}

// CheckMergeDriver makes the clone's configuration run lore's merge
// driver when .gitattributes at the store's root sends files to it: a
// fresh clone (a teammate's, a CI runner's) has the attributes, committed,
// and no driver, so git would merge memories.md line by line and stop on
// a conflict. It registers the driver as lore init does, with the
// running lore's LoreBinary path (what lore returns, asked only then),
// when the configuration has none, runs lore by name, or records a lore
// that is gone or that go run built (which the go command soon removes or
// replaces: lore on PATH replaces it); a driver of someone else's is left
// alone. Nothing is committed. A clone whose driver is in order costs a lookup in the
// configuration and a stat of the lore it records.
func CheckMergeDriver(s *mdstore.Store, lore func() string) DriverCheck {
	if s.Repo() == nil {
		return DriverCheck{}
	}
	var c DriverCheck
	switch current := RegisteredMergeDriver(s.Repo()); {
	case current == "":
		c.Fix = DriverAdded
	case current == legacyDriverCommand:
		c.Fix = DriverUpgraded
	default:
		recorded, ours := DriverLore(current)
		switch {
		case !ours:
			return DriverCheck{}
		case recorded != "" && GoRunBuild(recorded):
			c.Fix, c.Was = DriverGoRun, recorded
		case recorded != "" && !LoreFound(recorded):
			c.Fix, c.Was = DriverRepaired, recorded
		case current == previousDriverCommand(recorded):
			c.Fix, c.Was = DriverUpdated, recorded
		default:
			return DriverCheck{}
		}
	}
	if assigned, err := assignsMergeDriver(s); err != nil || !assigned {
		return DriverCheck{} // no attributes, no driver needed; unreadable ones are validate's to report
	}
	var running string
	switch c.Fix {
	case DriverUpdated:
		running = c.Was // the same lore, a newer command
	case DriverRepaired:
		if running = lore(); running == "" || running == c.Was {
			return DriverCheck{} // nothing better to record
		}
	default:
		running = lore()
	}
	told := filepath.Join(s.StateDir(), "merge-driver-unregistered")
	if _, err := RegisterMergeDriver(s.Repo(), running); err != nil {
		if _, statErr := os.Lstat(told); statErr == nil {
			return DriverCheck{} // said before
		}
		if os.MkdirAll(filepath.Dir(told), 0o755) == nil {
			_ = os.WriteFile(told, nil, 0o644) // if it cannot be kept, it is said again next time
		}
		c.Err = err
		return c
	}
	_ = os.Remove(told)
	return c
}

// assignsMergeDriver reports whether .gitattributes at the store's root
// sends some files to lore's merge driver.
func assignsMergeDriver(s *mdstore.Store) (bool, error) {
	data, err := fsx.ReadRegular(filepath.Join(s.Root(), entry.AttributesPath), 1<<20)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, attr := range fields[1:] {
			if attr == "merge="+MergeDriver {
				return true, nil
			}
		}
	}
	return false, nil
}
