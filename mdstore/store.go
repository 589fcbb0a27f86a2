package mdstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore/catalog"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// Store is the .agent/ directory of one project and the git repository
// it lives in, if any. A Store is used by one goroutine at a time (its
// writes keep what they read ahead, and gitx's object caches, on it); a
// server open one per request, or serialises them.
type Store struct {
	root   string
	files  *catalog.Worktree
	cache  *catalog.Cache
	prefix string     // root relative to the worktree top, "" at the top
	repo   *gitx.Repo // nil outside a git repository
	config config.Config
	now    func() time.Time
	random io.Reader
	// pending is what lore still owes the repository (Pending).
	pending Pending
	// unusable says why .agent is not read (a symbolic link, a file): the
	// store then reads as empty, config.yaml's warnings say why once, and
	// every write is refused by gitx.
	unusable error
	// ahead are directories read before a write takes the lock
	// (readAhead).
	ahead map[string]readAhead
	// syncing: this process holds the sync lock (BeginSync), and its own
	// writes go on.
	syncing bool
}

// Options are the store's sources of time and randomness (for ids), and
// of environment variables (for git configuration); nil means the real ones.
type Options struct {
	Now    func() time.Time
	Random io.Reader
	Getenv func(string) string
	// IgnoreBadConfig opens a store whose config.yaml does not read, with
	// the defaults: for lore validate, which reports the file's problems.
	IgnoreBadConfig bool
}

// Open opens the store whose .agent directory is (or will be) in root. It
// finds the enclosing git repository and reads .agent/config.yaml.
func Open(root string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	repo, err := gitx.Discover(abs, opts.Getenv)
	if err != nil && !errors.Is(err, gitx.ErrNotRepository) {
		return nil, err
	}
	return open(abs, repo, opts)
}

// Find opens the store for a command run in dir: the one at the top of the
// enclosing git worktree; outside git, the nearest directory up the tree
// that has a .agent directory; otherwise dir itself.
func Find(dir string, opts Options) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	repo, err := gitx.Discover(abs, opts.Getenv)
	switch {
	case err == nil:
		return open(repo.WorkTree, repo, opts)
	case !errors.Is(err, gitx.ErrNotRepository):
		return nil, err
	}
	for d := abs; ; {
		if info, err := os.Stat(filepath.Join(d, entry.Dir)); err == nil && info.IsDir() {
			return open(d, nil, opts)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return open(abs, nil, opts)
		}
		d = parent
	}
}

// open makes the store at root (absolute) in repo (nil outside git).
func open(root string, repo *gitx.Repo, opts Options) (*Store, error) {
	s := &Store{root: root, repo: repo, now: opts.Now, random: opts.Random}
	if s.now == nil {
		s.now = time.Now
	}
	if repo != nil {
		var err error
		if s.prefix, err = repo.Rel(root); err != nil {
			return nil, err
		}
		if s.prefix == "." {
			s.prefix = ""
		}
		if err := checkRoot(root, s.prefix, repo); err != nil {
			return nil, err
		}
	}
	if err := fsx.CheckDirs(root, entry.MemoriesPath); err != nil {
		w, skipped := entry.Skipped(entry.MemoriesPath, err)
		if !skipped {
			return nil, err
		}
		if repo == nil {
			// Outside git the state directory is .agent/.lore: usage
			// counts, the current run and the lock would go through it.
			return nil, fmt.Errorf("%s: %s: outside a git repository lore keeps its state in %s/.lore and writes nothing through a link; replace the link with the directory itself", w.Path, strings.TrimPrefix(w.Message, "skipped: "), entry.Dir)
		}
		s.unusable, s.config = err, config.Default()
		s.config.Warnings = entry.WarningsOf(w)
		s.files = catalog.NewWorktree(root, true)
		s.cache = s.newCache()
		return s, nil
	}
	var err error
	if s.config, err = config.Load(filepath.Join(root, filepath.FromSlash(entry.ConfigPath)), entry.ConfigPath); err != nil {
		if !opts.IgnoreBadConfig {
			return nil, err
		}
		s.config = config.Default()
	}
	s.files = catalog.NewWorktree(root, false)
	s.cache = s.newCache()
	s.readPending()
	return s, nil
}

