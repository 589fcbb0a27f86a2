package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"lore/internal/fsx"
	"lore/internal/loretest"
)

// Issue 15, "Files that are not what they seem": the real lore binary
// (and lore-index) against repositories whose store holds links to
// devices, FIFOs, links out of the repository, files over the cap, and a
// HEAD that points outside refs/. Every process runs with a timeout and a
// memory limit, so that a hang or a read of /dev/zero fails the test
// rather than stop it or the machine.

// buildLoreIndex is lore-index, built once with lore (loretest.Built)
// but not beside the lore buildLore returns, so that only the runs that
// ask for it (LORE_INDEX) find it.
func buildLoreIndex(t *testing.T) string {
	t.Helper()
	return loretest.Built(t).Index
}

// fileRepo is a repository driven by the lore binary.
type fileRepo struct {
	*loretest.Repo
	t     *testing.T
	lore  string
	index string   // lore-index, for runs with the search index
	env   []string // more of lore's environment, for the runs to come
}

func newFileRepo(t *testing.T) *fileRepo {
	t.Helper()
	if testing.Short() {
		t.Skip("builds lore and lore-index and runs them")
	}
	r := &fileRepo{Repo: loretest.NewRepo(t), t: t, lore: buildLore(t), index: buildLoreIndex(t)}
	r.Commit("initial", map[string]string{"README.md": "# project\n"})
	// Before the repository is removed: what lore-index does after lore
	// has gone (a build, the rest of an update) is over.
	t.Cleanup(r.waitForIndex)
	return r
}

// waitForIndex returns once no process writes the search index: a
// first search leaves lore-index building it, holding its write lock,
// which lore took before it exited.
func (r *fileRepo) waitForIndex() {
	lock := r.Path(".git/lore/index/write.lock")
	if _, err := os.Stat(lock); err != nil {
		return
	}
	unlock, err := fsx.Lock(lock, true, 2*time.Minute)
	if err != nil {
		r.t.Errorf("waiting for the search index: %v", err)
		return
	}
	unlock()
}

// result is what one run of lore did.
type result struct {
	args           []string
	code           int
	stdout, stderr string
}

