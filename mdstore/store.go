package mdstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/internal/gitx"
)

// Store is the .agent/ directory of one project and the git repository
// it lives in, if any.
type Store struct {
	root   string
	prefix string     // root relative to the worktree top, "" at the top
	repo   *gitx.Repo // nil outside a git repository
	config Config
	now    func() time.Time
	random io.Reader
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
		return nil, fmt.Errorf("mdstore: %w", err)
	}
	if info, err := os.Stat(abs); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("mdstore: %s is not a directory", root)
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
		return nil, fmt.Errorf("mdstore: %w", err)
	}
	repo, err := gitx.Discover(abs, opts.Getenv)
	switch {
	case err == nil:
		return open(repo.WorkTree, repo, opts)
	case !errors.Is(err, gitx.ErrNotRepository):
		return nil, err
	}
	for d := abs; ; {
		if info, err := os.Stat(filepath.Join(d, Dir)); err == nil && info.IsDir() {
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
	}
	var err error
	if s.config, err = loadConfig(filepath.Join(root, filepath.FromSlash(ConfigPath)), ConfigPath); err != nil {
		if !opts.IgnoreBadConfig {
			return nil, err
		}
		s.config = DefaultConfig()
	}
	return s, nil
}

// Root is the directory that holds .agent.
func (s *Store) Root() string { return s.root }

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
func (s *Store) Config() Config { return s.config }

// WriteResult says what a change did in git.
type WriteResult struct {
	Mode    string // "commit", "stage" or "files"
	Commit  string // the new commit, "" when nothing was committed
	Branch  string // the branch committed to, "" when detached
	Notices []string
}

// write runs one change: build registers edits (with store paths) and the
// commit message. It becomes one commit, or less if the configuration or
// the repository's state says so.
func (s *Store) write(build func(tx *storeTx) error) (*WriteResult, error) {
	opts := gitx.Options{LockTimeout: s.config.LockTimeout, Now: s.now}
	switch s.config.Commit {
	case CommitStage:
		opts.Mode = gitx.ModeStage
	case CommitNone:
		opts.Mode = gitx.ModeFiles
	}
	var res *gitx.Result
	var err error
	if s.repo == nil {
		lock := filepath.Join(s.root, Dir, ".lore")
		stx := &storeTx{}
		res, err = gitx.UpdateFiles(s.root, lock, opts, func(tx *gitx.Tx) error {
			stx.tx = tx
			return build(stx)
		})
		if err == nil && stx.edits > 0 {
			res.Notices = append(res.Notices, "not a git repository: lore wrote the files only (no commit)")
		}
	} else {
		res, err = s.repo.Update(opts, func(tx *gitx.Tx) error {
			return build(&storeTx{tx: tx, prefix: s.prefix})
		})
	}
	if err != nil {
		return nil, err
	}
	out := &WriteResult{Mode: res.Mode.String(), Branch: res.Branch, Notices: res.Notices}
	if !res.Commit.IsZero() {
		out.Commit = res.Commit.String()
	}
	return out, nil
}

// storeTx adapts a gitx.Tx to store paths.
type storeTx struct {
	tx     *gitx.Tx
	prefix string
	edits  int
}

func (t *storeTx) path(p string) string {
	if t.prefix == "" {
		return p
	}
	return t.prefix + "/" + p
}

func (t *storeTx) read(p string) ([]byte, bool, error) { return t.tx.ReadFile(t.path(p)) }

func (t *storeTx) readDir(p string) ([]os.DirEntry, error) { return t.tx.ReadDir(t.path(p)) }
func (t *storeTx) edit(p string, fn gitx.EditFunc) {
	t.edits++
	t.tx.Edit(t.path(p), fn)
}
func (t *storeTx) message(m string) { t.tx.SetMessage(m) }

// commitMessage builds "lore: <verb> <what> <id>", the body and the
// trailers that make lore's commits searchable with git log --grep.
func commitMessage(subject, body string, trailers ...string) string {
	var b strings.Builder
	b.WriteString(subject + "\n")
	if body = strings.TrimSpace(body); body != "" {
		if len(body) > 2000 {
			cut := 2000
			for cut > 0 && body[cut]&0xC0 == 0x80 { // do not split a UTF-8 character
				cut--
			}
			body = body[:cut] + " …"
		}
		b.WriteString("\n" + body + "\n")
	}
	if len(trailers) > 0 {
		b.WriteString("\n")
		for i := 0; i+1 < len(trailers); i += 2 {
			b.WriteString(trailers[i] + ": " + trailers[i+1] + "\n")
		}
	}
	return b.String()
}

// Memories returns every valid memory in file order and the problems found.
// A store without memories.md has no memories.
func (s *Store) Memories() ([]Memory, []Warning, error) {
	text, err := s.readFileText(MemoriesPath)
	if err != nil {
		return nil, nil, err
	}
	f := parseMemoriesText(text, MemoriesPath)
	return f.memories, f.warnings, nil
}

