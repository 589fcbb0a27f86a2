package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"lore/hooks"
	"lore/strategy"
)

// A SessionStart hook's output is one JSON object whose context stays
// under Claude Code's limit however large the store, and says what was
// left out.
func TestPrimeHookStaysUnderClaudesLimit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, n := range []int{3, 400} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			dir := t.TempDir()
			if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
				t.Fatalf("git init: %v\n%s", err, out)
			}
			var b strings.Builder
			b.WriteString("# Memories\n\n## Patterns\n")
			for i := range n {
				// Words of its own (a%05dx…), so that no two are near-duplicates.
				fmt.Fprintf(&b, "\n### mem-17373%05d-%04x\n> Pattern number %d: \"quoted\" text\twith a tab, ünïcode, and a <tag> to escape in JSON, about a%05dx b%05dx c%05dx d%05dx.\n<!-- tags: t%d | created: 2025-01-20 -->\n", i, i, i, i, i, i, i, i%7)
			}
			os.MkdirAll(filepath.Join(dir, ".agent"), 0o755)
			os.WriteFile(filepath.Join(dir, ".agent", "memories.md"), []byte(b.String()), 0o644)

			e, stdout, stderr := testEnv(t.TempDir())
			e.stdin = strings.NewReader(`{"session_id":"AbC-123-def-456","cwd":"` + dir + `","hook_event_name":"SessionStart","source":"startup"}`)
			opts := primeOptions{hook: "claude", set: map[string]bool{}, loop: strategy.Input{Strategy: strategy.CostOptimized}}
			if err := runPrimeHook(e, globals{color: "never"}, opts); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			out := stdout.Bytes()
			if len(out) >= hooks.ClaudeOutputLimit || (n == 400 && len(out) < hooks.ClaudeOutputLimit*9/10) {
				t.Fatalf("%d characters, want under %d and, with much to show, near it", len(out), hooks.ClaudeOutputLimit)
			}
			var got struct {
				HookSpecificOutput struct {
					HookEventName     string `json:"hookEventName"`
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			ctx := got.HookSpecificOutput.AdditionalContext
			if got.HookSpecificOutput.HookEventName != "SessionStart" || !strings.HasPrefix(ctx, "## Memories\n") || !strings.Contains(ctx, "## Using Project Memory") {
				t.Fatalf("context:\n%s", ctx)
			}
			left := strings.Contains(ctx, "_Left out to stay within the budget:")
			if (n == 400) != left {
				t.Fatalf("%d memories: left-out line %v\n%s", n, left, ctx)
			}
		})
	}
}

// A SessionStart hook whose stdin holds no payload, or one lore cannot
// read, still primes the directory it runs in, and says why on one line
// of stderr when there was something to read.
func TestPrimeHookWithoutAPayload(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, ".agent"), 0o755)
	memories := "# Memories\n\n## Patterns\n\n### mem-1737300000-0001\n> Run the migrations before the tests.\n<!-- tags: db | created: 2025-01-20 -->\n"
	os.WriteFile(filepath.Join(dir, ".agent", "memories.md"), []byte(memories), 0o644)
	for _, c := range []struct {
		name   string
		stdin  io.Reader
		stderr string // a pattern; "" for nothing
	}{
		{"empty", strings.NewReader(""), ""},
		{"white space", strings.NewReader("\n"), ""},
		{"not JSON", strings.NewReader("hello"), `^lore: the SessionStart hook payload is not JSON: [^\n]+; priming the current directory with no session\n$`},
		{"unreadable", iotest.ErrReader(errors.New("bad file descriptor")), `^lore: read the SessionStart hook payload: bad file descriptor; priming the current directory with no session\n$`},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, stdout, stderr := testEnv(dir)
			e.stdin = c.stdin
			opts := primeOptions{hook: "claude", set: map[string]bool{}, loop: strategy.Input{Strategy: strategy.CostOptimized}}
			if err := runPrimeHook(e, globals{color: "never"}, opts); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if !strings.HasPrefix(stdout.String(), `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"## Memories\n`) ||
				!strings.Contains(stdout.String(), "Run the migrations before the tests.") {
				t.Fatalf("stdout:\n%s", stdout)
			}
			if c.stderr == "" && stderr.Len() > 0 || c.stderr != "" && !regexp.MustCompile(c.stderr).MatchString(stderr.String()) {
				t.Fatalf("stderr:\n%s\nwant %s", stderr, c.stderr)
			}
		})
	}
}