func (res result) String() string {
	return fmt.Sprintf("lore %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(res.args, " "), res.code, res.stdout, res.stderr)
}

// run runs lore with args in the repository, stdin given, the search
// index off unless withIndex. It fails the test if lore is still running
// after two minutes, or if it panicked or ran out of memory (a limit of
// 2 GiB of address space is set by the shell that starts it).
func (r *fileRepo) run(withIndex bool, stdin string, args ...string) result {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", append([]string{"-c", `ulimit -v 2097152 2>/dev/null; exec "$0" "$@"`, r.lore}, args...)...)
	cmd.Dir = r.Dir
	cmd.Env = append(r.Environ(), "NO_COLOR=1")
	if withIndex {
		cmd.Env = append(cmd.Env, "LORE_INDEX="+r.index)
	} else {
		cmd.Env = append(cmd.Env, "LORE_INDEX=off")
	}
	cmd.Env = append(cmd.Env, r.env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	} else {
		// A pipe that stays open and empty: a read of /dev/stdin waits
		// on it for ever, as it would on an agent's terminal.
		pr, pw, err := os.Pipe()
		if err != nil {
			r.t.Fatal(err)
		}
		defer pr.Close()
		defer pw.Close()
		cmd.Stdin = pr
	}
	cmd.WaitDelay = 10 * time.Second // a detached lore-index keeps no pipe of ours
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := result{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.t.Fatalf("lore %s: still running after two minutes (a FIFO or a device read?)\n%s", strings.Join(args, " "), res)
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		r.t.Fatal(err)
	}
	for _, bad := range []string{"panic:", "fatal error:", "goroutine "} {
		if strings.Contains(res.stderr, bad) {
			r.t.Fatalf("lore crashed:\n%s", res)
		}
	}
	return res
}

// want fails the test unless res exited with code and its stderr holds
// every line of warnings.
func (r *fileRepo) want(res result, code int, warnings ...string) {
	r.t.Helper()
	if res.code != code {
		r.t.Errorf("exit %d, want %d\n%s", res.code, code, res)
	}
	for _, w := range warnings {
		if !strings.Contains(res.stderr, w) {
			r.t.Errorf("stderr lacks %q\n%s", w, res)
		}
	}
}

// readCommands are the commands that read the store, with the exit
// status each has when it reads what it can and warns of the rest:
// validate fails (exit 1) because a link in the store is an error.
var readCommands = []struct {
	args      []string
	withIndex bool
	stdin     string
	code      int
}{
	{[]string{"prime"}, false, "", 0},
	{[]string{"prime", "--title", "deploy the service"}, true, "", 0},
	{[]string{"prime", "--hook", "claude"}, false, `{"session_id":"abc12345-6789-4def-8123-456789abcdef","hook_event_name":"SessionStart","source":"startup"}`, 0},
	{[]string{"search", "deploy"}, false, "", 0},
	{[]string{"search", "deploy"}, true, "", 0},
	{[]string{"list"}, false, "", 0},
	{[]string{"knowledge", "list"}, false, "", 0},
	{[]string{"skills", "list"}, false, "", 0},
	{[]string{"validate"}, false, "", 1},
}

// A committed link to /dev/zero (read whole, it ran lore out of memory)
// or /dev/stdin (read, it waited for ever) as memories.md, as a knowledge
// entry or as config.yaml, and a FIFO in .agent/knowledge: every command
// that reads the store finishes, says what it skipped, and exits as it
// would without the file.
func TestDevicesAndFIFOsInTheStoreNeitherHangNorExhaustMemory(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, path, target string
	}{
		{"memories.md to /dev/zero", ".agent/memories.md", "/dev/zero"},
		{"memories.md to /dev/stdin", ".agent/memories.md", "/dev/stdin"},
		{"knowledge to /dev/zero", ".agent/knowledge/zero.md", "/dev/zero"},
		{"knowledge to /dev/stdin", ".agent/knowledge/zero.md", "/dev/stdin"},
		{"config.yaml to /dev/zero", ".agent/config.yaml", "/dev/zero"},
		{"config.yaml to /dev/stdin", ".agent/config.yaml", "/dev/stdin"},
		{"a FIFO in knowledge", ".agent/knowledge/fifo.md", ""},
	} {
		t.Run(strings.ReplaceAll(c.name, "/", "_"), func(t *testing.T) {
			t.Parallel()
			r := newFileRepo(t)
			r.want(r.run(false, "", "init"), 0)
			r.want(r.run(false, "", "knowledge", "add", "--title", "Deploying", "--tags", "ops", "deploy with make release"), 0)
			r.Write(".agent/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Ship it.\n---\n")
			os.Remove(r.Path(c.path))
			warning := c.path + ": skipped: a symbolic link"
			if c.target == "" {
				if err := syscall.Mkfifo(r.Path(c.path), 0o644); err != nil {
					t.Skip("no FIFOs here:", err)
				}
				warning = c.path + ": skipped: not a regular file"
			} else if err := os.Symlink(c.target, r.Path(c.path)); err != nil {
				t.Fatal(err)
			}
			r.Git("add", "-A")
			r.Git("commit", "-q", "-m", "a file that is not what it seems")
			for _, cmd := range readCommands {
				res := r.run(cmd.withIndex, cmd.stdin, cmd.args...)
				w := []string{warning}
				switch {
				case cmd.args[0] == "validate":
					w = nil // said on stdout, as every problem
					if !strings.Contains(res.stdout, c.path+": error: ") {
						t.Errorf("validate says nothing of %s\n%s", c.path, res)
					}
				case c.path == ".agent/knowledge/zero.md" && (cmd.args[0] == "list" || cmd.args[0] == "skills"),
					c.path == ".agent/knowledge/fifo.md" && (cmd.args[0] == "list" || cmd.args[0] == "skills"),
					c.path == ".agent/memories.md" && (cmd.args[0] == "knowledge" || cmd.args[0] == "skills"):
					w = nil // does not read that file
				case cmd.args[0] == "search" && cmd.withIndex && c.path != ".agent/config.yaml":
					// The index says what it skipped when it reads the
					// directory: on this first search, it builds.
				}
				r.want(res, cmd.code, w...)
				if cmd.args[0] == "search" && !strings.Contains(res.stdout, "deploying") {
					t.Errorf("search did not find the knowledge entry\n%s", res)
				}
				if len(cmd.args) > 1 && cmd.args[1] == "--hook" && !json.Valid([]byte(res.stdout)) {
					t.Errorf("the SessionStart hook printed no JSON\n%s", res)
				}
			}
		})
	}
}

