package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"lore/internal/loretest"
)

// TestConcurrentWritersAndGit runs 4 lore processes adding 25 memories
// each (10 without LORE_TEST_LONG=1) while a person commits other files
// with C git and keeps a change staged. Every add that reported success must be in the branch, no
// commit may be orphaned, and the person's work must be neither swept into
// a lore commit nor lost.
func TestConcurrentWritersAndGit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore and runs 100 processes")
	}
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	bin := buildLore(t)
	repo := filepath.Join(tmp, "repo")
	home := filepath.Join(tmp, "home")
	os.MkdirAll(repo, 0o755)
	os.MkdirAll(home, 0o755)
	environ := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH")}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Dir = repo
		cmd.Env = environ
		return cmd
	}
	git := func(args ...string) string {
		t.Helper()
		out, err := command("git", args...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "Person")
	git("config", "user.email", "person@example.com")
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("# repo\n"), 0o644)
	git("add", "README.md")
	git("commit", "-q", "-m", "initial")
	if out, err := command(bin, "init").CombinedOutput(); err != nil {
		t.Fatalf("lore init: %v\n%s", err, out)
	}
	os.WriteFile(filepath.Join(repo, ".agent", "config.yaml"), []byte("lock_timeout: 60s\n"), 0o644)
	git("add", ".agent/config.yaml")
	git("commit", "-q", "-m", "config")

	writers, adds := 4, loretest.Rounds(10, 25)
	// The person commits a file of its own and stages a change it never
	// commits before the writers start, so that the two interleave
	// whatever the machine's speed.
	commit := func(name string) bool {
		os.WriteFile(filepath.Join(repo, name), []byte(fmt.Sprintf("user file %s\n", name)), 0o644)
		return command("git", "add", name).Run() == nil && command("git", "commit", "-q", "-m", "user "+name, "--", name).Run() == nil
	}
	if !commit("user-0.txt") {
		t.Fatal("the person's first commit failed")
	}
	userCommits := []string{"user-0.txt"}
	os.WriteFile(filepath.Join(repo, "staged.txt"), []byte("staged, never committed\n"), 0o644)
	git("add", "staged.txt")

	var mu sync.Mutex
	reported := map[string]string{} // id → content
	var failures []string
	var wg sync.WaitGroup
	// added says that an add finished, and so let go of its locks: the
	// person tries to commit once for each, and the writer goes on once
	// the person has tried (tried).
	added, tried := make(chan struct{}), make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < adds; i++ {
				content := fmt.Sprintf("writer %d memory %d", w, i)
				var stdout, stderr bytes.Buffer
				cmd := command(bin, "add", content, "-t", "fix", "--tags", fmt.Sprintf("w%d", w), "--format", "quiet")
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				mu.Lock()
				if err != nil {
					failures = append(failures, fmt.Sprintf("%s: %v: %s", content, err, stderr.String()))
				} else {
					reported[strings.TrimSpace(stdout.String())] = content
				}
				mu.Unlock()
				added <- struct{}{}
				<-tried
			}
		}(w)
	}

	// The person: tries to commit another file of its own each time an
	// add has finished, while the other writers go on; C git does not
	// wait for a lock, so a commit that finds one held is tried again at
	// the next add, or at once when every add has finished.
	done := make(chan struct{})
	userDone := make(chan struct{})
	go func() {
		defer close(userDone)
		name, n := "", 0 // the file the person is committing
		for {
			select {
			case <-done:
				// Every add has finished: nothing holds a lock.
				for attempt := 0; name != "" && attempt < 200; attempt++ {
					if commit(name) {
						userCommits = append(userCommits, name)
						break
					}
				}
				return
			case <-added:
			}
			if name == "" {
				n++
				name = fmt.Sprintf("user-%d.txt", n)
			}
			if commit(name) {
				userCommits = append(userCommits, name)
				name = ""
			}
			tried <- struct{}{}
		}
	}()
	wg.Wait()
	close(done)
	<-userDone

	if len(failures) > 0 {
		t.Fatalf("%d adds failed:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	if len(reported) != writers*adds {
		t.Fatalf("%d distinct ids reported, want %d", len(reported), writers*adds)
	}
	if len(userCommits) < 2 {
		t.Fatal("the person never committed beside the writers")
	}

	t.Logf("%d lore adds, %d commits by the person in between", len(reported), len(userCommits))

	// Every acknowledged memory is on the branch and in the file.
	committed := git("show", "HEAD:.agent/memories.md")
	onDisk, _ := os.ReadFile(filepath.Join(repo, ".agent", "memories.md"))
	for id, content := range reported {
		for where, text := range map[string]string{"HEAD": committed, "worktree": string(onDisk)} {
			if !strings.Contains(text, "### "+id+"\n> "+content+"\n") {
				t.Errorf("%s (%q) missing from %s", id, content, where)
			}
		}
	}
	if got := git("log", "--format=%s", "--grep", "^lore: add fix"); strings.Count(got, "\n")+1 != writers*adds {
		t.Fatalf("%d lore add commits on the branch, want %d", strings.Count(got, "\n")+1, writers*adds)
	}
	// Each commit holds only its own path: lore's the memories, the
	// person's its file.
	log := git("log", "--format=@%s", "--name-only")
	for _, entry := range strings.Split(log, "@")[1:] {
		lines := strings.Split(strings.TrimSpace(entry), "\n")
		subject, files := lines[0], strings.Join(lines[1:], " ")
		switch {
		case strings.HasPrefix(subject, "lore: add"):
			if strings.TrimSpace(files) != ".agent/memories.md" {
				t.Errorf("%q contains %q", subject, files)
			}
		case strings.HasPrefix(subject, "user "):
			if strings.TrimSpace(files) != strings.TrimPrefix(subject, "user ") {
				t.Errorf("%q contains %q", subject, files)
			}
		}
	}
	for _, name := range userCommits {
		if git("log", "--format=%s", "-1", "--", name) != "user "+name {
			t.Errorf("the person's commit of %s is not on the branch", name)
		}
	}
	// Nothing orphaned, nothing corrupt. C git may leave its own failed
	// attempts unreachable: git commit reads HEAD before it takes
	// index.lock, so when lore commits in between, git's compare-and-set
	// refuses the update and the command fails (and is retried above).
	// No lore commit may be unreachable.
	unreachable := git("fsck", "--strict", "--no-progress", "--unreachable", "--no-reflogs")
	for _, line := range strings.Split(unreachable, "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[1] == "commit" {
			if subject := git("show", "-s", "--format=%s", f[2]); strings.HasPrefix(subject, "lore:") {
				t.Errorf("lore commit %s (%s) is not on the branch", f[2], subject)
			}
		}
	}
	if got := git("status", "--porcelain"); got != "A  staged.txt" {
		t.Errorf("git status:\n%s\nperson's commits: %v", got, userCommits)
		t.Logf("cached:\n%s", git("diff", "--cached", "--", ".agent/memories.md"))
		t.Logf("worktree:\n%s", git("diff", "--", ".agent/memories.md"))
		t.Logf("log:\n%s", git("log", "--format=%h %s", "-12"))
	}
}

