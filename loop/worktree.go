package loop

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"lore/mdstore"
	"lore/mdstore/entry"
)

// worktree reads what the files of the store's git worktree hold, to
// tell which the iteration changed.
//
// It runs C git: internal/gitx has no status or diff of the worktree —
// lore's own writes never scan it, by design — and git's stat cache,
// ignore rules and untracked-file listing are too much to redo for one
// command whose caller (an orchestrator running an agent that edits a
// checkout) has git at hand anyway. GIT_OPTIONAL_LOCKS=0 keeps git status
// from rewriting the index.
type worktree struct {
	top     string // the worktree's top
	exclude string // the store's .agent/, relative to top
}

// worktreeOf is the store's worktree, nil outside git.
func worktreeOf(s *mdstore.Store) *worktree {
	repo := s.Repo()
	if repo == nil {
		return nil
	}
	_, prefix := s.GitIndex()
	return &worktree{top: repo.WorkTree, exclude: path.Join(prefix, entry.Dir) + "/"}
}

// worktreeState is HEAD, and each path git status lists with a hash of
// what it holds.
type worktreeState struct {
	head  string // "" on an unborn branch
	dirty map[string]string
}

func (w *worktree) git(args ...string) ([]byte, error) { return runGit(w.top, args...) }

func (w *worktree) read() (worktreeState, error) {
	st := worktreeState{dirty: map[string]string{}}
	if w == nil {
		return st, nil
	}
	head, err := w.git("rev-parse", "-q", "--verify", "HEAD^{commit}")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 { // quietly: an unborn branch
		err = nil
	}
	if err != nil {
		return st, err
	}
	st.head = strings.TrimSpace(string(head))
	// The store is left out here already: git does not walk it (a store
	// of 10,000 entries costs git status 5 ms more).
	out, err := w.git("status", "--porcelain", "-z", "--untracked-files=all", "--", ":(exclude,top)"+strings.TrimSuffix(w.exclude, "/"))
	if err != nil {
		return st, err
	}
	fields := strings.Split(string(out), "\x00")
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		paths := []string{f[3:]}
		if strings.ContainsAny(f[:2], "RC") && i+1 < len(fields) { // a rename's or copy's other path follows
			i++
			paths = append(paths, fields[i])
		}
		for _, p := range paths {
			st.dirty[p] = contentHash(filepath.Join(w.top, filepath.FromSlash(p)))
		}
	}
	return st, nil
}

// contentHash tells whether a file changed: a hash of what a regular
// file holds, a link's target, or "" for a path that holds nothing.
func contentHash(name string) string {
	info, err := os.Lstat(name)
	switch {
	case err != nil:
		return ""
	case info.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(name)
		return "link " + target
	case !info.Mode().IsRegular():
		return info.Mode().Type().String()
	}
	f, err := os.Open(name)
	if err != nil {
		return "unreadable"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unreadable"
	}
	return fmt.Sprintf("%o %s", info.Mode().Perm()&0o100, hex.EncodeToString(h.Sum(nil)))
}

// emptyTree is git's empty tree, what an unborn branch is compared from.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// changed lists the files that differ between before and after, outside
// .agent/: the paths git status lists in one and not the other, or with
// other content, and those of the commits made in between.
func (w *worktree) changed(before, after worktreeState) ([]string, error) {
	set := map[string]bool{}
	for p, h := range after.dirty {
		if old, ok := before.dirty[p]; !ok || old != h {
			set[p] = true
		}
	}
	for p := range before.dirty {
		if _, ok := after.dirty[p]; !ok {
			set[p] = true
		}
	}
	if after.head != before.head && after.head != "" {
		from := before.head
		if from == "" {
			from = emptyTree
		}
		out, err := w.git("diff", "--name-only", "--no-renames", "-z", from, after.head, "--")
		if err != nil {
			return nil, err
		}
		for _, p := range strings.Split(string(out), "\x00") {
			if p != "" {
				set[p] = true
			}
		}
	}
	var files []string
	for p := range set {
		if !strings.HasPrefix(p, w.exclude) {
			files = append(files, p)
		}
	}
	slices.Sort(files)
	return files, nil
}