// A file over the cap is skipped, with a warning that says the cap.
func TestAFileOverTheCapIsSkippedWithAWarning(t *testing.T) {
	t.Parallel()
	r := newFileRepo(t)
	r.want(r.run(false, "", "init"), 0)
	r.want(r.run(false, "", "knowledge", "add", "--title", "Deploying", "--tags", "ops", "deploy with make release"), 0)
	r.Write(".agent/knowledge/huge.md", "---\ntitle: \"Huge deploy log\"\ntags: [\"ops\"]\n---\n\n"+strings.Repeat("deploy log line\n", 80000))
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "a pasted log")
	for _, withIndex := range []bool{false, true} {
		res := r.run(withIndex, "", "search", "deploy", "--format", "json")
		r.want(res, 0, ".agent/knowledge/huge.md: skipped: larger than 1 MiB")
		if strings.Contains(res.stdout, "huge") || !strings.Contains(res.stdout, "deploying") {
			t.Errorf("search answered\n%s", res)
		}
	}
	r.want(r.run(false, "", "prime"), 0, ".agent/knowledge/huge.md: skipped: larger than 1 MiB")
	res := r.run(false, "", "validate")
	r.want(res, 1)
	if !strings.Contains(res.stdout, ".agent/knowledge/huge.md: error: larger than 1 MiB") {
		t.Errorf("validate:\n%s", res)
	}
}

// snapshotDir lists every file under dir with its content.
func snapshotDir(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %v %q\n", p, d.Type(), data)
		}
		return nil
	})
	return b.String()
}

