package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
)

// atLoop is a repository driven by lore in process, with a clock the
// test sets and the search index on: a loop's primes recorded as they
// were printed, to compare with lore prime --at.
type atLoop struct {
	t      *testing.T
	dir    string
	now    time.Time
	stdout bytes.Buffer
	stderr bytes.Buffer
	e      *env
}

func newAtLoop(t *testing.T) *atLoop {
	if testing.Short() {
		t.Skip("builds lore-index and runs a 30-iteration loop")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	l := &atLoop{t: t, dir: t.TempDir(), now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	helper := loretest.Built(t).Index
	l.git("init", "-q", "-b", "main", ".")
	l.git("config", "user.name", "Loop")
	l.git("config", "user.email", "loop@example.com")
	l.e = &env{stdin: strings.NewReader(""), stdout: &l.stdout, stderr: &l.stderr,
		now:    func() time.Time { return l.now },
		random: bytes.NewReader(bytes.Repeat([]byte("0123456789abcdef"), 4096)),
		getenv: func(k string) string {
			switch k {
			case "HOME":
				return l.dir
			case "LORE_INDEX":
				return helper
			case "LORE_INDEX_BUILD":
				return "wait"
			}
			return ""
		},
		workDir: l.dir}
	return l
}

// git runs C git, its commits dated by the test's clock.
func (l *atLoop) git(args ...string) string {
	l.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = l.dir
	date := l.now.Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "HOME="+l.dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		l.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// lore runs lore in process with stdin and returns its stdout.
func (l *atLoop) lore(stdin string, args ...string) string {
	l.t.Helper()
	l.stdout.Reset()
	l.stderr.Reset()
	l.e.stdin = strings.NewReader(stdin)
	if code := run(args, l.e); code != 0 {
		l.t.Fatalf("lore %s: exit %d\n%s%s", strings.Join(args, " "), code, l.stdout.String(), l.stderr.String())
	}
	return l.stdout.String()
}

func (l *atLoop) write(p, content string) {
	l.t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(l.dir, p)), 0o755); err != nil {
		l.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.dir, p), []byte(content), 0o644); err != nil {
		l.t.Fatal(err)
	}
}

