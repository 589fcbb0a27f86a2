package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"lore/internal/loretest"
)

// TestTeamSharingOneRemote: four clones of one bare remote, each with a
// writer (lore add, and lore ingest every fourth write) and, beside it, a
// loop that shares the store: three run lore sync (two merging, one
// rebasing), the fourth is a person without lore sync, who runs git pull
// and git push and concludes a failed merge with a plain git commit, as
// git suggests, with lore's pre-commit hook installed. Once the writers
// are done and every clone has synced twice, the remote's main holds every
// write lore acknowledged (the person's: in the remote's main or, when
// their own git pull stopped sharing, in their HEAD — told in the log),
// no conflict marker, and fsck is clean everywhere; no merge or rebase is
// left half done. 6 writes a clone (40
// with LORE_TEST_LONG=1).
//
// .ci/run runs it alone, after the suite (teamLaterEnv). Its rare
// failures under load (about one run in ten) were two clones drawing one
// memory id in the same second: the merge took the two memories for one
// changed two ways, and that clone's lore sync stopped on memories.md
// from then on; the merge now keeps both (merge.Renamed), and the test
// follows memories by their text. What a failing sync or a stuck
// person's clone says is printed when it happens.
func TestTeamSharingOneRemote(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lore and runs hundreds of processes")
	}
	if os.Getenv(teamLaterEnv) != "" {
		t.Skip(teamLaterEnv + " is set: .ci/run runs this test alone, after the suite")
	}
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	bin := buildLore(t)
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	os.MkdirAll(home, 0o755)
	environ := []string{"HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME=Team", "GIT_AUTHOR_EMAIL=team@example.com", "GIT_COMMITTER_NAME=Team", "GIT_COMMITTER_EMAIL=team@example.com"}
	run := func(dir string, stdin string, name string, args ...string) (string, string, error) {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = dir, environ
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return strings.TrimSpace(stdout.String()), stderr.String(), err
	}
	must := func(dir string, name string, args ...string) string {
		t.Helper()
		out, errOut, err := run(dir, "", name, args...)
		if err != nil {
			t.Fatalf("%s %s in %s: %v\n%s%s", name, strings.Join(args, " "), dir, err, out, errOut)
		}
		return out
	}
	remote := filepath.Join(tmp, "remote.git")
	must(tmp, "git", "init", "-q", "--bare", "-b", "main", remote)
	seed := filepath.Join(tmp, "seed")
	os.MkdirAll(seed, 0o755)
	must(seed, "git", "init", "-q", "-b", "main")
	must(seed, bin, "init")
	os.WriteFile(filepath.Join(seed, ".agent", "config.yaml"), []byte("lock_timeout: 60s\n"), 0o644)
	must(seed, "git", "add", ".agent/config.yaml")
	must(seed, "git", "commit", "-q", "-m", "config")
	must(seed, "git", "remote", "add", "origin", remote)
	must(seed, "git", "push", "-q", "-u", "origin", "main")

	type clone struct {
		name, dir string
		plain     bool // a person's git pull and git push, not lore sync
	}
	clones := []clone{{name: "merger"}, {name: "rebaser"}, {name: "second"}, {name: "plain", plain: true}}
	for i := range clones {
		c := &clones[i]
		c.dir = filepath.Join(tmp, c.name)
		must(tmp, "git", "clone", "-q", remote, c.dir)
		must(c.dir, bin, "hooks", "install")
		if c.name == "rebaser" {
			must(c.dir, "git", "config", "pull.rebase", "true")
		}
	}

	writes := loretest.Rounds(6, 40)
	var mu sync.Mutex
	acked := map[string]string{} // memory text or journal path → the clone that wrote it
	var failures []string
	var syncs, syncErrors, plainMerges, plainConcluded atomic.Int64
	journalPath := regexp.MustCompile(`"path": "(\.agent/journal/[^"]+)"`)
	var writers, loops sync.WaitGroup
	done := make(chan struct{})
	for _, c := range clones {
		writers.Add(1)
		go func(c clone) {
			defer writers.Done()
			for i := 0; i < writes; i++ {
				var key, out, errOut string
				var err error
				if i%4 == 3 {
					note := fmt.Sprintf("<journal>%s step %d</journal>\n<task-done>T-%s-%d</task-done>\n", c.name, i, c.name, i)
					out, errOut, err = run(c.dir, note, bin, "ingest", "-", "--run", "run-0000cafe", "--format", "json")
					if m := journalPath.FindStringSubmatch(out); m != nil {
						key = m[1]
					}
				} else {
					text := fmt.Sprintf("%s memory %d", c.name, i)
					out, errOut, err = run(c.dir, "", bin, "add", text, "-t", "fix", "--format", "quiet")
					if out != "" {
						// By its text: two clones can draw one id in a
						// second, and the merge then renames one.
						key = "> " + text + "\n"
					}
				}
				mu.Lock()
				switch {
				case err != nil:
					failures = append(failures, fmt.Sprintf("%s write %d: %v: %s", c.name, i, err, errOut))
				case key == "":
					failures = append(failures, fmt.Sprintf("%s write %d: no id in %q", c.name, i, out))
				default:
					acked[key] = c.name
				}
				mu.Unlock()
			}
		}(c)
		loops.Add(1)
		go func(c clone) {
			defer loops.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				share(t, c.dir, c.plain, run, bin, &syncs, &syncErrors, &plainMerges, &plainConcluded)
			}
		}(c)
	}
	writers.Wait()
	close(done)
	loops.Wait()
	// Every clone syncs, twice over, one after another: the last pass
	// pushes nothing new.
	for pass := 0; pass < 3; pass++ {
		for _, c := range clones {
			share(t, c.dir, c.plain, run, bin, &syncs, &syncErrors, &plainMerges, &plainConcluded)
		}
	}

	if len(failures) > 0 {
		t.Errorf("%d writes failed:\n%s", len(failures), strings.Join(failures, "\n"))
	}
	memories := must(tmp, "git", "--git-dir", remote, "show", "main:.agent/memories.md")
	files := must(tmp, "git", "--git-dir", remote, "ls-tree", "-r", "--name-only", "main", ".agent")
	// Every write lore acknowledged is in the remote's main. The person
	// without lore sync shares only as far as their own git pull lets
	// them: a write of theirs that is in their clone's HEAD but never
	// reached the remote is told, not failed (see stuckPlain).
	holds := func(memories, files, key string) bool {
		if strings.HasPrefix(key, ".agent/") {
			return strings.Contains(files, key)
		}
		return strings.Contains(memories, key)
	}
	plainDir := clones[len(clones)-1].dir
	plainMemories, _, _ := run(plainDir, "", "git", "show", "HEAD:.agent/memories.md")
	plainFiles, _, _ := run(plainDir, "", "git", "ls-tree", "-r", "--name-only", "HEAD", ".agent")
	var lost, unshared []string
	for key, who := range acked {
		switch {
		case holds(memories, files, key):
		case who == "plain" && holds(plainMemories, plainFiles, key):
			unshared = append(unshared, key)
		default:
			lost = append(lost, who+" "+key)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d acknowledged writes are not in the remote's main:\n%s", len(lost), len(acked), strings.Join(lost, "\n"))
	}
	if len(unshared) > 0 {
		t.Logf("the person's %d writes are in their HEAD, not in the remote's: their git pull stopped sharing (%s)", len(unshared), stuckPlain(plainDir, run))
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^### (mem-\S+)`).FindAllStringSubmatch(memories, -1) {
		if ids[m[1]] {
			t.Errorf("memory id %s twice in the remote's memories.md", m[1])
		}
		ids[m[1]] = true
	}
	if out, _, err := run(tmp, "", "git", "--git-dir", remote, "grep", "-l", "^<<<<<<<", "main", "--", ".agent"); err == nil {
		t.Errorf("conflict markers in the remote's main:\n%s", out)
	}
	must(tmp, "git", "--git-dir", remote, "fsck", "--strict", "--no-progress")
	for _, c := range clones {
		must(c.dir, "git", "fsck", "--strict", "--no-progress")
		for _, left := range []string{"MERGE_HEAD", "rebase-merge", "rebase-apply"} {
			if _, err := os.Stat(filepath.Join(c.dir, ".git", left)); err == nil {
				t.Errorf("%s: .git/%s left behind", c.name, left)
			}
		}
	}
	t.Logf("%d clones, %d acknowledged writes, %d shares (%d refused or failed and tried again), %d plain pulls that stopped in a merge, %d concluded with git commit",
		len(clones), len(acked), syncs.Load(), syncErrors.Load(), plainMerges.Load(), plainConcluded.Load())
}

