package archtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// pkg is what go list says of a package of the module.
type pkg struct {
	Doc        string // the first sentence of its package comment
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "lore/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func lines(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

// layers are docs/architecture.md's layers, lowest first: a package may
// import one of its own layer or below, never one above. Within a layer,
// the arrows of the picture (index/bleveindex imports index/fresh, which
// imports index) are left to go's rule against cycles.
var layers = [][]string{
	{"lore/internal/fsx", "lore/internal/words", "lore/internal/thesaurus", "lore/internal/diff3", "lore/internal/markdown", "lore/internal/sibling", "lore/internal/loretest", "lore/secrets", "lore/sigils", "lore/agentout", "lore/progress"},
	{"lore/internal/gitx/gitindex", "lore/internal/gitx/gitconfig", "lore/internal/gitx", "lore/internal/storewatch", "lore/internal/neardup"},
	{"lore/mdstore/entry/yamlfm"},
	{"lore/mdstore/entry"},
	{"lore/mdstore/config", "lore/mdstore/merge", "lore/mdstore/catalog", "lore/mdstore/cites"},
	{"lore/mdstore"},
	{"lore/usagelog", "lore/strategy", "lore/hooks", "lore/provenance", "lore/index", "lore/index/fresh", "lore/index/bleveindex", "lore/index/indextest"},
	{"lore/mdstore/lifecycle", "lore/mdstore/history", "lore/mdstore/resolve", "lore/prompt", "lore/stats", "lore/progressdb", "lore/remote"},
	{"lore/loop"},
	{"lore/mcpserver"},
}

func layerOf(path string) int {
	for i, l := range layers {
		if slices.Contains(l, path) {
			return i
		}
	}
	return -1
}

// TestImportsPointDown: no package imports one of a layer above its own;
// every package of the module has a layer (or is a command, or the
// benchmarks).
func TestImportsPointDown(t *testing.T) {
	for _, p := range listPackages(t) {
		if strings.HasPrefix(p.ImportPath, "lore/cmd/") || strings.HasPrefix(p.ImportPath, "lore/bench") || p.ImportPath == "lore/internal/archtest" {
			continue
		}
		from := layerOf(p.ImportPath)
		if from < 0 {
			t.Errorf("%s has no layer: add it to docs/architecture.md's picture and to layers here", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if to := layerOf(imp); to > from {
				t.Errorf("%s imports %s, a layer above it", p.ImportPath, imp)
			}
			if imp == "github.com/urfave/cli/v2" {
				t.Errorf("%s imports urfave/cli: only cmd/ knows about flags", p.ImportPath)
			}
		}
	}
}

// TestPackageSizes: no package outside cmd/ and bench/ but internal/gitx
// holds more than 4,000 lines of code, and no file of cmd/lore more than
// 400: a package that grows splits by what its parts own, and cmd/lore is
// flags, one call, and rendering.
func TestPackageSizes(t *testing.T) {
	for _, p := range listPackages(t) {
		n := 0
		for _, f := range p.GoFiles {
			c := lines(t, filepath.Join(p.Dir, f))
			n += c
			if p.ImportPath == "lore/cmd/lore" && c > 400 {
				t.Errorf("cmd/lore/%s has %d lines, more than 400", f, c)
			}
		}
		if strings.HasPrefix(p.ImportPath, "lore/cmd/") || strings.HasPrefix(p.ImportPath, "lore/bench") || p.ImportPath == "lore/internal/gitx" {
			continue
		}
		if n > 4000 {
			t.Errorf("%s has %d lines of code, more than 4,000", p.ImportPath, n)
		}
	}
}

// TestFrontEndsCallThePackages: the MCP server answers in process — it
// never runs the lore CLI.
func TestFrontEndsCallThePackages(t *testing.T) {
	for _, p := range listPackages(t) {
		if p.ImportPath == "lore/mcpserver" && slices.Contains(p.Imports, "os/exec") {
			t.Errorf("mcpserver imports os/exec: a tool call runs a process instead of calling the packages")
		}
	}
}

// TestEveryPackageSaysWhatItOwns: every package opens with a package
// comment.
func TestEveryPackageSaysWhatItOwns(t *testing.T) {
	for _, p := range listPackages(t) {
		if strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s has no package comment: say what it owns in a doc.go", p.ImportPath)
		}
	}
}

// TestLoreLinksNoHeavyPackages: what the lore binary links, every one of
// its commands pays for at start-up. bleve (10–15 ms), the SQLite driver
// and the MCP SDK live in binaries of their own; package net would make
// lore a dynamically linked program (its cgo resolver: 1.5–2.5 ms more
// for every lore add), so lore reaches a resident lore-index's socket
// with system calls.
func TestLoreLinksNoHeavyPackages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "lore/cmd/lore").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, heavy := range []string{"net", "github.com/blevesearch/bleve/v2", "modernc.org/sqlite", "github.com/modelcontextprotocol/go-sdk/mcp"} {
		if slices.Contains(deps, heavy) {
			t.Errorf("lore links %s", heavy)
		}
	}
}