// TestKilledWritersLeaveAConsistentRepository kills lore add at random
// moments, 60 times (24 without LORE_TEST_LONG=1). After each kill the person removes a stale lock, as lore's
// message says; the repository must pass git fsck and hold every memory
// whose add reported success.
func TestKilledWritersLeaveAConsistentRepository(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore and kills processes")
	}
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	tmp := t.TempDir()
	bin := buildLore(t)
	repo := filepath.Join(tmp, "repo")
	os.MkdirAll(repo, 0o755)
	environ := []string{"HOME=" + tmp, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=P", "GIT_AUTHOR_EMAIL=p@example.com", "GIT_COMMITTER_NAME=P", "GIT_COMMITTER_EMAIL=p@example.com"}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Dir = repo
		cmd.Env = environ
		return cmd
	}
	git := func(args ...string) (string, error) {
		out, err := command("git", args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	git("init", "-q", "-b", "main")
	command(bin, "init").Run()

	acknowledged := map[string]bool{}
	killed := 0
	for i := range loretest.Rounds(24, 60) {
		var stdout bytes.Buffer
		cmd := command(bin, "add", fmt.Sprintf("memory %d", i), "--format", "quiet")
		cmd.Stdout = &stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill somewhere between start and the end of the commit; every
		// fifth add runs to completion whatever the machine's speed.
		var timer *time.Timer
		if i%5 != 4 {
			timer = time.AfterFunc(time.Duration(i%12)*3*time.Millisecond, func() { cmd.Process.Kill() })
		}
		err := cmd.Wait()
		if timer != nil {
			timer.Stop()
		}
		if err == nil {
			acknowledged[strings.TrimSpace(stdout.String())] = true
			// An add that ran to the end first finished or undid what the
			// kill before it left: nothing is left for git status to show.
			if status, _ := git("status", "--porcelain", "--untracked-files=all"); status != "" {
				t.Errorf("after add %d, which completed: git status:\n%s", i, status)
			}
		} else {
			killed++
		}
		for _, lock := range []string{".git/index.lock", ".git/refs/heads/main.lock", ".git/HEAD.lock"} {
			os.Remove(filepath.Join(repo, lock)) // the person's recovery
		}
		if out, err := git("fsck", "--strict", "--no-progress", "--no-dangling"); err != nil {
			t.Fatalf("after iteration %d: git fsck: %v\n%s", i, err, out)
		}
	}
	if killed == 0 || len(acknowledged) == 0 {
		t.Fatalf("killed %d, acknowledged %d: the test did not exercise both", killed, len(acknowledged))
	}
	t.Logf("%d adds killed, %d acknowledged", killed, len(acknowledged))
	head, err := git("show", "HEAD:.agent/memories.md")
	if err != nil {
		t.Fatal(err)
	}
	for id := range acknowledged {
		if !strings.Contains(head, "### "+id+"\n") {
			t.Errorf("acknowledged %s is not in HEAD", id)
		}
	}
	// lore still works, and its first write finishes or undoes what the
	// last kill left (a kill between moving the branch and renaming
	// index.lock left the index behind HEAD; one before the branch moved,
	// memories.md written on disk): git status has nothing to say, not
	// even a temporary file.
	if out, err := command(bin, "add", "after the storm", "--format", "quiet").CombinedOutput(); err != nil {
		t.Fatalf("lore add: %v\n%s", err, out)
	}
	if status, _ := git("status", "--porcelain", "--untracked-files=all"); status != "" {
		t.Errorf("git status:\n%s", status)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "lore", "pending")); !os.IsNotExist(err) {
		t.Errorf("pending work left: %v", err)
	}
	if out, err := git("fsck", "--strict", "--no-progress", "--no-dangling"); err != nil {
		t.Fatalf("git fsck: %v\n%s", err, out)
	}
}

