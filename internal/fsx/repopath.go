package fsx

import (
	"path/filepath"
	"strings"
)

// RepoPath makes f, a file a caller names (an item of --files, of an MCP
// call's files, a file an agent's transcript edited), a path of the
// repository whose top is root: relative to root, with forward slashes.
// A relative f is taken from the top; an absolute one must lie below
// root as written or with the links of root and of its own directory
// resolved (a system may name /tmp as /private/tmp). ok is false for a
// file outside the repository: elsewhere, or climbing out with "..".
func RepoPath(root, f string) (rel string, ok bool) {
	switch {
	case f == "":
		return "", true
	case !filepath.IsAbs(f):
		rel = filepath.Clean(filepath.FromSlash(f))
		if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false
		}
		return filepath.ToSlash(rel), true
	}
	if rel, ok = below(root, f); ok {
		return rel, true
	}
	return below(resolved(root), resolved(f))
}

// resolved is the absolute path p with the links of its longest part
// that exists resolved (a file may be named before it is made, or after
// it is gone).
func resolved(p string) string {
	for dir, rest := p, ""; ; dir, rest = filepath.Dir(dir), filepath.Join(filepath.Base(dir), rest) {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
	}
}

// below is the absolute file relative to root, with forward slashes,
// when it lies below root.
func below(root, file string) (string, bool) {
	rel, err := filepath.Rel(root, file)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
