// Package remote is lore sync: the store shared by a team, or by a CI
// runner and the people it works for, through one git remote.
//
// A person's git pull beside lore's writes races them — lore commits
// between the pull's fetch and its merge, the merge fails and leaves a
// result without lore's entries (mdstore's mergedrops.go). lore sync does
// the pull and the push itself, with C git, holding lore's sync lock so
// that no lore write commits while git merges or rebases (they queue, and
// are committed when it is over): fetch; merge or rebase onto the
// upstream branch as the clone's pull configuration says, lore's merge
// driver merging the store's files; push; on a rejected push, all again.
// Whatever git starts, lore sync finishes or aborts: a merge that stops
// on a conflict (a file lore does not merge) is aborted and named, and a
// merge or rebase a killed lore sync left behind is aborted by the next
// one.
package remote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/mdstore"
)

// Options say how lore sync runs git.
type Options struct {
	// Retries is how many times a push the remote rejected (another clone
	// pushed first) is tried again after a new pull (0: DefaultRetries).
	Retries int
	// Env is the environment git runs with (nil: lore's own).
	Env []string
	// Interrupted says whether lore was asked to stop (Ctrl-C): lore sync
	// then stops between two git commands, aborting a merge it began.
	Interrupted func() bool
	// Sleep waits between tries (nil: time.Sleep).
	Sleep func(time.Duration)
}

// DefaultRetries is how many times a rejected push is tried again.
const DefaultRetries = 5

// Reporter hears what lore sync says on the way.
type Reporter interface {
	Notice(msg string)
}

// Result is what a sync did.
type Result struct {
	Branch   string `json:"branch"`
	Upstream string `json:"upstream"` // "origin/main"
	Mode     string `json:"mode"`     // "merge" or "rebase"
	// Pulled counts the commits the pull brought in, Pushed those the
	// remote did not have; Tries the pushes tried.
	Pulled int `json:"pulled"`
	Pushed int `json:"pushed"`
	Tries  int `json:"tries"`
	// Queued counts the changes other lore processes queued while the
	// sync ran, committed (and pushed) by it.
	Queued int `json:"queued"`
	// Aborted is the operation a killed lore sync had left, aborted
	// before this one began ("" for none).
	Aborted string `json:"aborted,omitempty"`
}

// ConflictError is a pull lore sync aborted: the merge or rebase stopped
// on conflicts in Files, which lore's merge driver does not settle.
type ConflictError struct {
	Upstream, Mode string
	Files          []string
	// Why is what git and lore's merge driver said of the conflicts
	// (their "CONFLICT" and "lore merge-driver:" lines, at most five).
	Why []string
}

func (e *ConflictError) Error() string {
	msg := fmt.Sprintf("the %s of %s stopped on conflicts in %s; lore sync aborted it and changed nothing — merge by hand (git pull, resolve, git commit), then run lore sync again",
		e.Mode, e.Upstream, strings.Join(e.Files, ", "))
	if len(e.Why) > 0 {
		msg += "\n  " + strings.Join(e.Why, "\n  ")
	}
	return msg
}

// conflictLines are the lines of git's output that say why a merge or
// rebase stopped: git's "CONFLICT (…)" and the merge driver's own.
func conflictLines(out string) []string {
	var why []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		if (strings.HasPrefix(l, "CONFLICT") || strings.HasPrefix(l, "lore merge-driver:")) && len(why) < 5 {
			why = append(why, l)
		}
	}
	return why
}

// errInterrupted is a sync stopped by a signal between two steps.
var errInterrupted = errors.New("interrupted: lore sync stopped (a merge or rebase it began is aborted)")

// Sync pulls the branch from its upstream, merging or rebasing as the
// clone is configured, pushes it, and tries again when the remote rejects
// the push; see the package comment.
func Sync(s *mdstore.Store, opts Options, r Reporter) (*Result, error) {
	repo := s.Repo()
	if repo == nil {
		return nil, errors.New("lore sync needs a git repository: the store is not in one")
	}
	g, err := newGit(repo.WorkTree, opts.Env)
	if err != nil {
		return nil, err
	}
	if opts.Retries <= 0 {
		opts.Retries = DefaultRetries
	}
	if opts.Interrupted == nil {
		opts.Interrupted = func() bool { return false }
	}
	if opts.Sleep == nil {
		opts.Sleep = time.Sleep
	}
	sy := &syncer{s: s, g: g, opts: opts, r: r, marker: filepath.Join(s.StateDir(), "sync-operation")}
	// Changes other lore processes queue while the sync holds the lock
	// are committed by it: a round more, at most two, pushes them.
	for round := 0; ; round++ {
		end, err := s.BeginSync()
		if err != nil {
			if round > 0 {
				return &sy.res, nil // another lore sync pushes them
			}
			return nil, fmt.Errorf("lore sync waits for lore's writes in progress: %w", err)
		}
		if round == 0 {
			err = sy.prepare()
		}
		if err == nil {
			err = sy.round()
		}
		end()
		if err != nil {
			return &sy.res, err
		}
		n := s.ReadPending().Queued
		if n == 0 || round == 2 {
			return &sy.res, nil
		}
		sy.res.Queued += n
	}
}

