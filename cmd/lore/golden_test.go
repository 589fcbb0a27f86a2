package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"lore/internal/loretest"
)

// The golden tests below run lore in process and compare what a person
// sees — the command line, the exit status, stdout and stderr — byte for
// byte with testdata/help/*.txt and testdata/cli/*.txt. go test -update
// rewrites them.

// TestHelpGolden: the --help of lore and of every command and subcommand,
// found by walking the app, so a new command gets its golden file on the
// next -update and a removed one leaves a stale file that fails the test.
func TestHelpGolden(t *testing.T) {
	withoutLoreRoot(t)
	dir := t.TempDir()
	e, _, _ := testEnv(dir)
	paths := [][]string{nil}
	for _, n := range commandTree(newApp(e).Commands) {
		paths = append(paths, n.path)
	}

	want := map[string]bool{}
	for _, path := range paths {
		name := "help/" + strings.Join(append([]string{"lore"}, path...), "_") + ".txt"
		want[name] = true
		t.Run(strings.Join(append([]string{"lore"}, path...), " "), func(t *testing.T) {
			got, code := transcript(dir, append(path, "--help"))
			if code != exitOK {
				t.Errorf("exit status %d", code)
			}
			loretest.Golden(t, filepath.Join("testdata", name), got)
		})
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "help", "*.txt"))
	for _, f := range files {
		name := "help/" + filepath.Base(f)
		if want[name] {
			continue
		}
		if loretest.Updating() {
			os.Remove(f)
		} else {
			t.Errorf("%s: no such command any more (go test -update removes the file)", f)
		}
	}
}

// TestOutputGolden: --version, and one case of each kind of failure: a
// usage error and an input error (status 2), a missing entry and a
// failure (status 1).
func TestOutputGolden(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	withoutLoreRoot(t)
	outside := t.TempDir() // no repository here
	repo := t.TempDir()
	git := exec.Command("git", "init", "-q", "-b", "main", repo)
	git.Env = []string{"HOME=" + repo, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config"), []byte("[user]\n\tname = Golden\n\temail = golden@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, code := transcript(repo, []string{"init"}); code != exitOK {
		t.Fatalf("lore init:\n%s", got)
	}
	broken := t.TempDir() // a store whose config.yaml does not read
	if err := os.MkdirAll(filepath.Join(broken, ".agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(broken, ".agent", "config.yaml"), []byte("commit: sometimes\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name string
		dir  string
		args []string
		code int
	}{
		{"version", outside, []string{"--version"}, exitOK},
		{"no-arguments", outside, nil, exitOK},

		{"usage-unknown-command", outside, []string{"remember", "x"}, exitUsage},
		{"usage-unknown-flag", outside, []string{"add", "x", "--bogus"}, exitUsage},
		{"usage-unknown-global-flag", outside, []string{"--bogus", "list"}, exitUsage},
		{"usage-missing-argument", outside, []string{"show"}, exitUsage},
		{"usage-missing-content", outside, []string{"add", "-t", "fix"}, exitUsage},
		{"usage-extra-argument", outside, []string{"list", "barrel"}, exitUsage},
		{"usage-flag-needs-value", outside, []string{"list", "--last"}, exitUsage},
		{"usage-flag-value", outside, []string{"list", "--last", "0"}, exitUsage},
		{"usage-format", outside, []string{"list", "--format", "yaml"}, exitUsage},
		{"usage-color", outside, []string{"--color", "sometimes", "list"}, exitUsage},

		{"input-unknown-type", repo, []string{"add", "x", "-t", "bogus"}, exitUsage},
		{"input-bad-tag", repo, []string{"add", "x", "--tags", "db,a|b"}, exitUsage},
		{"input-journal-outcome", repo, []string{"journal", "add", "--outcome", "won"}, exitUsage},
		{"input-secret", repo, []string{"journal", "add", "--outcome", "failed", "--stack-trace", "panic: dial postgres://app:9naHVck6pbd4ZRj2@db:5432/app"}, exitUsage},
		{"usage-secret-echoed", repo, []string{"journal", "add", "--outcome", "done", "--cost", "sk_live_pkdkdt6hLalKeYmocvNjn3yV"}, exitUsage},

		{"notfound-memory", repo, []string{"show", "mem-1-abcd"}, exitFailure},
		{"notfound-memory-delete", repo, []string{"delete", "mem-1-abcd"}, exitFailure},
		{"notfound-knowledge", repo, []string{"knowledge", "show", "no-such-entry"}, exitFailure},
		{"notfound-learning", repo, []string{"learning", "show", "lrn-1-abcd"}, exitFailure},
		{"notfound-journal", repo, []string{"journal", "show", "run-1/0001"}, exitFailure},

		{"failure-bad-config", broken, []string{"list"}, exitFailure},
		{"failure-missing-file", repo, []string{"ingest", "output.txt"}, exitFailure},
		{"failure-no-current-run", repo, []string{"journal", "current"}, exitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, code := transcript(tc.dir, tc.args)
			if code != tc.code {
				t.Errorf("exit status %d, want %d", code, tc.code)
			}
			loretest.Golden(t, filepath.Join("testdata", "cli", tc.name+".txt"), got)
		})
	}
}

// withoutLoreRoot unsets $LORE_ROOT for the test: urfave/cli reads the
// flags' environment variables from the process, not from the env.
func withoutLoreRoot(t *testing.T) {
	t.Setenv("LORE_ROOT", "")
	os.Unsetenv("LORE_ROOT")
}

// goldenBuildInfo is the build the golden tests' lore says it is.
var goldenBuildInfo = &debug.BuildInfo{Main: debug.Module{Path: "lore", Version: "v1.2.3"}}

// transcript runs lore with args in dir, with the in-memory env, and
// returns what it printed, the temporary dir masked as $WORK.
func transcript(dir string, args []string) (string, int) {
	e, stdout, stderr := testEnv(dir)
	e.buildInfo = func() (*debug.BuildInfo, bool) { return goldenBuildInfo, true }
	code := run(args, e)
	var b strings.Builder
	b.WriteString("lore")
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " |'\"$\\") {
			a = fmt.Sprintf("%q", a)
		}
		b.WriteString(" " + a)
	}
	fmt.Fprintf(&b, "\nexit status %d\n", code)
	for _, out := range []struct{ name, text string }{{"stdout", stdout.String()}, {"stderr", stderr.String()}} {
		fmt.Fprintf(&b, "-- %s --\n%s", out.name, out.text)
		if out.text != "" && !strings.HasSuffix(out.text, "\n") {
			b.WriteString("\n\\ no newline at end\n")
		}
	}
	return strings.ReplaceAll(b.String(), dir, "$WORK"), code
}