// indexHoldsBoth says which entry of git ls-files -s output is both a
// file (a link, say) and a directory of other entries.
func indexHoldsBoth(lsFiles string) string {
	var paths []string
	for _, line := range strings.Split(lsFiles, "\n") {
		if _, p, ok := strings.Cut(line, "\t"); ok {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for i, p := range paths {
		for _, q := range paths[i+1:] {
			if strings.HasPrefix(q, p+"/") {
				return p
			}
		}
	}
	return ""
}

// .agent or .agent/knowledge committed as a link to a directory outside
// the repository: add, knowledge add, learning add and ingest refuse,
// naming the path; nothing is written outside; the index never holds the
// link and files below it; nothing outside is shown; and the person's
// next git commit -a keeps every memory.
func TestALinkedStoreDirectoryRefusesWrites(t *testing.T) {
	t.Parallel()
	for _, link := range []string{".agent", ".agent/knowledge"} {
		t.Run(strings.ReplaceAll(link, "/", "_"), func(t *testing.T) {
			t.Parallel()
			r := newFileRepo(t)
			r.want(r.run(false, "", "init"), 0)
			r.want(r.run(false, "", "add", "a memory that must stay", "-t", "fix"), 0)
			outside := t.TempDir()
			os.MkdirAll(filepath.Join(outside, "knowledge"), 0o755)
			os.WriteFile(filepath.Join(outside, "knowledge", "private.md"), []byte("---\ntitle: \"Private deploy notes\"\ntags: [\"ops\"]\n---\n\nsecret deploy notes\n"), 0o644)
			os.WriteFile(filepath.Join(outside, "memories.md"), []byte("# Memories\n\n## Fixes\n\n### mem-1737372000-a1b2\n> private deploy memory\n<!-- tags: x | created: 2025-01-20 -->\n"), 0o644)
			target := outside
			if link == ".agent/knowledge" {
				target = filepath.Join(outside, "knowledge")
			} else {
				r.Git("rm", "-q", "-r", ".agent")
				os.RemoveAll(r.Path(".agent"))
			}
			if err := os.Symlink(target, r.Path(link)); err != nil {
				t.Fatal(err)
			}
			r.Git("add", "-A")
			r.Git("commit", "-q", "-m", "a linked store directory")
			before, head := snapshotDir(t, outside), r.Git("rev-parse", "HEAD")
			os.WriteFile(filepath.Join(r.Home, "out.txt"), []byte("<knowledge tags=\"ops\" title=\"From ingest\">ingested</knowledge>\n<journal>an iteration</journal>\n<task-done>t-1</task-done>\n"), 0o644)
			for _, args := range [][]string{
				{"knowledge", "add", "--title", "New", "--tags", "ops", "where does this go"},
				{"ingest", filepath.Join(r.Home, "out.txt")},
				{"add", "through the link", "-t", "fix"},
				{"learning", "add", "--category", "pitfall", "--tags", "ops", "a learning"},
			} {
				res := r.run(false, "", args...)
				if link == ".agent/knowledge" && (args[0] == "add" || args[0] == "learning") {
					r.want(res, 0) // memories.md and learnings/ are real: fine
					continue
				}
				r.want(res, 1, link+" is a symbolic link")
			}
			if after := snapshotDir(t, outside); after != before {
				t.Errorf("lore wrote outside the repository:\n%s\nwas\n%s", after, before)
			}
			if link == ".agent" && r.Git("rev-parse", "HEAD") != head {
				t.Errorf("lore committed through the link: %s", r.Git("log", "--stat", "-1"))
			}
			r.AssertHealthy()
			if both := indexHoldsBoth(r.Git("ls-files", "-s")); both != "" {
				t.Fatalf("the index holds %s and files below it:\n%s", both, r.Git("ls-files", "-s"))
			}
			// Nothing outside is shown.
			for _, withIndex := range []bool{false, true} {
				res := r.run(withIndex, "", "search", "deploy", "--all")
				if strings.Contains(res.stdout, "private") || strings.Contains(res.stdout, "secret") {
					t.Errorf("showed what is outside the repository:\n%s", res)
				}
			}
			if res := r.run(false, "", "prime"); strings.Contains(res.stdout, "private") || strings.Contains(res.stdout, "secret") {
				t.Errorf("prime showed what is outside the repository:\n%s", res)
			}
			// The person's next commit keeps every memory.
			memories := r.Git("ls-tree", "-r", "HEAD", "--", ".agent")
			r.Write("README.md", "# project, edited\n")
			r.Git("commit", "-q", "-a", "-m", "the person's commit")
			r.AssertClean()
			if got := r.Git("ls-tree", "-r", "HEAD", "--", ".agent"); got != memories {
				t.Errorf("git commit -a changed .agent:\n%s\nwas\n%s", got, memories)
			}
		})
	}
}

// memories.md committed as a link: lore add refuses; the link is neither
// replaced by a file nor committed with Markdown as its target.
func TestALinkedMemoriesFileIsRefused(t *testing.T) {
	t.Parallel()
	r := newFileRepo(t)
	r.Write("notes.md", "# my notes\n")
	os.MkdirAll(r.Path(".agent"), 0o755)
	if err := os.Symlink("../notes.md", r.Path(".agent/memories.md")); err != nil {
		t.Fatal(err)
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "memories.md is a link")
	head, index := r.Git("rev-parse", "HEAD"), r.Git("ls-files", "-s")
	res := r.run(false, "", "add", "a memory", "-t", "fix")
	r.want(res, 1, ".agent/memories.md", "symbolic link")
	if got := r.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("lore committed: %s", r.Git("show", "--stat", "HEAD"))
	}
	if got := r.Git("ls-files", "-s"); got != index {
		t.Errorf("the index changed:\n%s", got)
	}
	if got := r.Read("notes.md"); got != "# my notes\n" {
		t.Errorf("the link's target was written: %q", got)
	}
	if target, err := os.Readlink(r.Path(".agent/memories.md")); err != nil || target != "../notes.md" {
		t.Errorf("the link was replaced: %q %v", target, err)
	}
	r.AssertClean()
	r.want(r.run(false, "", "list"), 0, ".agent/memories.md: skipped: a symbolic link")
}

// lore --root .git (or a directory in it), and a root reached through a
// link out of the repository: refused, nothing committed or written.
func TestARootInTheGitDirectoryOrThroughALinkIsRefused(t *testing.T) {
	t.Parallel()
	r := newFileRepo(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, r.Path("elsewhere")); err != nil {
		t.Fatal(err)
	}
	r.Git("add", "elsewhere")
	r.Git("commit", "-q", "-m", "a link")
	head := r.Git("rev-parse", "HEAD")
	for _, root := range []string{".git", ".git/refs", "elsewhere"} {
		for _, args := range [][]string{{"init"}, {"add", "x", "-t", "fix"}, {"knowledge", "add", "--title", "T", "--tags", "x", "body"}} {
			res := r.run(false, "", append([]string{"--root", root}, args...)...)
			r.want(res, 1, "the store's root")
		}
	}
	if got := r.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("lore committed: %s", r.Git("show", "--stat", "HEAD"))
	}
	r.AssertClean()
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("lore wrote outside the repository: %v", entries)
	}
	if _, err := os.Lstat(r.Path(".git/.agent")); err == nil {
		t.Error("lore wrote .git/.agent")
	}
}