// TestPrimeAtReplaysTheLoop (issue 38): a 30-iteration loop whose agent
// writes memories, knowledge and learnings that cite the code, while
// the code changes under them; what lore prime printed before five of
// its iterations is what lore prime --at prints for the commit it ran
// at, byte for byte, once the loop is over.
func TestPrimeAtReplaysTheLoop(t *testing.T) {
	l := newAtLoop(t)
	areas := []string{"auth", "billing", "search", "export", "cache"}
	for _, a := range areas {
		l.write("src/"+a+".go", fmt.Sprintf("package %s\n\n// version 0\n", a))
	}
	l.git("add", "src")
	l.git("commit", "-q", "-m", "the code")
	l.lore("", "init")
	// Entries that cite nothing become unverified once two days pass
	// without a prime showing them.
	l.write(".agent/config.yaml", "unverified_days: 2\n")
	// A skill beside the store, where Claude Code keeps them.
	l.write(".claude/skills/release/SKILL.md", "---\nname: release\ndescription: Cut a release of a module.\n---\n\nTag it.\n")
	l.git("add", ".agent/config.yaml", ".claude")
	l.git("commit", "-q", "-m", "unverified after two days")
	// One of them every task finds: shown at every prime, so used, never
	// unverified.
	l.lore("", "knowledge", "add", "--title", "Every module", "--tags", "module", "Every module code change needs a fix entry in the changelog.", "--format", "quiet")
	for _, a := range areas {
		l.lore("", "knowledge", "add", "--title", "Release notes for "+a, "--tags", a+",release", "Write the release notes of "+a+" by hand.", "--format", "quiet")
	}
	type recorded struct {
		iteration int
		commit    string
		args      []string
		prime     string
	}
	var seen []recorded
	for i := 1; i <= 30; i++ {
		area := areas[i%len(areas)]
		task := []string{"prime", "--task-id", fmt.Sprintf("T-%d", i), "--title", "Fix the " + area + " module", "--description", "the " + area + " code in src/" + area + ".go", "--budget", "1500", "--recent", "5"}
		// The orchestrator primes right after the last commit.
		out := l.lore("", task...)
		if i%6 == 5 {
			seen = append(seen, recorded{i, l.git("rev-parse", "HEAD"), task, out})
		}
		l.now = l.now.Add(20 * time.Hour)
		// The agent works: it changes the code, and says what it learned.
		if i%4 == 0 {
			old := areas[(i/4)%len(areas)]
			l.write("src/"+old+".go", fmt.Sprintf("package %s\n\n// version %d\n", old, i))
			l.git("commit", "-q", "-am", "rewrite "+old+" at iteration "+fmt.Sprint(i))
		}
		if i%3 == 0 {
			l.lore("", "add", fmt.Sprintf("The %s module keeps its state in src/%s.go (iteration %d)", area, area, i), "-t", "pattern", "--tags", area, "--format", "quiet")
		}
		outcome := fmt.Sprintf("<task-done>T-%d</task-done>", i)
		if i%5 == 2 {
			outcome = fmt.Sprintf("<task-failed>T-%d</task-failed>\n<failure-report><what-tried>patched src/%s.go</what-tried><why-failed>the %s tests still fail</why-failed></failure-report>", i, area, area)
		}
		output := fmt.Sprintf("Worked on %s.\n<knowledge tags=%q title=%q cites=\"src/%s.go\">How %s works, as of iteration %d.</knowledge>\n"+
			"<learning category=\"pitfall\" tags=\"%s,tests\" cites=\"src/%s.go\">Run the %s tests before committing (iteration %d).</learning>\n%s\n",
			area, area, "The "+area+" module", area, area, i, area, area, area, i, outcome)
		l.lore(output, "ingest", "-", "--files", "src/"+area+".go", "--format", "json")
	}
	if len(seen) != 5 {
		t.Fatalf("recorded %d primes", len(seen))
	}
	stale, unverified := 0, 0
	for _, r := range seen {
		got := l.lore("", append(r.args, "--at", r.commit)...)
		if got != r.prime {
			t.Errorf("prime --at %s (before iteration %d) differs from what prime printed then:\n--- then\n%s\n--- --at\n%s", r.commit[:12], r.iteration, r.prime, got)
		}
		stale += strings.Count(r.prime, "_⚠ Stale")
		unverified += strings.Count(r.prime, "_⚠ Unverified")
	}
	if !strings.Contains(seen[0].prime, "**release**: Cut a release") {
		t.Errorf("the primes do not show the skill beside the store:\n%s", seen[0].prime)
	}
	if stale == 0 || unverified == 0 {
		t.Errorf("the recorded primes mark %d stale and %d unverified entries: the loop does not test the marks", stale, unverified)
	}
	if last := l.lore("", append(seen[0].args, "--at", "HEAD")...); last == seen[0].prime {
		t.Errorf("prime --at HEAD equals the prime before iteration %d: --at does not read the past", seen[0].iteration)
	}
	// lore revert: an iteration whose entries later iterations changed is
	// refused and changes nothing; the last one is undone as one commit.
	runID, err := os.ReadFile(filepath.Join(l.dir, ".git", "lore", "current-run"))
	if err != nil {
		t.Fatal(err)
	}
	runName := strings.TrimSpace(string(runID))
	head := l.git("rev-parse", "HEAD")
	l.stdout.Reset()
	l.stderr.Reset()
	if code := runLore(l, "revert", runName+"/0010"); code == 0 || !strings.Contains(l.stderr.String(), "was changed after the iteration by") {
		t.Errorf("revert of iteration 10, which later iterations built on: exit %d\n%s", code, l.stderr.String())
	}
	if got := l.git("rev-parse", "HEAD"); got != head || l.git("status", "--porcelain") != "" {
		t.Errorf("a refused revert changed the repository")
	}
	l.lore("", "revert", runName+"/0030")
	if subject := l.git("log", "-1", "--format=%s"); subject != "lore: revert "+runName+"/0030" {
		t.Errorf("the revert's commit: %q", subject)
	}
	if l.git("rev-parse", "HEAD~1") != head {
		t.Errorf("the revert is not one commit")
	}
	if out := l.lore("", "search", "iteration 30", "--format", "json"); strings.Contains(out, "(iteration 30)") {
		t.Errorf("what iteration 30 wrote is still found:\n%s", out)
	}
	if out := l.lore("", "journal", "show", runName+"/0030"); !strings.Contains(out, "Reverted") {
		t.Errorf("iteration 30's journal entry is not marked reverted:\n%s", out)
	}
	// Nothing of the past stores is left, and the repository is as it was.
	if entries, _ := os.ReadDir(filepath.Join(l.dir, ".git", "lore", "at")); len(entries) != 0 {
		t.Errorf("past stores left in the state directory: %v", entries)
	}
	if st := l.git("status", "--porcelain"); st != "" {
		t.Errorf("git status after the primes: %s", st)
	}
	l.git("fsck", "--no-progress")
}

