package gitx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/klauspost/compress/zlib"

	"lore/internal/gitx/gitconfig"
)

// ErrNotRepository is returned by Discover when no git worktree encloses the
// directory.
var ErrNotRepository = errors.New("not a git repository")

// Repo is a non-bare git repository: one worktree and its git directories.
type Repo struct {
	// WorkTree is the absolute path of the top of the worktree.
	WorkTree string
	// GitDir holds what belongs to this worktree: HEAD, index, logs/HEAD,
	// MERGE_HEAD and friends. For the main worktree it is .git.
	GitDir string
	// CommonDir holds what all worktrees share: objects, refs, config.
	CommonDir string

	getenv    func(string) string
	config    *gitconfig.Config
	objects   *objectDB
	zlib      [2]*zlib.Writer // reused by writeObject: deflating, storing
	pending   []pendingObject // objects written but not yet flushed
	pendingAt map[string]bool // their final paths
	// readCache keeps the objects read during an Update, nil otherwise;
	// treeCache the trees parsed (readTree).
	readCache map[Hash]cachedObject
	treeCache map[Hash]*parsedTree
}

// Close releases what reading objects holds open (the packs' mapped
// indexes and files); a Repo read from afterwards opens them again.
func (r *Repo) Close() {
	r.objects.close()
}

// knownExtensions are the [extensions] lore can work with. Others (for
// example objectFormat=sha256 or refStorage=reftable) change how objects or
// refs are stored, and lore refuses to touch such a repository.
var knownExtensions = map[string]bool{
	"noop":            true,
	"noop-v1":         true,
	"worktreeconfig":  true,
	"preciousobjects": true,
	"partialclone":    true,
	"sparseindex":     true,
}

// Discover finds the git worktree that encloses dir, walking up the
// directory tree. It returns ErrNotRepository when there is none.
func Discover(dir string, getenv func(string) string) (*Repo, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	for d := abs; ; {
		gitDir, err := findGitDir(d)
		if err != nil {
			return nil, err
		}
		if gitDir != "" {
			return open(d, gitDir, getenv)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, ErrNotRepository
		}
		d = parent
	}
}

// findGitDir returns the git directory of worktree candidate d, or "" when
// d has no .git entry.
func findGitDir(d string) (string, error) {
	dotGit := filepath.Join(d, ".git")
	info, err := os.Stat(dotGit)
	if err != nil {
		return "", nil
	}
	if info.IsDir() {
		if isGitDir(dotGit) {
			return dotGit, nil
		}
		return "", nil
	}
	// A linked worktree or a submodule: ".git" is a file "gitdir: <path>".
	data, err := os.ReadFile(dotGit)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", dotGit, err)
	}
	line := strings.TrimSpace(string(data))
	if !strings.HasPrefix(line, "gitdir:") {
		return "", fmt.Errorf("%s: not a gitdir file", dotGit)
	}
	target := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(target) {
		target = filepath.Join(d, target)
	}
	if !isGitDir(target) {
		return "", fmt.Errorf("%s points to %s, which is not a git directory", dotGit, target)
	}
	return filepath.Clean(target), nil
}

func isGitDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "commondir")); err == nil {
		return true
	}
	_, err := os.Stat(filepath.Join(dir, "objects"))
	return err == nil
}

func open(workTree, gitDir string, getenv func(string) string) (*Repo, error) {
	commonDir := gitDir
	if data, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		c := strings.TrimSpace(string(data))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		commonDir = filepath.Clean(c)
	}
	r := &Repo{WorkTree: workTree, GitDir: gitDir, CommonDir: commonDir, getenv: getenv}
	branch := ""
	if head, err := r.readHead(); err == nil && head.Branch != "" {
		branch = strings.TrimPrefix(head.Branch, "refs/heads/")
	}
	cfg, err := gitconfig.Load(gitconfig.Source{CommonDir: commonDir, GitDir: gitDir, Getenv: getenv, Branch: branch})
	if err != nil {
		return nil, err
	}
	r.config = cfg
	if cfg.Bool("core.bare", false) {
		return nil, fmt.Errorf("%s is a bare repository; lore needs a worktree", commonDir)
	}
	if err := r.checkExtensions(); err != nil {
		return nil, err
	}
	r.objects = newObjectDB(filepath.Join(commonDir, "objects"))
	return r, nil
}

// checkExtensions refuses repositories whose [extensions] change the
// on-disk format in ways lore does not implement.
func (r *Repo) checkExtensions() error {
	version, _ := r.config.Get("core.repositoryformatversion")
	if version != "" && version != "0" && version != "1" {
		return fmt.Errorf("repository format version %s is not supported", version)
	}
	var unknown []string
	r.config.Each("extensions.", func(name, value string) {
		switch {
		case knownExtensions[name]:
		case name == "objectformat" && strings.EqualFold(value, "sha1"):
		case name == "refstorage" && strings.EqualFold(value, "files"):
		default:
			unknown = append(unknown, name+"="+value)
		}
	})
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("repository uses extensions lore does not support: %s", strings.Join(unknown, ", "))
	}
	return nil
}

// Rel returns path (absolute, or relative to the current directory) as a
// slash-separated path relative to the top of the worktree, the form used
// in the index and in trees.
func (r *Repo) Rel(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(r.WorkTree, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the worktree %s", path, r.WorkTree)
	}
	return filepath.ToSlash(rel), nil
}

// OperationInProgress names a merge, rebase, cherry-pick, revert or am
// that git is in the middle of ("a merge", "a rebase"), or returns "".
func (r *Repo) OperationInProgress() string {
	checks := []struct{ path, name string }{
		{"MERGE_HEAD", "a merge"},
		{"rebase-merge", "a rebase"},
		{"rebase-apply", "a rebase or am"},
		{"CHERRY_PICK_HEAD", "a cherry-pick"},
		{"REVERT_HEAD", "a revert"},
		{"sequencer/todo", "a cherry-pick or revert sequence"},
	}
	for _, c := range checks {
		if _, err := os.Stat(filepath.Join(r.GitDir, c.path)); err == nil {
			return c.name
		}
	}
	return ""
}

// incoming are the commits an operation in progress brings into the
// branch (the branch's own tip before a rebase, the commit being merged,
// cherry-picked or reverted): names they hold are taken, for a change
// decided now and committed when the operation is over.
func (r *Repo) incoming() []Hash {
	var out []Hash
	for _, p := range []string{"rebase-merge/orig-head", "rebase-apply/orig-head", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD"} {
		data, err := os.ReadFile(filepath.Join(r.GitDir, p))
		if err != nil {
			continue
		}
		for _, line := range strings.Fields(string(data)) {
			if plumbing.IsHash(line) {
				out = append(out, plumbing.NewHash(line))
			}
		}
	}
	return out
}
