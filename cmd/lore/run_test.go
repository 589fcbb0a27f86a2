package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
	"lore/strategy"
)

// testEnv is an env with in-memory streams, a fixed clock and a fixed id
// source, working in dir.
func testEnv(dir string) (*env, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	clock := time.Date(2025, 1, 20, 12, 0, 0, 0, time.UTC)
	return &env{
		stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		now:    func() time.Time { clock = clock.Add(time.Minute); return clock },
		random: bytes.NewReader(bytes.Repeat([]byte{0xa1, 0xb2, 0xc3, 0xd4}, 16)),
		getenv: func(k string) string {
			switch k {
			case "HOME":
				return dir
			case "LORE_INDEX_BUILD":
				return "wait" // a search's index build ends before the test removes dir
			}
			return ""
		},
		workDir: dir,
	}, &stdout, &stderr
}

// TestRunFunctionsInProcess drives the run functions directly, as the
// flag wiring would, with deterministic ids and dates.
func TestRunFunctionsInProcess(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git := exec.Command("git", "init", "-q", "-b", "main", dir)
	git.Env = []string{"HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[user]\n\tname = In Process\n\temail = ip@example.com\n"), 0o644)
	e, stdout, stderr := testEnv(dir)
	g := globals{color: "never"}

	adds := []addOptions{
		{content: "This codebase uses barrel exports.", typ: "pattern", tags: "imports", format: "quiet"},
		{content: "Chose JSONL over SQLite: append-only.", typ: "decision", tags: "storage,architecture", format: "quiet"},
		{content: "ECONNREFUSED on 5432: start PostgreSQL.", typ: "fix", tags: "docker", format: "quiet"},
	}
	for _, a := range adds {
		if err := runAdd(e, g, a); err != nil {
			t.Fatal(err)
		}
	}
	if got := stdout.String(); got != "mem-1737374460-a1b2\nmem-1737374640-c3d4\nmem-1737374820-a1b2\n" {
		t.Fatalf("ids:\n%s", got)
	}
	stdout.Reset()
	if err := runList(e, g, listOptions{format: "table"}); err != nil {
		t.Fatal(err)
	}
	if err := runPrime(e, g, primeOptions{format: "markdown", budget: 60, set: map[string]bool{"budget": true}, noInstructions: true, loop: strategy.Input{Strategy: strategy.CostOptimized}}); err != nil {
		t.Fatal(err)
	}
	loretest.Golden(t, "testdata/run-list-and-prime.txt", stdout.String())
	if stderr.Len() != 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
	if !strings.Contains(stdout.String(), "_Left out to stay within the budget: 2 memories.") {
		t.Fatalf("stdout does not say what was left out: %s", stdout.String())
	}
	if err := runShow(e, g, showOptions{id: "mem-1-ffff", format: "table"}); exitCode(e, err) != exitFailure {
		t.Fatalf("show of a missing id: %v", err)
	}
}

// TestHookNeverExitsTwo: exit status 2 from a Claude Code Stop hook keeps
// Claude from stopping, so hook mode turns every failure, usage errors
// included, into status 1.
func TestHookNeverExitsTwo(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"ingest", "--hook", "claude", "--format", "yaml"},
		{"ingest", "--hook", "claude"},
		{"ingest", "--hook", "claude", "--iteration", "-1"},
	} {
		e, _, stderr := testEnv(dir)
		e.stdin = strings.NewReader(`{"session_id":"s","transcript_path":"/nonexistent.jsonl"}`)
		if code := run(args, e); code != exitFailure {
			t.Errorf("%v: exit %d (%s)", args, code, stderr)
		}
	}
	// Without --hook the same usage error is status 2.
	e, _, _ := testEnv(dir)
	if code := run([]string{"ingest", "x", "--format", "yaml"}, e); code != exitUsage {
		t.Errorf("exit %d", code)
	}
}
