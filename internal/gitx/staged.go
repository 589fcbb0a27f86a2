package gitx

import (
	"path/filepath"
	"strings"

	"lore/internal/gitx/gitindex"

	"github.com/go-git/go-git/v5/plumbing"
)

// StagedFile is a file as the index holds it: what the next commit will
// contain.
type StagedFile struct {
	Path string // slash-separated, relative to the worktree
	Data []byte
	// Unmerged is set for a path with conflict stages (a merge not yet
	// resolved); Data is then empty.
	Unmerged bool
}

// StagedFiles reads the index's files under prefix (a slash-separated
// directory of the worktree, "" for all), in path order. It honours
// GIT_INDEX_FILE, which git sets for a pre-commit hook when it commits
// from a temporary index (git commit -a, git commit <paths>).
func (r *Repo) StagedFiles(prefix string) ([]StagedFile, error) {
	path := filepath.Join(r.GitDir, "index")
	if p := r.getenv("GIT_INDEX_FILE"); p != "" {
		path = p
		if !filepath.IsAbs(p) {
			path = filepath.Join(r.WorkTree, p) // git runs hooks at the top of the worktree
		}
	}
	idx, err := gitindex.Read(path)
	if err != nil {
		return nil, err
	}
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	var out []StagedFile
	for i := range idx.Entries {
		e := &idx.Entries[i]
		if !strings.HasPrefix(e.Path, prefix) || e.Mode&0o170000 == 0o160000 { // gitlinks hold no blob
			continue
		}
		if n := len(out); n > 0 && out[n-1].Path == e.Path {
			continue // another stage of an unmerged path
		}
		if e.Stage() != 0 {
			out = append(out, StagedFile{Path: e.Path, Unmerged: true})
			continue
		}
		if e.ExtFlags&gitindex.ExtFlagIntentToAdd != 0 {
			continue // git add -N: nothing staged yet
		}
		data, err := r.readObject(plumbing.BlobObject, e.Hash)
		if err != nil {
			return nil, err
		}
		out = append(out, StagedFile{Path: e.Path, Data: data})
	}
	return out, nil
}
