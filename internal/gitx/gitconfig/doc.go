// Package gitconfig reads git's configuration as C git does and edits one
// section of a config file in place.
//
// Parse reads git's config syntax: quotes, escapes, continuations,
// comments, [section "sub"] and the legacy [section.sub]. Load layers the
// files that apply to a repository in git's order — system (unless
// GIT_CONFIG_NOSYSTEM), global ($XDG_CONFIG_HOME/git/config and
// ~/.gitconfig, or GIT_CONFIG_GLOBAL), local, worktree (config.worktree
// with extensions.worktreeConfig) and GIT_CONFIG_COUNT pairs — applying
// include.path and includeIf "gitdir:", "gitdir/i:" and "onbranch:" where
// they stand; the last value set for a key wins. lore reads only a handful
// of keys: identity, core.bare, core.repositoryformatversion,
// [extensions], core.logAllRefUpdates, commit.gpgSign, core.hooksPath and
// its merge driver's.
//
// SetSection and RemoveSection change one section of a file's text and
// keep every other line byte for byte; the caller writes the result under
// config.lock (package gitx).
package gitconfig
