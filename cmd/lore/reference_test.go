package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/internal/loretest"
)

// repoRoot is the repository's top, seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

// TestCommandReference: docs/reference.md and docs/commands/*.md are what
// the command tree generates (referencePages). A command whose Usage,
// UsageText, Description or flags changed without the pages fails here;
// go test ./cmd/lore -run TestCommandReference -update rewrites them, and
// removes the page of a command that is gone.
func TestCommandReference(t *testing.T) {
	withoutLoreRoot(t)
	e, _, _ := testEnv(t.TempDir())
	pages := referencePages(newApp(e))
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		path := filepath.Join(repoRoot, filepath.FromSlash(name))
		if loretest.Updating() {
			loretest.Golden(t, path, pages[name])
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (go test ./cmd/lore -run TestCommandReference -update writes it)", name, err)
			continue
		}
		if line, got, was, differ := firstDifference(pages[name], string(want)); differ {
			t.Errorf("%s is stale: line %d is\n\t%q\nwhere the command tree gives\n\t%q\n(go test ./cmd/lore -run TestCommandReference -update rewrites it)",
				name, line, was, got)
		}
	}
	files, _ := filepath.Glob(filepath.Join(repoRoot, referenceDir, "commands", "*.md"))
	for _, f := range files {
		name := referenceDir + "/commands/" + filepath.Base(f)
		if _, ok := pages[name]; ok {
			continue
		}
		if loretest.Updating() {
			os.Remove(f)
		} else {
			t.Errorf("%s: no such command any more (go test ./cmd/lore -run TestCommandReference -update removes the page)", name)
		}
	}
}

// firstDifference is the first line (from 1) where got and want differ,
// with both versions of it.
func firstDifference(got, want string) (line int, g, w string, differ bool) {
	if got == want {
		return 0, "", "", false
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; ; i++ {
		switch {
		case i >= len(gl):
			return i + 1, "(end of file)", wl[i], true
		case i >= len(wl):
			return i + 1, gl[i], "(end of file)", true
		case gl[i] != wl[i]:
			return i + 1, gl[i], wl[i], true
		}
	}
}