// buildLore is the lore binary, alone in its directory, built once for
// the whole run (loretest.Built): these tests run it as separate
// processes, as an orchestrator would.
func buildLore(t *testing.T) string {
	t.Helper()
	return loretest.Built(t).Lore
}

// watchHeap ends the test binary, with every goroutine's stack, when its
// heap grows past limit: once, a full run was killed by the kernel with a
// 24 GB heap and nothing said which test had grown it.
func watchHeap(limit uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for range time.Tick(time.Second) {
		metrics.Read(sample)
		if heap := sample[0].Value.Uint64(); heap > limit {
			fmt.Fprintf(os.Stderr, "lore.test: the heap holds %d MB; every goroutine:\n", heap>>20)
			pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
			os.Exit(2)
		}
	}
}

// TestStashLoopBesideWriters runs 120 lore adds (40 without
// LORE_TEST_LONG=1), unsigned and signed, while a person stashes
// and pops an unrelated change in a loop with C git (git stash resets the
// worktree and the index, and pop merges the change back). Every add that
// reported success must be in HEAD at the end, or queued and committed by
// the next command; the person's change must come through. With
// commit.gpgSign lore used to stage instead of committing, and the stash
// loop lost what it staged.
func TestStashLoopBesideWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore and runs 120 processes beside a git stash loop")
	}
	t.Parallel()
	t.Run("unsigned", func(t *testing.T) { t.Parallel(); stashLoopBesideWriters(t, false) })
	t.Run("gpgSign", func(t *testing.T) { t.Parallel(); stashLoopBesideWriters(t, true) })
}

