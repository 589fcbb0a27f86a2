package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
)

// TestImportProgressOnlyOnATerminal: lore import DIR names what it reads
// and what it writes on stderr when stderr is a terminal, and says
// nothing there otherwise; the commit's subject never holds the absolute
// path of a source outside the repository (a user's home directory would
// be in shared history), as C git sees.
func TestImportProgressOnlyOnATerminal(t *testing.T) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	src := filepath.Join(t.TempDir(), "home", "someone", "project")
	os.MkdirAll(filepath.Join(src, ".beads", "backup"), 0o755)
	os.WriteFile(filepath.Join(src, ".beads", "backup", "config.jsonl"), []byte(`{"key":"kv.memory.auth-jwt","value":"auth module uses JWT not sessions"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(src, "CLAUDE.md"), []byte("# P\n\n## Build\n\nRun make.\n"), 0o644)

	for _, terminal := range []bool{false, true} {
		var stdout, stderr bytes.Buffer
		clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		e := &env{
			stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
			now:     func() time.Time { clock = clock.Add(time.Second); return clock },
			random:  bytes.NewReader(bytes.Repeat([]byte{0x5e, 0xc2, 0xe7, 0x15}, 256)),
			getenv:  r.Getenv,
			workDir: r.Dir, stderrTerminal: terminal,
		}
		if code := run([]string{"import", src}, e); code != exitOK {
			t.Fatalf("lore import: exit %d\n%s", code, stderr.String())
		}
		switch {
		case !terminal && stderr.Len() > 0:
			t.Errorf("stderr is not a terminal, yet lore import wrote there:\n%s", stderr.String())
		case terminal && (!strings.Contains(stderr.String(), "read "+filepath.Join(src, "CLAUDE.md")) || !strings.Contains(stderr.String(), "\rlore: importing 2/2 entries\n")):
			t.Errorf("on a terminal, lore import named neither what it read nor what it writes:\n%s", stderr.String())
		}
	}
	if got := r.Git("log", "-1", "--format=%B"); strings.Contains(got, "home/someone") || !strings.HasPrefix(got, "lore: import 2 entries from project\n") {
		t.Errorf("the commit says:\n%s", got)
	}
	r.AssertClean()
	r.AssertHealthy()
}
