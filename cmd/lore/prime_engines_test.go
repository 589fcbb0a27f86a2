package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
)

// TestPrimeIsTheSameWithoutTheIndex: prime ranks its sections by the
// task's relevance, which lore-index answers, or a scan of the files
// where there is none (LORE_INDEX=off). Both follow one scoring rule, so
// prime prints the same, byte for byte, for tasks phrased as people and
// agents phrase them, on bench/recall's labelled store (issue 39).
func TestPrimeIsTheSameWithoutTheIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore-index")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if err := os.CopyFS(filepath.Join(dir, ".agent"), os.DirFS("../../bench/recall/store/.agent")); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, args := range [][]string{{"init", "-q", "-b", "main", "."}, {"add", "."}, {"-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "store"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	raw, err := os.ReadFile("../../bench/recall/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var queries []struct{ Query, Kind string }
	if err := json.Unmarshal(raw, &queries); err != nil {
		t.Fatal(err)
	}
	helper := loretest.Built(t).Index
	var stdout, stderr bytes.Buffer
	loreIndex := helper
	e := &env{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		now:    func() time.Time { return now },
		random: bytes.NewReader(bytes.Repeat([]byte("0123456789abcdef"), 4096)),
		getenv: func(k string) string {
			switch k {
			case "HOME":
				return dir
			case "LORE_INDEX":
				return loreIndex
			case "LORE_INDEX_BUILD":
				return "wait"
			}
			return ""
		},
		workDir: dir}
	lore := func(args ...string) string {
		t.Helper()
		stdout.Reset()
		stderr.Reset()
		if code := run(args, e); code != 0 {
			t.Fatalf("lore %v: exit %d\n%s%s", args, code, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	lore("index", "rebuild")
	if _, err := os.Stat(filepath.Join(dir, ".git", "lore", "index", "current")); err != nil {
		t.Fatalf("no index built: %v", err)
	}
	tasks := 0
	for i, q := range queries {
		// Tasks, paraphrases and pasted errors, every other one.
		if q.Kind != "task" && q.Kind != "paraphrase" && q.Kind != "error" || i%2 == 1 {
			continue
		}
		tasks++
		args := []string{"prime", "--title", q.Query, "--no-instructions", "--budget", "3000"}
		loreIndex = helper
		indexed := lore(args...)
		loreIndex = "off"
		scanned := lore(args...)
		if indexed != scanned {
			t.Errorf("prime --title %q differs without the index:\n--- index\n%s\n--- scan\n%s", q.Query, indexed, scanned)
		}
	}
	if tasks < 40 {
		t.Fatalf("%d tasks", tasks)
	}
}