func stashLoopBesideWriters(t *testing.T, sign bool) {
	r := loretest.NewRepo(t)
	if sign {
		r.SigningKey()
	}
	bin := buildLore(t)
	lore := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = r.Dir, r.Environ()
		return cmd
	}
	r.Commit("initial", map[string]string{"README.md": "# repo\n", ".agent/config.yaml": "lock_timeout: 60s\n"})
	if out, err := lore("init").CombinedOutput(); err != nil {
		t.Fatalf("lore init: %v\n%s", err, out)
	}
	r.Write("README.md", "# repo\nthe person's unstaged change\n")

	writers, adds := 2, loretest.Rounds(20, 60)
	// The writers and the stash loop take turns without a clock: a writer
	// goes on once the loop has stashed and popped since its add ended
	// (room for the loop), and the loop, whose git fails while lore holds
	// a lock (C git does not wait), tries again once an add has ended.
	var mu sync.Mutex
	changed := sync.NewCond(&mu)
	var (
		running, started, ended int  // adds running, started, ended
		cycles                  int  // stashes popped
		stop, loopOver          bool // the writers are done; the loop is
	)
	// retryAfter waits, after a git command that began when started and
	// ended were as given failed, until an add has ended since: it
	// reports false if none ran meanwhile, so that no lock of lore's
	// stood in git's way.
	retryAfter := func(started0, ended0, running0 int) bool {
		mu.Lock()
		defer mu.Unlock()
		if running0 == 0 && started == started0 && ended == ended0 {
			return false
		}
		for ended == ended0 && !stop {
			changed.Wait()
		}
		return true
	}
	// now is the adds started, ended and running.
	now := func() (int, int, int) {
		mu.Lock()
		defer mu.Unlock()
		return started, ended, running
	}
	var stashes, pops int
	popFailure := ""
	loopDone := make(chan struct{})
	go func() {
		defer close(loopDone)
		defer func() {
			mu.Lock()
			loopOver = true
			changed.Broadcast()
			mu.Unlock()
		}()
		for {
			mu.Lock()
			if stop {
				mu.Unlock()
				return
			}
			mu.Unlock()
			s, e, n := now()
			if out, err := r.GitErr("stash", "-q"); err != nil {
				if !retryAfter(s, e, n) {
					popFailure = "git stash failed with no lore running: " + out
					return
				}
				continue
			}
			stashes++
			for {
				s, e, n := now()
				out, err := r.GitErr("stash", "pop", "-q")
				if err == nil {
					pops++
					mu.Lock()
					cycles++
					changed.Broadcast()
					mu.Unlock()
					break
				}
				if !retryAfter(s, e, n) { // not a lock: a conflict, which lore caused
					popFailure = out
					return
				}
			}
		}
	}()
	acknowledged := map[string]bool{}
	var failures []string
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range adds {
				mu.Lock()
				running++
				started++
				mu.Unlock()
				var stdout, stderr bytes.Buffer
				cmd := lore("add", fmt.Sprintf("writer %d memory %d", w, i), "--format", "quiet")
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				mu.Lock()
				running--
				ended++
				changed.Broadcast()
				if err != nil {
					failures = append(failures, fmt.Sprintf("%v: %s", err, stderr.String()))
				} else {
					acknowledged[strings.TrimSpace(stdout.String())] = true
				}
				// Room for the stash loop: one more stash and pop.
				for c := cycles; cycles == c && !loopOver; {
					changed.Wait()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	mu.Lock()
	stop = true
	changed.Broadcast()
	mu.Unlock()
	<-loopDone
	t.Logf("%d adds acknowledged, %d failed; %d stashes, %d pops", len(acknowledged), len(failures), stashes, pops)
	if stashes == 0 {
		t.Fatal("the stash loop never ran")
	}
	if popFailure != "" {
		t.Errorf("git stash pop kept failing: %s", popFailure)
	}
	// The next write commits what is queued, and again what a racing
	// reset took off the branch (git stash runs git reset --hard, which
	// moves the branch back to the HEAD it read when it started).
	out, err := lore("add", "after the loop").CombinedOutput()
	if err != nil {
		t.Fatalf("lore add: %v\n%s", err, out)
	}
	t.Logf("the last add: %s", out)
	head := r.Git("show", "HEAD:.agent/memories.md")
	lost := 0
	for id := range acknowledged {
		if !strings.Contains(head, "### "+id+"\n") {
			lost++
			t.Logf("lost %s; commits naming it: %s", id, r.Git("log", "--all", "--format=%h %s", "--grep", id))
		}
	}
	if lost > 0 {
		t.Logf("reflog:\n%s", r.Git("reflog", "--format=%h %gs", "-n", "80", "refs/heads/main"))
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged memories are not in HEAD", lost, len(acknowledged))
	}
	if got := r.Read("README.md"); got != "# repo\nthe person's unstaged change\n" {
		t.Errorf("the person's change: %q", got)
	}
	if len(failures) > 0 {
		t.Logf("failures:\n%s", strings.Join(failures, "\n"))
	}
	if sign {
		if out := r.Git("log", "--format=%G?", "--grep", "^lore: add pattern"); strings.Trim(out, "G\n") != "" {
			t.Errorf("lore commits not signed: %q", out)
		}
	}
	r.AssertHealthy()
}