// share is one turn of a clone's loop: lore sync, or for a person without
// it, git pull then git push, a pull that stops in a merge concluded with
// a plain git commit as git suggests (lore's pre-commit hook runs), or
// aborted when that commit is refused.
func share(t *testing.T, dir string, plain bool, run func(string, string, string, ...string) (string, string, error), bin string,
	syncs, syncErrors, plainMerges, plainConcluded *atomic.Int64) {
	syncs.Add(1)
	if !plain {
		if _, errOut, err := run(dir, "", bin, "sync", "--format", "quiet"); err != nil {
			syncErrors.Add(1)
			if !strings.Contains(errOut, "rejected the push") && !strings.Contains(errOut, "waits for lore's writes") {
				t.Logf("lore sync in %s: %v: %s", filepath.Base(dir), err, strings.ReplaceAll(strings.TrimSpace(errOut), "\n", " / "))
			}
		}
		return
	}
	if _, _, err := run(dir, "", "git", "pull", "-q", "--no-rebase", "--no-edit"); err != nil {
		syncErrors.Add(1)
		if _, serr := os.Stat(filepath.Join(dir, ".git", "MERGE_HEAD")); serr == nil {
			plainMerges.Add(1)
			concludeAsAPersonWould(t, dir, run, bin, plainConcluded)
		}
	}
	run(dir, "", "git", "push", "-q")
}