// syncer is one lore sync under way.
type syncer struct {
	s      *mdstore.Store
	g      *git
	opts   Options
	r      Reporter
	res    Result
	remote string // the upstream's remote, "origin"
	merge  string // the upstream's branch on the remote, "refs/heads/main"
	// marker records that this sync began a merge or rebase, for the
	// next sync to abort if this one is killed in it.
	marker string
}

// prepare checks the clone, aborts what a killed sync left, and reads
// the branch's upstream and pull configuration.
func (sy *syncer) prepare() error {
	repo := sy.s.Repo()
	if op := repo.OperationInProgress(); op != "" {
		mode, err := os.ReadFile(sy.marker)
		if err != nil {
			return fmt.Errorf("%s is in progress: finish it (git commit, git rebase --continue) or abort it (git merge --abort, git rebase --abort), then run lore sync again", op)
		}
		if err := sy.abort(strings.TrimSpace(string(mode))); err != nil {
			return fmt.Errorf("a lore sync that was stopped left %s in progress, and aborting it failed: %w", op, err)
		}
		sy.res.Aborted = op
		sy.r.Notice(fmt.Sprintf("a lore sync that was stopped left %s in progress: lore aborted it", op))
	}
	os.Remove(sy.marker)
	branch, err := sy.g.output("symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return errors.New("HEAD is detached: lore sync pulls and pushes a branch — check one out (git switch <branch>)")
	}
	sy.res.Branch = branch
	sy.remote, _ = sy.g.output("config", "--get", "branch."+branch+".remote")
	sy.merge, _ = sy.g.output("config", "--get", "branch."+branch+".merge")
	if sy.remote == "" || sy.merge == "" || sy.remote == "." {
		return fmt.Errorf("branch %s has no upstream on a remote: push it once with git push -u <remote> %s, then lore sync", branch, branch)
	}
	upstream, err := sy.g.output("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
	if err != nil {
		return fmt.Errorf("branch %s's upstream (%s %s) does not resolve: git fetch %s, then lore sync: %w", branch, sy.remote, sy.merge, sy.remote, err)
	}
	sy.res.Upstream = upstream
	sy.res.Mode = sy.pullMode(branch)
	return nil
}

// pullMode is how git pull would bring the upstream in: branch.<name>.rebase,
// else pull.rebase; "merge" when neither asks for a rebase.
func (sy *syncer) pullMode(branch string) string {
	v, _ := sy.g.output("config", "--get", "branch."+branch+".rebase")
	if v == "" {
		v, _ = sy.g.output("config", "--get", "pull.rebase")
	}
	switch strings.ToLower(v) {
	case "", "false", "no", "off", "0":
		return "merge"
	}
	return "rebase"
}

// round is one sync: commit what is queued, then pull and push until the
// remote takes the push or the tries run out.
func (sy *syncer) round() error {
	if err := sy.flush(); err != nil {
		return err
	}
	for try := 1; ; try++ {
		if sy.opts.Interrupted() {
			return errInterrupted
		}
		if _, err := sy.g.output("fetch", "--quiet", sy.remote); err != nil {
			return fmt.Errorf("git fetch %s failed: %w", sy.remote, err)
		}
		if err := sy.pull(); err != nil {
			return err
		}
		// What other lore processes queued while git merged.
		if err := sy.flush(); err != nil {
			return err
		}
		ahead, err := sy.count(sy.res.Upstream + "..HEAD")
		if err != nil {
			return err
		}
		if ahead == 0 {
			return nil
		}
		if sy.opts.Interrupted() {
			return errInterrupted
		}
		sy.res.Tries++
		rejected, err := sy.push()
		if err != nil {
			return err
		}
		if !rejected {
			sy.res.Pushed += ahead
			return nil
		}
		if try > sy.opts.Retries {
			return fmt.Errorf("the remote rejected the push %d times (other clones push at the same time): run lore sync again", try)
		}
		sy.r.Notice(fmt.Sprintf("the remote took another clone's push first; lore sync pulls again (try %d of %d)", try+1, sy.opts.Retries+1))
		sy.opts.Sleep(time.Duration(try*try) * 100 * time.Millisecond)
	}
}

// pull merges or rebases the fetched upstream into the branch; a pull
// that stops on conflicts is aborted.
func (sy *syncer) pull() error {
	behind, err := sy.count("HEAD.." + sy.res.Upstream)
	if err != nil || behind == 0 {
		return err
	}
	if err := os.WriteFile(sy.marker, []byte(sy.res.Mode+"\n"), 0o644); err != nil {
		return err
	}
	var args []string
	if sy.res.Mode == "rebase" {
		args = []string{"rebase", "--quiet", "--no-autostash", sy.res.Upstream}
	} else {
		args = []string{"merge", "--quiet", "--no-edit", "--no-autostash", "--ff", sy.res.Upstream}
	}
	out, notices, err := sy.g.run(args...)
	for _, l := range strings.Split(notices, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "lore merge-driver:") {
			sy.r.Notice(strings.TrimPrefix(l, "lore ")) // said as "lore: merge-driver: …"
		}
	}
	if err == nil && !sy.opts.Interrupted() {
		os.Remove(sy.marker)
		sy.res.Pulled += behind
		return nil
	}
	op := sy.s.Repo().OperationInProgress()
	if op == "" {
		os.Remove(sy.marker)
		if err == nil { // done before the signal was heard
			sy.res.Pulled += behind
			return errInterrupted
		}
		// git refused before it began: local changes in the way.
		return fmt.Errorf("git %s %s did not begin: %w", sy.res.Mode, sy.res.Upstream, err)
	}
	files, _ := sy.g.output("diff", "--name-only", "--diff-filter=U")
	if aerr := sy.abort(sy.res.Mode); aerr != nil {
		return fmt.Errorf("the %s of %s stopped (%v), and aborting it failed: %w — finish or abort it by hand", sy.res.Mode, sy.res.Upstream, err, aerr)
	}
	if sy.opts.Interrupted() {
		return errInterrupted
	}
	list := strings.Fields(files)
	if len(list) == 0 {
		return fmt.Errorf("the %s of %s stopped, and lore sync aborted it: %w", sy.res.Mode, sy.res.Upstream, err)
	}
	return &ConflictError{Upstream: sy.res.Upstream, Mode: sy.res.Mode, Files: list, Why: conflictLines(out)}
}

