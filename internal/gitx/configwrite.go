package gitx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"lore/internal/fsx"
	"lore/internal/gitx/gitconfig"
)

// Config returns the value git would use for key ("core.hookspath",
// "merge.lore.driver"), from every configuration file that applies.
func (r *Repo) Config(key string) (string, bool) { return r.config.Get(key) }

// ConfigBool is the git boolean key of the repository's configuration,
// def when it is unset or not a boolean.
func (r *Repo) ConfigBool(key string, def bool) bool { return r.config.Bool(key, def) }

// HooksDir is where git looks for this repository's hooks: core.hooksPath
// (relative to the top of the worktree when relative, as git runs hooks
// there) or the hooks directory of the common git directory.
func (r *Repo) HooksDir() string {
	if p, ok := r.config.Get("core.hookspath"); ok && strings.TrimSpace(p) != "" {
		p = gitconfig.ExpandHome(strings.TrimSpace(p), r.getenv("HOME"))
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.WorkTree, p)
		}
		return filepath.Clean(p)
	}
	return filepath.Join(r.CommonDir, "hooks")
}

// SetLocalSection makes section [name "sub"] of the repository's own config
// file (.git/config) hold settings (gitconfig.SetSection), keeping every
// other line of the file as it is. It reports whether the file changed;
// it is written under config.lock, as git writes it.
func (r *Repo) SetLocalSection(name, sub string, settings []gitconfig.Setting) (bool, error) {
	return r.editLocalConfig(func(text string) string { return gitconfig.SetSection(text, name, sub, settings) })
}

// RemoveLocalSection drops section [name "sub"] from the repository's own
// config file, with its variables and nothing else. It reports whether
// the file changed.
func (r *Repo) RemoveLocalSection(name, sub string) (bool, error) {
	return r.editLocalConfig(func(text string) string { return gitconfig.RemoveSection(text, name, sub) })
}

// editLocalConfig rewrites .git/config through edit, holding config.lock
// as git does; a lock another process holds is never waited for, as git
// does not wait for it either.
func (r *Repo) editLocalConfig(edit func(text string) string) (bool, error) {
	path := filepath.Join(r.CommonDir, "config")
	lock, err := acquireLock(path, 0)
	if err != nil {
		return false, err
	}
	defer lock.rollback()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if _, err := gitconfig.Parse(string(data)); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	next := edit(string(data))
	if next == string(data) {
		return false, nil
	}
	if err := lock.write([]byte(next)); err != nil {
		return false, err
	}
	if err := lock.prepare(true); err != nil {
		return false, err
	}
	if err := lock.publish(); err != nil {
		return false, err
	}
	fsx.SyncDir(r.CommonDir)
	return true, nil
}