// teamLaterEnv, set, skips TestTeamSharingOneRemote in a run of the whole
// suite; .ci/run then runs it on its own.
const teamLaterEnv = "LORE_TEST_TEAM_LATER"

// stuckPlain says why the person's clone no longer shares: what git
// status says of the store, and what git pull says.
func stuckPlain(dir string, run func(string, string, string, ...string) (string, string, error)) string {
	status, _, _ := run(dir, "", "git", "status", "--porcelain", ".agent")
	_, pull, _ := run(dir, "", "git", "pull", "-q", "--no-rebase", "--no-edit")
	if lines := strings.Split(strings.TrimSpace(pull), "\n"); len(lines) > 2 {
		pull = strings.Join(lines[:2], " / ")
	}
	return fmt.Sprintf("git status: %q; git pull: %q", strings.TrimSpace(status), strings.TrimSpace(pull))
}

// concludeAsAPersonWould concludes a stopped merge with git commit, as
// git suggests; a person tries again when a lock was held, does what the
// pre-commit hook says (a lore command, or git merge --abort), and aborts
// a merge it cannot conclude.
func concludeAsAPersonWould(t *testing.T, dir string, run func(string, string, string, ...string) (string, string, error), bin string, concluded *atomic.Int64) {
	for try := 0; try < 20; try++ {
		_, errOut, err := run(dir, "", "git", "commit", "-q", "--no-edit")
		switch {
		case err == nil:
			concluded.Add(1)
			return
		case strings.Contains(errOut, "index.lock"):
			continue
		case strings.Contains(errOut, "any lore command (lore status)"):
			run(dir, "", bin, "status")
			continue
		}
		if !strings.Contains(errOut, "git merge --abort") {
			t.Logf("plain: git commit of a stopped merge refused: %s", errOut)
		}
		break
	}
	// Tried again only while another process holds git's index lock, as
	// the commit above; any other refusal is reported at once, in git's
	// words (a failure once said nothing of why).
	var abortOut string
	for try := 0; try < 20; try++ {
		_, out, err := run(dir, "", "git", "merge", "--abort")
		if err == nil {
			return
		}
		if abortOut = out; !strings.Contains(out, "index.lock") {
			break
		}
	}
	t.Errorf("plain: the stopped merge in %s could not be aborted: %s", dir, strings.TrimSpace(abortOut))
}
