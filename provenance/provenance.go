// Package provenance is what an entry cites and whether it still holds:
// the files an entry names (given, found in its text, or the files the
// iteration that wrote it modified), each stamped with its blob and the
// commit the store was at (package mdstore/cites keeps them), and, for
// each, whether git's HEAD still has that content there. An entry is
// stale when a file it cites changed or is gone; a file moved unchanged
// is followed. Nothing is guessed: git says what changed, and which
// commits changed it.
package provenance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// maxCitedFile bounds the file read to stamp a citation.
const maxCitedFile = 64 << 20

// fileRef is a path-like word with an extension, and its lines:
// "internal/auth/login.go", "login.go:42", "src/a.ts:10-40". Compiled
// when first asked for: at start-up it cost every lore process 0.2 ms.
var fileRef = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?:^|[\\s(`'\"\\[])((?:\\.{0,2}/)?[A-Za-z0-9_.-][A-Za-z0-9_./-]*\\.[A-Za-z0-9]{1,10}(?::[0-9]+(?:-[0-9]+)?)?)")
})

// Refs are the files text names that exist in the worktree at top, as
// file[:lines], each once: what an entry's text cites without saying so.
// Files of the store itself (.agent/) are no citation.
func Refs(top, text string) []string {
	var out []string
	for _, r := range refsIn(top, text) {
		if info, err := os.Lstat(filepath.Join(top, filepath.FromSlash(r.file))); err != nil || !info.Mode().IsRegular() {
			continue
		}
		if !slices.Contains(out, r.String()) {
			out = append(out, r.String())
		}
	}
	return out
}

// ref is a file a text names, relative to the repository's top, and
// the lines it names of it ("" for all).
type ref struct{ file, lines string }

func (r ref) String() string {
	if r.lines == "" {
		return r.file
	}
	return r.file + ":" + r.lines
}

// refsIn are the path-like words of text inside the repository at top
// and outside the store, in order, whether or not a file is there.
func refsIn(top, text string) []ref {
	var out []ref
	for _, m := range fileRef().FindAllStringSubmatch(text, -1) {
		file, lines := cites.ParseRef(strings.TrimRight(m[1], ".,;:"))
		rel, ok := fsx.RepoPath(top, file)
		if !ok || rel == "" || strings.HasPrefix(rel, entry.Dir+"/") {
			continue
		}
		out = append(out, ref{rel, lines})
	}
	return out
}

// Stamper stamps citations in one repository.
type Stamper struct {
	repo *gitx.Repo
	top  string
}

// NewStamper is the stamper of s's repository; nil outside git (nothing
// is cited there).
func NewStamper(s *mdstore.Store) *Stamper {
	if s.Repo() == nil {
		return nil
	}
	return &Stamper{repo: s.Repo(), top: s.Repo().WorkTree}
}

// Stamp makes refs (file[:lines], relative to the repository's top or
// absolute inside it) citations: each file's blob as the worktree holds
// it now, and HEAD. A ref that is no regular file of the repository, or
// one of the store's own, is an error naming it.
func (st *Stamper) Stamp(refs []string) ([]cites.Cite, error) {
	if st == nil || len(refs) == 0 {
		return nil, nil
	}
	commit := st.head()
	var out []cites.Cite
	for _, ref := range refs {
		c, err := st.stamp(ref, commit)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// head is HEAD as a citation records it, "" before the first commit.
func (st *Stamper) head() string {
	if h, _ := st.repo.HeadCommit(); !h.IsZero() {
		return h.String()
	}
	return ""
}

// stamp is Stamp of one ref at commit.
func (st *Stamper) stamp(ref, commit string) (cites.Cite, error) {
	file, lines := cites.ParseRef(strings.TrimSpace(ref))
	rel, ok := fsx.RepoPath(st.top, file)
	switch {
	case !ok || rel == "":
		return cites.Cite{}, &entry.InputError{Field: "cite", Msg: fmt.Sprintf("cite: %s is outside the repository: lore cites the repository's files", ref)}
	case strings.HasPrefix(rel, entry.Dir+"/"):
		return cites.Cite{}, &entry.InputError{Field: "cite", Msg: fmt.Sprintf("cite: %s is a file of the store itself: cite the code or the documents an entry is about", ref)}
	}
	data, err := fsx.ReadRegular(filepath.Join(st.top, filepath.FromSlash(rel)), maxCitedFile)
	if errors.Is(err, fs.ErrNotExist) {
		return cites.Cite{}, &entry.InputError{Field: "cite", Msg: fmt.Sprintf("cite: %s: no such file in the worktree", ref)}
	}
	if err != nil {
		return cites.Cite{}, &entry.InputError{Field: "cite", Msg: fmt.Sprintf("cite: %s: %v", ref, err)}
	}
	return cites.Cite{File: rel, Lines: lines, Blob: gitx.BlobHash(data).String(), Commit: commit}, nil
}

// Names says whether text names something that may be a file of the
// repository (a path-like word): what At looks for.
func (st *Stamper) Names(text string) bool {
	return st != nil && len(refsIn(st.top, text)) > 0
}

// At is what text cites as commit held the files it names: each path
// of text that is a file in commit's tree, and each bare file name
// ("login.go") that names exactly one file there, stamped with that
// file's blob in commit and with commit — for an entry written before
// lore kept citations, by the commit that wrote it (lore cite).
func (st *Stamper) At(commit gitx.Hash, text string) ([]cites.Cite, error) {
	if st == nil || commit.IsZero() {
		return nil, nil
	}
	refs := refsIn(st.top, text)
	if len(refs) == 0 {
		return nil, nil
	}
	paths := make([]string, len(refs))
	for i, r := range refs {
		paths[i] = r.file
	}
	blobs, err := st.repo.BlobsAt(commit, paths)
	if err != nil {
		return nil, err
	}
	bare := map[string]bool{}
	for _, r := range refs {
		if blobs[r.file].IsZero() && !strings.Contains(r.file, "/") {
			bare[r.file] = true
		}
	}
	named, err := st.repo.PathsNamed(commit, bare)
	if err != nil {
		return nil, err
	}
	if len(named) > 0 {
		var found []string
		for _, ps := range named {
			if len(ps) == 1 {
				found = append(found, ps[0])
			}
		}
		more, err := st.repo.BlobsAt(commit, found)
		if err != nil {
			return nil, err
		}
		for p, b := range more {
			blobs[p] = b
		}
	}
	var out []cites.Cite
	for _, r := range refs {
		file := r.file
		if blobs[file].IsZero() {
			if ps := named[file]; len(ps) == 1 && !strings.HasPrefix(ps[0], entry.Dir+"/") {
				file = ps[0]
			} else {
				continue
			}
		}
		c := cites.Cite{File: file, Lines: r.lines, Blob: blobs[file].String(), Commit: commit.String()}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// StampEach stamps each ref that is a file of the worktree now, leaving
// out the others (a file the iteration deleted): an iteration's files.
func (st *Stamper) StampEach(refs []string) []cites.Cite {
	if st == nil || len(refs) == 0 {
		return nil
	}
	commit := st.head()
	var out []cites.Cite
	for _, ref := range refs {
		if c, err := st.stamp(ref, commit); err == nil && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// Named is what an entry an iteration wrote cites: the files its text
// names (Refs), and those of the iteration's (files) whose name its text
// holds ("login.go" for src/auth/login.go). Not every file the iteration
// changed: a loop's own files (its progress log, its task list) change in
// every iteration, and would make every entry stale at the next.
func (st *Stamper) Named(text string, files []cites.Cite) []cites.Cite {
	if st == nil {
		return nil
	}
	out := st.StampEach(Refs(st.top, text))
	for _, f := range files {
		base := f.File[strings.LastIndexByte(f.File, '/')+1:]
		if strings.Contains(text, base) && !slices.ContainsFunc(out, func(c cites.Cite) bool { return c.File == f.File }) {
			out = append(out, f)
		}
	}
	return out
}

// StampFound stamps the refs given and what Refs finds in text, leaving
// out a found one that cannot be stamped (given ones are errors).
func (st *Stamper) StampFound(given []string, text string) ([]cites.Cite, error) {
	if st == nil {
		return nil, nil
	}
	out, err := st.Stamp(given)
	if err != nil {
		return nil, err
	}
	for _, c := range st.StampEach(Refs(st.top, text)) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// Also is an mdstore.Also that records cs as what the entry an add
// writes (a memory, a learning or a knowledge entry, by its new id)
// cites, in the add's commit.
func Also(cs []cites.Cite) mdstore.Also {
	return func(tx *mdstore.Tx, newID string) ([]string, error) {
		if len(cs) == 0 {
			return nil, nil
		}
		key := newID
		switch kind, id := entry.KindOfID(newID); kind {
		case entry.KindLearning:
			key = entry.LearningPath(id)
		case entry.KindKnowledge:
			key = entry.KnowledgePath(id)
		}
		tx.Apply(mdstore.Edit{Path: cites.Path, Op: mdstore.OpCite, ID: cites.KeyOf(key), Cites: cs})
		return nil, nil
	}
}

// Recite records, as one commit, what each entry of set (by cites.KeyOf
// key) cites now: lore verify's re-stamp.
func Recite(s *mdstore.Store, set map[string][]cites.Cite, subject string) (*mdstore.WriteResult, error) {
	return s.Write(func(tx *mdstore.Tx) error {
		keys := make([]string, 0, len(set))
		for k := range set {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			tx.Apply(mdstore.Edit{Path: cites.Path, Op: mdstore.OpCite, ID: k, Cites: set[k]})
		}
		tx.SetMessage(mdstore.CommitMessage(subject, strings.Join(keys, "\n"), "Lore-Kind", "citations"))
		return nil
	})
}
