package loop

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"lore/index"
	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/usagelog"
)

// A prime at a past commit (lore prime --at REV) is made by the code that
// makes today's, from the store as that commit holds it: the commit's
// .agent/ is checked out into a repository of its own under the clone's
// state directory — which borrows the clone's objects (alternates), so
// cited files' histories read as they did — its search index is built
// whole, and prime runs there as of the commit's time, with what the
// clone's usage log had recorded by then. Nothing else of the clone's own
// state takes part: its caches, its search index. The repository is removed afterwards; one a crash left behind is
// removed by the next --at after a day.

// atDir is where past stores are checked out, in the clone's state.
func atDir(s *mdstore.Store) string { return filepath.Join(s.StateDir(), "at") }

// PastStore is the store as a commit held it, checked out for reading.
type PastStore struct {
	*mdstore.Store
	Commit string    // the commit's full hash
	When   time.Time // its committer time: the past store's clock
	// Notices say where the past store may differ from the one prime
	// read then.
	Notices []string
	dir     string
}

// Close closes the past store and removes its checkout.
func (p *PastStore) Close() error {
	p.Store.Close()
	return os.RemoveAll(p.dir)
}

// Getenv is the environment a search of the past store runs in: getenv,
// asking for no resident lore-index (index.ResidentEnv), since the past
// store is removed once its prime is made.
func (p *PastStore) Getenv(getenv func(string) string) func(string) string {
	return func(k string) string {
		if k == index.ResidentEnv {
			return "0"
		}
		return getenv(k)
	}
}

// OpenAt checks out s's store as commit rev (anything git rev-parse takes:
// a hash, HEAD~3, a tag, a branch) held it, opened with opts whose clock
// stands at the commit's time. It runs C git, which resolves rev and
// writes the checkout; the past store's run is the one its newest journal
// entry belongs to.
func OpenAt(s *mdstore.Store, rev string, opts mdstore.Options) (*PastStore, error) {
	repo := s.Repo()
	if repo == nil {
		return nil, errors.New("--at needs the store's git history, and this store is not in a git repository")
	}
	if strings.HasPrefix(rev, "-") || rev == "" {
		return nil, fmt.Errorf("--at %q is not a revision", rev)
	}
	out, err := runGit(repo.WorkTree, "rev-parse", "-q", "--verify", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("--at %s: git knows no commit of that name", rev)
	}
	commit := strings.TrimSpace(string(out))
	out, err = runGit(repo.WorkTree, "show", "-s", "--format=%ct", commit)
	if err != nil {
		return nil, err
	}
	secs, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("read the time of commit %s: %w", commit, err)
	}
	when := time.Unix(secs, 0).UTC()
	removeOldCheckouts(atDir(s), s.Now())
	if err := os.MkdirAll(atDir(s), 0o755); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(atDir(s), commit[:12]+"-")
	if err != nil {
		return nil, err
	}
	_, prefix := s.GitIndex()
	if err := checkoutStore(dir, filepath.Join(repo.CommonDir, "objects"), commit, prefix); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("check out the store as %s held it: %w", short(commit), err)
	}
	opts.Now = func() time.Time { return when }
	past, err := mdstore.Open(filepath.Join(dir, filepath.FromSlash(prefix)), opts)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	p := &PastStore{Store: past, Commit: commit, When: when, dir: dir}
	if err := p.startNewestRun(); err != nil {
		p.Close()
		return nil, err
	}
	// What the clone's usage log had recorded by then (unverified marks).
	partial, err := usagelog.Open(s.StateDir()).CopyUntil(usagelog.Open(past.StateDir()), when)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("read the usage log: %w", err)
	}
	if partial {
		p.Notices = append(p.Notices, "this clone's usage log was compacted after "+short(commit)+
			": an entry used both before it and since counts as unused then, which may mark it unverified where prime did not")
	}
	return p, nil
}

// checkoutStore makes dir a repository whose HEAD and index are commit
// (its objects those of the clone's objects directory) and checks out
// the store's .agent/ at prefix from it, and .claude/skills beside it. A
// commit without the store is an error.
func checkoutStore(dir, objects, commit, prefix string) error {
	if _, err := runGit(dir, "init", "-q", "--template=", "."); err != nil {
		return err
	}
	alternates := filepath.Join(dir, ".git", "objects", "info", "alternates")
	if err := os.MkdirAll(filepath.Dir(alternates), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(alternates, []byte(objects+"\n"), 0o644); err != nil {
		return err
	}
	if _, err := runGit(dir, "update-ref", "HEAD", commit); err != nil {
		return err
	}
	if _, err := runGit(dir, "read-tree", commit); err != nil {
		return err
	}
	store := path.Join(prefix, entry.Dir)
	if _, err := runGit(dir, "checkout", commit, "--", store); err != nil {
		return fmt.Errorf("commit %s has no %s", short(commit), store)
	}
	// The skills lore shows from beside the store, if the commit has them.
	skills := path.Join(prefix, entry.ClaudeSkillsDir)
	if _, err := runGit(dir, "cat-file", "-e", commit+":"+skills); err == nil {
		if _, err := runGit(dir, "checkout", commit, "--", skills); err != nil {
			return err
		}
	}
	return nil
}

// startNewestRun makes the run of the past store's newest journal entry
// its current run, as the clone's was then (a run started but not yet
// recorded in is not known).
func (p *PastStore) startNewestRun() error {
	es, _, err := p.Entries()
	if err != nil {
		return err
	}
	var newest *entry.JournalEntry
	for i, j := range es.Journal {
		if newest == nil || j.CreatedAt > newest.CreatedAt || (j.CreatedAt == newest.CreatedAt && j.Key() > newest.Key()) {
			newest = &es.Journal[i]
		}
	}
	if newest == nil {
		return nil
	}
	_, err = p.StartRun(newest.RunID)
	return err
}

// BuildIndex builds the past store's search index whole, so that prime's
// relevance comes from it as it came from the clone's index then (a store
// this size would otherwise be scanned while its index is built). Without
// lore-index there is nothing to build: prime ranks as it did without.
func (p *PastStore) BuildIndex(getenv func(string) string) error {
	helper, err := index.FindHelper(getenv)
	if err != nil {
		return nil
	}
	resp, err := index.Call(helper, index.StoreRequest(p.Store, index.OpRebuild), io.Discard)
	if err == nil && resp.Error != "" {
		err = errors.New(resp.Error)
	}
	if err != nil {
		return fmt.Errorf("build the search index of the store as %s held it: %w", short(p.Commit), err)
	}
	return nil
}

// removeOldCheckouts removes the past stores under dir that are more than
// a day old: what a crashed --at left.
func removeOldCheckouts(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && e.IsDir() && now.Sub(info.ModTime()) > 24*time.Hour {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
}

// runGit runs C git in dir, with no GIT_DIR, GIT_WORK_TREE or
// GIT_INDEX_FILE from a hook to point it elsewhere, and returns its
// output; its error quotes git's message.
func runGit(dir string, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, gitx.CGitEnv(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], msg)
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

func short(commit string) string { return commit[:min(len(commit), 12)] }