// readFileText reads a store file into a string without a second copy;
// a missing file reads as "".
func (s *Store) readFileText(p string) (string, error) {
	f, err := os.Open(filepath.Join(s.root, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("mdstore: read %s: %w", p, err)
	}
	defer f.Close()
	var b strings.Builder
	if info, err := f.Stat(); err == nil {
		b.Grow(int(info.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", fmt.Errorf("mdstore: read %s: %w", p, err)
	}
	return b.String(), nil
}

// Memory returns the memory with the given id, or ErrNotFound.
func (s *Store) Memory(id string) (Memory, []Warning, error) {
	all, warnings, err := s.Memories()
	if err != nil {
		return Memory{}, warnings, err
	}
	for _, m := range all {
		if m.ID == id {
			return m, warnings, nil
		}
	}
	return Memory{}, warnings, fmt.Errorf("%w: %s", ErrNotFound, id)
}

// NewMemory is what a caller provides to add a memory.
type NewMemory struct {
	Type    MemoryType
	Content string
	Tags    []string
}

// AddMemory validates m, gives it an id and the creation date and adds it
// under its section in memories.md, as one commit.
func (s *Store) AddMemory(in NewMemory) (Memory, *WriteResult, error) {
	typ, err := ParseMemoryType(string(in.Type))
	if err != nil {
		return Memory{}, nil, err
	}
	content, err := normalizeContent(in.Content)
	if err != nil {
		return Memory{}, nil, err
	}
	tags, err := NormalizeTags(in.Tags)
	if err != nil {
		return Memory{}, nil, err
	}
	if err := refuseSecrets("content", append([]string{content}, tags...)...); err != nil {
		return Memory{}, nil, err
	}
	now := s.now()
	m := Memory{Type: typ, Content: content, Tags: tags, Created: now.UTC().Format(dateLayout)}
	res, err := s.write(func(tx *storeTx) error {
		// The id is chosen once, under the lock, and kept if the commit
		// is retried: the file may already hold this memory by then.
		if m.ID == "" {
			data, _, err := tx.read(MemoriesPath)
			if err != nil {
				return err
			}
			if m.ID, err = newMemoryID(now, s.random, parseMemories(data, MemoriesPath).ids()); err != nil {
				return err
			}
		}
		tx.edit(MemoriesPath, func(old []byte, exists bool) ([]byte, bool, error) {
			return addMemory(old, m), true, nil
		})
		tx.message(commitMessage("lore: add "+string(m.Type)+" "+m.ID, m.Content,
			"Lore-Id", m.ID, "Lore-Kind", "memory"))
		return nil
	})
	if err != nil {
		return Memory{}, nil, err
	}
	return m, res, nil
}

// DeleteMemory removes the memory's block from memories.md, as one commit.
// It returns ErrNotFound when no block has that id.
func (s *Store) DeleteMemory(id string) (Memory, *WriteResult, error) {
	if !ValidMemoryID(id) {
		return Memory{}, nil, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	var deleted Memory
	res, err := s.write(func(tx *storeTx) error {
		data, _, err := tx.read(MemoriesPath)
		if err != nil {
			return err
		}
		f := parseMemories(data, MemoriesPath)
		if !f.ids()[id] {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		deleted = Memory{ID: id}
		for _, m := range f.memories {
			if m.ID == id {
				deleted = m
			}
		}
		tx.edit(MemoriesPath, func(old []byte, exists bool) ([]byte, bool, error) {
			out, _ := RemoveMemory(old, id)
			return out, exists, nil
		})
		kind := "memory"
		if deleted.Type != "" {
			kind = string(deleted.Type)
		}
		tx.message(commitMessage("lore: delete "+kind+" "+id, deleted.Content, "Lore-Id", id, "Lore-Kind", "memory"))
		return nil
	})
	if err != nil {
		return Memory{}, nil, err
	}
	return deleted, res, nil
}

// FileEdit is a change to a file of the repository beside the store's
// own, such as .gitattributes, committed with the store's changes: Apply
// returns the file's new content, or nil when it needs no change. Subject
// says what it does, for a commit that makes no other change.
type FileEdit struct {
	Path    string // relative to the store root
	Subject string
	Apply   func(old []byte) []byte
}

// Init creates .agent/memories.md from the template and applies the
// extra edits (lore's merge lines in .gitattributes, say), in one commit.
// An existing memories.md is left alone unless force is set; created
// reports whether it was written.
func (s *Store) Init(force bool, extra ...FileEdit) (created bool, res *WriteResult, err error) {
	res, err = s.write(func(tx *storeTx) error {
		_, exists, err := tx.read(MemoriesPath)
		if err != nil {
			return err
		}
		applied, err := applyEdits(tx, extra)
		if err != nil {
			return err
		}
		if exists && !force && len(applied) == 0 {
			return nil
		}
		verb := "init"
		if !exists || force {
			created = true
			tx.edit(MemoriesPath, func([]byte, bool) ([]byte, bool, error) {
				return []byte(MemoriesTemplate), true, nil
			})
			if exists {
				verb = "reinit"
			}
		}
		if !created {
			tx.message(commitMessage("lore: "+applied[0].Subject, "", "Lore-Kind", "store"))
			return nil
		}
		tx.message(commitMessage("lore: "+verb+" memory store", "", "Lore-Kind", "store"))
		return nil
	})
	return created, res, err
}

// EditFiles applies edits in one commit (of those files alone); changed
// is false when none of them changed anything.
func (s *Store) EditFiles(edits ...FileEdit) (changed bool, res *WriteResult, err error) {
	res, err = s.write(func(tx *storeTx) error {
		applied, err := applyEdits(tx, edits)
		if err != nil || len(applied) == 0 {
			return err
		}
		changed = true
		tx.message(commitMessage("lore: "+applied[0].Subject, "", "Lore-Kind", "store"))
		return nil
	})
	return changed, res, err
}

// applyEdits registers the edits that change their file and returns them.
func applyEdits(tx *storeTx, edits []FileEdit) ([]FileEdit, error) {
	var applied []FileEdit
	for _, e := range edits {
		data, _, err := tx.read(e.Path)
		if err != nil {
			return nil, err
		}
		if e.Apply(data) == nil {
			continue
		}
		applied = append(applied, e)
		tx.edit(e.Path, func(old []byte, _ bool) ([]byte, bool, error) {
			if next := e.Apply(old); next != nil {
				return next, true, nil
			}
			return old, true, nil
		})
	}
	return applied, nil
}
