package loretest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Programs are lore's binaries built from the module's sources, for tests
// that run them as separate processes, as an orchestrator or a person
// would. They are built once for every test package of a run: `go test
// ./...` runs its packages as processes of their own, some at the same
// time, and each asks for the same binaries.
type Programs struct {
	// Lore is lore alone in its directory: it finds no lore-index,
	// lore-sqlite or lore-mcp beside it (they may still be on PATH).
	Lore string
	// Dir holds the four together: Dir/lore finds its helpers beside it.
	Dir                string
	Index, SQLite, MCP string // lore-index, lore-sqlite and lore-mcp in Dir
}

// programs is what Build found or built, once per test binary.
var programs struct {
	once sync.Once
	p    Programs
	err  error
}

// Built returns lore's programs (see Build), failing the test if they
// cannot be built.
func Built(t testing.TB) Programs {
	t.Helper()
	p, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Build returns lore's programs, building them the first time any test
// binary asks for them: into a directory named after a hash of the Go
// toolchain, its settings and the sources the programs are built from
// (sourcesKey), under the user's cache directory. The directory is built
// aside and renamed into place, under a file lock, so that test packages
// asking at once build it once; a later run with the same sources finds
// it. Directories of sources not used for a week are removed when another
// is built.
func Build() (Programs, error) {
	programs.once.Do(func() { programs.p, programs.err = build() })
	return programs.p, programs.err
}

var programNames = []string{"lore", "lore-index", "lore-sqlite", "lore-mcp"}

func build() (Programs, error) {
	root, err := moduleRoot()
	if err != nil {
		return Programs{}, err
	}
	key, err := sourcesKey(root)
	if err != nil {
		return Programs{}, err
	}
	cache, err := os.UserCacheDir()
	if err != nil || os.MkdirAll(cache, 0o755) != nil {
		cache = os.TempDir()
	}
	parent := filepath.Join(cache, "lore-test-programs")
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return Programs{}, err
	}
	final := filepath.Join(parent, key)
	p := Programs{Lore: filepath.Join(final, "alone", "lore"), Dir: filepath.Join(final, "all")}
	p.Index, p.SQLite, p.MCP = filepath.Join(p.Dir, "lore-index"), filepath.Join(p.Dir, "lore-sqlite"), filepath.Join(p.Dir, "lore-mcp")
	if _, err := os.Stat(final); err == nil {
		now := time.Now()
		os.Chtimes(final, now, now) // in use: not removed as unused
		return p, nil
	}
	unlock, err := lockFile(final + ".lock")
	if err != nil {
		return Programs{}, err
	}
	defer unlock()
	if _, err := os.Stat(final); err == nil { // built by another package meanwhile
		return p, nil
	}
	tmp, err := os.MkdirTemp(parent, key+".tmp-")
	if err != nil {
		return Programs{}, err
	}
	defer os.RemoveAll(tmp) // gone once renamed
	args := []string{"build", "-buildvcs=false", "-o", filepath.Join(tmp, "all") + string(filepath.Separator)}
	for _, name := range programNames {
		args = append(args, "./cmd/"+name)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return Programs{}, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	if err := os.Mkdir(filepath.Join(tmp, "alone"), 0o755); err != nil {
		return Programs{}, err
	}
	if err := linkOrCopy(filepath.Join(tmp, "all", "lore"), filepath.Join(tmp, "alone", "lore")); err != nil {
		return Programs{}, err
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Stat(final); serr == nil {
			return p, nil // built and renamed by another package that did not see this one's lock
		}
		return Programs{}, err
	}
	removeUnused(parent, key, 7*24*time.Hour)
	return p, nil
}

// moduleRoot is the directory of lore's go.mod, above the test's own
// directory (go test runs a test in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(data, []byte("module lore\n")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("loretest: no go.mod of module lore above the test's directory")
		}
		dir = up
	}
}

// sourcesKey hashes what the programs are built from: the toolchain and
// its settings, go.mod, go.sum (which names the content of every module
// they use), and the files of every package of the module they are built
// from (go list -deps: an edit of a test, of a test helper or of bench
// changes nothing), by path and content.
func sourcesKey(root string) (string, error) {
	h := sha256.New()
	goenv, err := exec.Command("go", "env", "GOVERSION", "GOOS", "GOARCH", "GOFLAGS", "CGO_ENABLED", "GOEXPERIMENT", "GOAMD64", "GOARM64").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %v", err)
	}
	h.Write(goenv)
	args := []string{"list", "-deps", "-f", "{{if and .Module .Module.Main}}{{.Dir}}{{range .GoFiles}}\t{{.}}{{end}}" +
		"{{range .CgoFiles}}\t{{.}}{{end}}{{range .SFiles}}\t{{.}}{{end}}{{range .CFiles}}\t{{.}}{{end}}" +
		"{{range .HFiles}}\t{{.}}{{end}}{{range .EmbedFiles}}\t{{.}}{{end}}{{end}}"}
	for _, name := range programNames {
		args = append(args, "./cmd/"+name)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	list, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	files := []string{filepath.Join(root, "go.mod"), filepath.Join(root, "go.sum")}
	for _, line := range strings.Split(string(list), "\n") {
		if dir, names, ok := strings.Cut(line, "\t"); ok {
			for _, name := range strings.Split(names, "\t") {
				files = append(files, filepath.Join(dir, name))
			}
		}
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil && !(errors.Is(err, fs.ErrNotExist) && filepath.Dir(p) == root) {
			return "", err
		}
		rel, _ := filepath.Rel(root, p)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

// linkOrCopy makes to a hard link of from, or a copy where links cannot
// be made.
func linkOrCopy(from, to string) error {
	if os.Link(from, to) == nil {
		return nil
	}
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

// removeUnused removes the programs of other sources not used for age.
func removeUnused(parent, keep string, age time.Duration) {
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		name := e.Name()
		if name == keep || name == keep+".lock" || !e.IsDir() && !strings.HasSuffix(name, ".lock") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > age {
			os.RemoveAll(filepath.Join(parent, name))
		}
	}
}