// newCache is the caches of the store's files, in its state directory.
func (s *Store) newCache() *catalog.Cache {
	gitIndex, gitPrefix := s.GitIndex()
	return catalog.NewCache(s.files, s.StateDir(), gitIndex, gitPrefix, s.now)
}

// checkRoot refuses a store root that git cannot hold or that is not
// where it seems: inside the git directory (lore --root .git would commit
// .git/.agent/memories.md, which git fsck refuses and no clone checks
// out), or reached through a symbolic link inside the worktree (lore
// would write where the link points, and leave the index holding both
// the link and files below it). prefix is root relative to the worktree.
func checkRoot(root, prefix string, repo *gitx.Repo) error {
	for _, gitDir := range []string{repo.GitDir, repo.CommonDir} {
		if rel, err := filepath.Rel(gitDir, root); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s is inside the git directory %s: the store's root must be a directory of the worktree %s", root, gitDir, repo.WorkTree)
		}
	}
	if prefix == "" {
		return nil
	}
	for _, part := range strings.Split(prefix, "/") {
		if strings.EqualFold(part, ".git") {
			return fmt.Errorf("%s is inside a .git directory: the store's root must be a directory of the worktree %s", root, repo.WorkTree)
		}
	}
	if err := fsx.CheckDirs(repo.WorkTree, prefix+"/"+entry.Dir); err != nil {
		if se, ok := fsx.Skipped(err); ok {
			return fmt.Errorf("%s: the store's root is not a directory of the worktree %s: %s is %s", root, repo.WorkTree, se.Path, se.Reason())
		}
		return err
	}
	return nil
}

// Close releases what the store holds open: the cache files it mapped
// (a Catalog read from it must not be used after) and the repository's
// packs. Entries, memories and warnings it returned stay the caller's.
// A closed store may be read again; it maps and opens what it needs anew.
func (s *Store) Close() {
	s.cache.Close()
	if s.repo != nil {
		s.repo.Close()
	}
}

// Root is the directory that holds .agent.
func (s *Store) Root() string { return s.root }

// Exists says whether the store has its directory (.agent/): one that has
// none holds no entry, and reading it must make nothing (outside git the
// search index would make .agent/, which a lore init below would then take
// for its store).
func (s *Store) Exists() bool {
	info, err := os.Stat(filepath.Join(s.root, entry.Dir))
	return err == nil && info.IsDir()
}

// GitIndex returns the index file of the git worktree the store is in and
// the store root relative to that worktree's top ("" at the top); both
// "" outside git. Its stat data tells which files git itself rewrote.
func (s *Store) GitIndex() (path, prefix string) {
	if s.repo == nil {
		return "", ""
	}
	return filepath.Join(s.repo.GitDir, "index"), s.prefix
}

// InRepository reports whether the store is inside a git worktree.
func (s *Store) InRepository() bool { return s.repo != nil }

// Repo is the git repository the store is in, nil outside git: for what
// lore sets up around the store (hooks, the merge driver's registration).
// Changes to the store itself go through the Store.
func (s *Store) Repo() *gitx.Repo { return s.repo }

// Config is the store's configuration.
func (s *Store) Config() config.Config { return s.config }

// Now is the store's clock (Options.Now).
func (s *Store) Now() time.Time { return s.now() }

// StateDir is where per-clone state that is never committed lives (the
// current run, the search index): <git-dir>/lore, or .agent/.lore outside
// git.
func (s *Store) StateDir() string {
	if s.repo != nil {
		return filepath.Join(s.repo.GitDir, "lore")
	}
	return filepath.Join(s.root, entry.Dir, ".lore")
}

// pendingDir holds what lore still owes the repository: the intent record
// of a write in progress (gitx.Options.PendingDir).
func (s *Store) pendingDir() string { return filepath.Join(s.StateDir(), "pending") }

// GitPath is store path p from the top of the worktree.
func (s *Store) GitPath(p string) string {
	if s.prefix == "" {
		return p
	}
	return s.prefix + "/" + p
}