// abort aborts the merge or rebase this sync (or a killed one) began.
func (sy *syncer) abort(mode string) error {
	verb := "merge"
	if mode == "rebase" || strings.Contains(sy.s.Repo().OperationInProgress(), "rebase") {
		verb = "rebase"
	}
	if _, err := sy.g.output(verb, "--abort"); err != nil {
		return err
	}
	os.Remove(sy.marker)
	return nil
}

// push pushes HEAD to the upstream branch; rejected says the remote
// refused it for not descending from what it holds.
func (sy *syncer) push() (rejected bool, err error) {
	out, err := sy.g.output("push", "--porcelain", "--quiet", sy.remote, "HEAD:"+sy.merge)
	if err == nil {
		return false, nil
	}
	// Another clone pushed first: its commits are to be pulled ("fetch
	// first", "non-fast-forward"), or the remote was updating the branch
	// for it at that moment ("cannot lock ref", "failed to update ref").
	for _, line := range strings.Split(out, "\n") {
		if !strings.HasPrefix(line, "!") {
			continue
		}
		for _, why := range []string{"fetch first", "non-fast-forward", "stale info", "failed to update ref", "cannot lock ref", "failed to lock"} {
			if strings.Contains(line, why) {
				return true, nil
			}
		}
	}
	return false, fmt.Errorf("git push %s failed: %w", sy.remote, err)
}

// flush commits the changes queued in the store (this process holds the
// sync lock, so its writes go on).
func (sy *syncer) flush() error {
	if sy.s.ReadPending() == (mdstore.Pending{}) {
		return nil
	}
	f, err := sy.s.Flush(true)
	if f != nil {
		for _, n := range f.Notices {
			sy.r.Notice(n)
		}
		if c := len(f.Committed); c > 0 {
			sy.r.Notice(fmt.Sprintf("committed %d queued change(s): %s", c, strings.Join(f.Committed, "; ")))
		}
	}
	return err
}

// count counts the commits of a git rev-list range.
func (sy *syncer) count(rng string) (int, error) {
	out, err := sy.g.output("rev-list", "--count", rng)
	if err != nil {
		return 0, err
	}
	var n int
	_, err = fmt.Sscan(out, &n)
	return n, err
}
