package mdstore

import (
	"fmt"
	"strconv"

	"lore/internal/fsx"
	"lore/internal/words"
	"lore/mdstore/entry"
)

// RepoFile is fsx.RepoPath at the top of the store's repository (top).
func (s *Store) RepoFile(f string) (rel string, ok bool) {
	return fsx.RepoPath(s.top(), f)
}

// top is where the store's files are named from: its worktree's top, as
// lore run records the files git status lists, or outside git the
// store's root.
func (s *Store) top() string {
	if s.repo != nil {
		return s.repo.WorkTree
	}
	return s.root
}

// repoFiles makes each of files a path of the store's repository
// (RepoFile). One outside it is an InputError naming it: lore records
// only the repository's files. The files have passed the secret check,
// so that the message cannot show a secret.
func (s *Store) repoFiles(files []string) ([]string, error) {
	out := make([]string, 0, len(files))
	for _, f := range files {
		rel, ok := s.RepoFile(f)
		if !ok {
			return nil, &entry.InputError{Field: "files", Msg: fmt.Sprintf("files: %s is outside the repository (%s): lore records only the repository's files; name them relative to its top",
				strconv.Quote(words.Shorten(f, 80)), s.top())}
		}
		out = append(out, rel)
	}
	return out, nil
}