// HEAD naming refs/heads/../../../X: refused before any ref or reflog is
// read or written outside .git/refs.
func TestAHeadOutsideRefsIsRefused(t *testing.T) {
	t.Parallel()
	r := newFileRepo(t)
	r.want(r.run(false, "", "init"), 0)
	head := r.Git("rev-parse", "HEAD")
	os.WriteFile(r.Path(".git/HEAD"), []byte("ref: refs/heads/../../../X\n"), 0o644)
	r.want(r.run(false, "", "add", "a memory", "-t", "fix"), 1, "refs/heads/../../../X")
	os.WriteFile(r.Path(".git/HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	for _, p := range []string{r.Path("X"), r.Path("X.lock"), r.Path(".git/X"), r.Path(".git/logs/X"), filepath.Join(filepath.Dir(r.Dir), "X")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("lore wrote %s", p)
		}
	}
	if got := r.Git("rev-parse", "HEAD"); got != head {
		t.Errorf("main moved")
	}
	r.AssertClean()
}

// A randomised store: entries of every kind, then at random some of their
// files and directories replaced by what they should not be — links to
// devices, to /dev/stdin, out of the repository, inside the store, to
// nothing; FIFOs; directories named like files; files over the cap — and
// committed as git takes them. No command may hang, crash, write outside
// the repository, leave the index holding a path and files below it, or
// exit 0 with a wrong answer: what search (with and without the index),
// list and knowledge list show is exactly what an oracle that reads only
// regular files through no link finds. LORE_RANDOM_SEED replays a seed.
func TestRandomStoresOfFilesThatAreNotWhatTheySeem(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	if s := os.Getenv("LORE_RANDOM_SEED"); s != "" {
		fmt.Sscan(s, &seed)
	}
	const stores = 4
	for i := range stores {
		seed := seed + int64(i)
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			t.Logf("LORE_RANDOM_SEED=%d replays this store", seed)
			randomStore(t, rand.New(rand.NewPCG(uint64(seed), 15)))
		})
	}
}