// TestPrimeAtRefusesWhatIsNoCommit: --at names a commit with the store.
func TestPrimeAtRefusesWhatIsNoCommit(t *testing.T) {
	l := newAtLoop(t)
	l.write("README.md", "# x\n")
	l.git("add", "README.md")
	l.git("commit", "-q", "-m", "before lore")
	l.lore("", "init")
	l.lore("", "add", "one memory", "--format", "quiet")
	for _, c := range []struct{ rev, msg string }{
		{"no-such-branch", "git knows no commit of that name"},
		{"--help", "is not a revision"},
		{"HEAD~2", "has no .agent"},
	} {
		l.stdout.Reset()
		l.stderr.Reset()
		if code := run([]string{"prime", "--at", c.rev}, l.e); code == 0 || !strings.Contains(l.stderr.String(), c.msg) {
			t.Errorf("prime --at %s: exit %d, stderr %q, want %q", c.rev, code, l.stderr.String(), c.msg)
		}
	}
}

// TestUnverifiedMarks (issue 38): an entry that cites no file, written
// more than unverified_days ago (90 by default) and not shown since, is
// shown marked unverified; showing it is a use; one that cites a file is
// checked by git instead; 0 turns the mark off.
func TestUnverifiedMarks(t *testing.T) {
	l := newAtLoop(t)
	l.write("src/gate.go", "package gate\n")
	l.git("add", "src")
	l.git("commit", "-q", "-m", "the code")
	l.lore("", "init")
	l.lore("", "add", "Deploys wait for the staging gate", "-t", "context", "--format", "quiet")
	l.lore("", "add", "The gate lives in src/gate.go", "-t", "pattern", "--format", "quiet")
	l.lore("", "knowledge", "add", "--title", "Gate", "--tags", "deploy", "The gate opens at nine.", "--format", "quiet")
	// The clone's first prime, 100 days on: its usage log has watched
	// nothing yet, so it cannot tell what lay unused.
	l.now = l.now.AddDate(0, 0, 100)
	if out := l.lore("", "prime", "--title", "weekly report"); strings.Contains(out, "Unverified") {
		t.Errorf("a clone with a fresh usage log marks entries unverified:\n%s", out)
	}
	l.now = l.now.AddDate(0, 0, 89)
	if out := l.lore("", "prime", "--title", "deploy gate"); strings.Contains(out, "Unverified") {
		t.Errorf("marked unverified 89 days after a prime showed it:\n%s", out)
	}
	l.now = l.now.AddDate(0, 0, 91)
	out := l.lore("", "prime", "--title", "deploy gate")
	if n := strings.Count(out, "_⚠ Unverified: written 2026-03-02, cites no file git could check, and not shown in 90 days"); n != 2 {
		t.Errorf("%d unverified marks, want 2 (the uncited memory and the knowledge):\n%s", n, out)
	}
	if i := strings.Index(out, "The gate lives in src/gate.go"); i < 0 || strings.Contains(out[i:strings.Index(out[i:], "####")+i+1], "Unverified") {
		t.Errorf("the memory that cites src/gate.go is missing or marked:\n%s", out)
	}
	if out := l.lore("", "prime", "--title", "deploy gate"); strings.Contains(out, "Unverified") {
		t.Errorf("marked again right after a prime showed it:\n%s", out)
	}
	l.now = l.now.AddDate(0, 0, 200)
	l.write(".agent/config.yaml", "unverified_days: 0\n")
	if out := l.lore("", "prime", "--title", "deploy gate"); strings.Contains(out, "Unverified") {
		t.Errorf("marked with unverified_days: 0:\n%s", out)
	}
}

// runLore runs lore in process and returns its exit code, its output in
// l.stdout and l.stderr.
func runLore(l *atLoop, args ...string) int {
	l.stdout.Reset()
	l.stderr.Reset()
	l.e.stdin = strings.NewReader("")
	return run(args, l.e)
}
