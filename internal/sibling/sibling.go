// Package sibling finds the programs lore runs for the work it keeps out of
// its own binary (lore-index, lore-sqlite): installed next to the running
// program, as go install ./cmd/... puts them, or else on PATH.
package sibling

import (
	"os"
	"os/exec"
	"path/filepath"
)

// Find returns the path of the program name: the file of that name in the
// running program's directory, else name on PATH. ok is false when
// neither is there.
func Find(name string) (path string, ok bool) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, true
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	return "", false
}