// storeEntry is one entry the random store was made with: its file, and
// how search names it.
type storeEntry struct {
	path, kind, id string
}

func randomStore(t *testing.T, rnd *rand.Rand) {
	r := newFileRepo(t)
	outside := t.TempDir()
	outsideFiles := map[string]string{
		"memories.md":           "# Memories\n\n## Fixes\n\n### mem-1737372000-0bad\n> outside memory zebra\n<!-- tags: x | created: 2025-01-20 -->\n",
		"knowledge/z.md":        "---\ntitle: \"Outside zebra\"\ntags: [\"x\"]\n---\n\noutside zebra\n",
		"skill/SKILL.md":        "---\nname: outside-zebra\ndescription: outside zebra\n---\n",
		"skills/o/SKILL.md":     "---\nname: outside-zebra-2\ndescription: outside zebra\n---\n",
		"learnings/l-0bad00.md": "---\nid: l-0bad00\ncategory: pitfall\ntags: [x]\ncreated_at: \"2025-01-20T00:00:00Z\"\nstatus: active\n---\n\noutside zebra\n",
	}
	for p, content := range outsideFiles {
		os.MkdirAll(filepath.Dir(filepath.Join(outside, p)), 0o755)
		os.WriteFile(filepath.Join(outside, p), []byte(content), 0o644)
	}

	// The store, written by hand in lore's formats.
	var entries []storeEntry
	var memories strings.Builder
	memories.WriteString("# Memories\n\n## Patterns\n")
	for i := range 3 {
		id := fmt.Sprintf("mem-17373720%02d-a%03x", i, i)
		fmt.Fprintf(&memories, "\n### %s\n> apple memory %d\n<!-- tags: fruit | created: 2025-01-20 -->\n", id, i)
		entries = append(entries, storeEntry{".agent/memories.md", "memory", id})
	}
	memories.WriteString("\n## Decisions\n\n## Fixes\n\n## Context\n")
	files := map[string]string{".agent/memories.md": memories.String(), ".agent/config.yaml": "commit: auto\n"}
	for i := range 3 {
		p := fmt.Sprintf(".agent/knowledge/apple-%d.md", i)
		files[p] = fmt.Sprintf("---\ntitle: \"Apple %d\"\ntags: [\"fruit\"]\n---\n\napple knowledge %d\n", i, i)
		entries = append(entries, storeEntry{p, "knowledge", fmt.Sprintf("apple-%d", i)})
		id := fmt.Sprintf("l-a0000%d", i)
		p = ".agent/learnings/" + id + ".md"
		files[p] = fmt.Sprintf("---\nid: %s\ncategory: pitfall\ntags: [fruit]\ncreated_at: \"2025-01-2%dT00:00:00Z\"\nstatus: active\n---\n\napple learning %d\n", id, i, i)
		entries = append(entries, storeEntry{p, "learning", id})
		p = fmt.Sprintf(".agent/journal/run-0000000%d/0001.md", i)
		files[p] = fmt.Sprintf("---\nrun_id: run-0000000%d\niteration: 1\noutcome: done\ncreated_at: \"2025-01-2%dT00:00:00Z\"\n---\n\napple journal %d\n", i, i, i)
		entries = append(entries, storeEntry{p, "journal", fmt.Sprintf("run-0000000%d/0001", i)})
		for _, dir := range []string{".agent/skills", ".claude/skills"} {
			name := fmt.Sprintf("%s-apple-%d", strings.TrimPrefix(filepath.Dir(dir), "."), i)
			p = fmt.Sprintf("%s/s%d/SKILL.md", dir, i)
			files[p] = fmt.Sprintf("---\nname: %s\ndescription: apple skill %d\n---\n", name, i)
			entries = append(entries, storeEntry{p, "skill", name})
		}
	}
	for p, content := range files {
		r.Write(p, content)
	}

	// What is made of them: at random, a file or a directory becomes
	// something it should not be.
	var paths []string
	seen := map[string]bool{}
	for p := range files {
		for q := p; q != "." && !seen[q]; q = filepath.Dir(q) {
			seen[q] = true
			paths = append(paths, q)
		}
	}
	sort.Strings(paths)
	targets := []string{"/dev/zero", "/dev/stdin", "/dev/null", "/dev", "/nonexistent/x",
		filepath.Join(outside, "memories.md"), filepath.Join(outside, "knowledge"), filepath.Join(outside, "knowledge/z.md"),
		filepath.Join(outside, "skill"), filepath.Join(outside, "skills"), outside}
	fifos := false
	for _, p := range paths {
		if p == ".claude" || rnd.IntN(7) != 0 {
			continue
		}
		full := r.Path(p)
		if _, err := os.Lstat(full); err != nil {
			continue // under something already replaced
		}
		isDir := !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".yaml")
		os.RemoveAll(full)
		switch what := rnd.IntN(6); {
		case what <= 2: // a link to a device, out of the repository, to nothing
			os.Symlink(targets[rnd.IntN(len(targets))], full)
		case what == 3: // a link inside the store
			rel, _ := filepath.Rel(filepath.Dir(full), r.Path(paths[rnd.IntN(len(paths))]))
			if p == ".claude/skills" && rnd.IntN(2) == 0 {
				rel = "../.agent/skills" // the skill directories linked
			}
			os.Symlink(rel, full)
		case what == 4 && !isDir: // a FIFO (git does not take it)
			if syscall.Mkfifo(full, 0o644) == nil {
				fifos = true
			}
		case what == 4: // a directory become a file
			os.WriteFile(full, []byte("not a directory\n"), 0o644)
		case !isDir && p != ".agent/memories.md": // over the cap
			os.WriteFile(full, append([]byte(files[p]), strings.Repeat("apple pie\n", 110000)...), 0o644)
		default: // a directory named like the file
			os.MkdirAll(filepath.Join(full, "inside.md"), 0o755)
			os.WriteFile(filepath.Join(full, "inside.md", "x"), []byte("x\n"), 0o644)
		}
	}
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "a random store")
	t.Logf("the store:\n%s\nfifos: %v", r.Git("ls-files", "-s", "--", ".agent", ".claude"), fifos)
	before := snapshotDir(t, outside)

	// The oracle: lore reads a file when every directory on its way is a
	// directory (not a link) and it is a regular file within its cap.
	regular := func(p string) bool {
		parts := strings.Split(p, "/")
		full := r.Dir
		for i, part := range parts {
			full = filepath.Join(full, part)
			info, err := os.Lstat(full)
			if err != nil {
				return false
			}
			if i < len(parts)-1 && !info.IsDir() {
				return false
			}
			if i == len(parts)-1 {
				limit := int64(1 << 20)
				if p == ".agent/memories.md" {
					limit = 16 << 20
				}
				return info.Mode().IsRegular() && info.Size() <= limit
			}
		}
		return false
	}
	dirOK := func(p string) bool { // missing, or a directory through no link
		full := r.Dir
		for _, part := range strings.Split(p, "/") {
			full = filepath.Join(full, part)
			info, err := os.Lstat(full)
			if errors.Is(err, os.ErrNotExist) {
				return true
			}
			if err != nil || !info.IsDir() {
				return false
			}
		}
		return true
	}
	var want, wantMemories, wantKnowledge []string
	for _, e := range entries {
		if !regular(e.path) {
			continue
		}
		want = append(want, e.kind+" "+e.id)
		switch e.kind {
		case "memory":
			wantMemories = append(wantMemories, e.id)
		case "knowledge":
			wantKnowledge = append(wantKnowledge, e.id)
		}
	}
	sort.Strings(want)
	ids := func(res result, key ...string) []string {
		var items []map[string]any
		if err := json.Unmarshal([]byte(res.stdout), &items); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, res)
		}
		var out []string
		for _, it := range items {
			var f []string
			for _, k := range key {
				f = append(f, fmt.Sprint(it[k]))
			}
			out = append(out, strings.Join(f, " "))
		}
		sort.Strings(out)
		return out
	}
	equal := func(what string, got, want []string, res result) {
		t.Helper()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: got\n  %s\nwant\n  %s\n%s", what, strings.Join(got, "\n  "), strings.Join(want, "\n  "), res)
		}
	}
	for _, withIndex := range []bool{false, true, true} { // the index built, then checked
		res := r.run(withIndex, "", "search", "--all", "--format", "json")
		r.want(res, 0)
		equal(fmt.Sprintf("search (index %v)", withIndex), ids(res, "kind", "id"), want, res)
	}
	res := r.run(false, "", "list", "--format", "json")
	r.want(res, 0)
	equal("list", ids(res, "id"), wantMemories, res)
	res = r.run(false, "", "knowledge", "list", "--format", "json")
	r.want(res, 0)
	equal("knowledge list", ids(res, "slug"), wantKnowledge, res)
	for _, args := range [][]string{{"prime"}, {"prime", "--title", "apple"}, {"skills", "list"}, {"learning", "list"}, {"journal", "list"}} {
		r.want(r.run(len(args) > 1, "", args...), 0)
	}
	res = r.run(false, `{"session_id":"abc12345-6789-4def-8123-456789abcdef","hook_event_name":"SessionStart","source":"startup"}`, "prime", "--hook", "claude")
	if r.want(res, 0); !json.Valid([]byte(res.stdout)) {
		t.Errorf("the SessionStart hook printed no JSON\n%s", res)
	}
	if res := r.run(false, "", "validate"); res.code != 0 && res.code != 1 {
		t.Errorf("validate: exit %d\n%s", res.code, res)
	}

	// Writes: done when what they write is a file through no link, else
	// refused with nothing changed.
	for _, w := range []struct {
		args     []string
		path     string
		possible bool
	}{
		{[]string{"add", "banana memory", "-t", "fix"}, ".agent/memories.md",
			dirOK(".agent") && (regular(".agent/memories.md") || !exists(r.Path(".agent/memories.md")))},
		{[]string{"knowledge", "add", "--title", "Banana split", "--tags", "fruit", "banana knowledge"}, ".agent/knowledge/banana-split.md",
			dirOK(".agent/knowledge") && !exists(r.Path(".agent/knowledge/banana-split.md"))},
	} {
		head := r.Git("rev-parse", "HEAD")
		res := r.run(false, "", w.args...)
		switch {
		case w.possible && res.code != 0:
			t.Errorf("refused a write it could make:\n%s", res)
		case !w.possible && res.code != 1:
			t.Errorf("wrote through what it should not have:\n%s", res)
		case res.code == 0:
			if got := r.Git("ls-tree", "HEAD", "--", w.path); !strings.HasPrefix(got, "100644 blob ") {
				t.Errorf("%s committed as %q", w.path, got)
			}
			if got := r.Git("show", "HEAD:"+w.path); !strings.Contains(got, "banana") {
				t.Errorf("%s committed without the change", w.path)
			}
		default:
			if got := r.Git("rev-parse", "HEAD"); got != head {
				t.Errorf("a refused write committed:\n%s", r.Git("show", "--stat", "HEAD"))
			}
		}
	}
	if after := snapshotDir(t, outside); after != before {
		t.Errorf("lore wrote outside the repository:\n%s\nwas\n%s", after, before)
	}
	r.AssertHealthy()
	if both := indexHoldsBoth(r.Git("ls-files", "-s")); both != "" {
		t.Errorf("the index holds %s and files below it:\n%s", both, r.Git("ls-files", "-s"))
	}
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
