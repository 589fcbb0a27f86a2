package entry

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"lore/internal/fsx"
)

// Reader reads store files: the Store reads the worktree directly, a
// storeTx reads it while the repository is locked. Both read only regular
// files, through no symbolic link, each at most its ReadLimit; what they
// do not read is an fsx.SkipError (see Skipped).
type Reader interface {
	Read(p string) ([]byte, bool, error)
	ReadDir(p string) ([]os.DirEntry, error)
}

// ParallelReader is a Reader whose reads may run on every core at once
// (the worktree's files); the files of a transaction are read in turn.
type ParallelReader interface {
	Reader
	ParallelReads() bool
}

// Skipped is the warning for store path p when err says that lore does
// not read p, or a directory on its way (an fsx.SkipError, also wrapped
// as gitx wraps it): "skipped: a symbolic link", "skipped: not a regular
// file (a named pipe)", "skipped: larger than 16 MiB", naming what was
// skipped. skipped is false for any other error. The warning is nil for a
// SkillLink, which is skipped without a word.
func Skipped(p string, err error) (w *Warning, skipped bool) {
	se, ok := fsx.Skipped(err)
	if !ok {
		return nil, false
	}
	// What was skipped: p, or the directory on its way that se names.
	at := p
	abs := filepath.ToSlash(se.Path)
	for q := p; q != "." && q != "/" && q != ""; q = path.Dir(q) {
		if abs == q || strings.HasSuffix(abs, "/"+q) {
			at = q
			break
		}
	}
	if errors.Is(se, fsx.ErrSymlink) {
		return LinkSkipped(at, se.Path), true
	}
	return &Warning{Path: at, Message: "skipped: " + se.Reason()}, true
}

// LinkSkipped is the warning for the symbolic link at store path p (abs
// on disk), which lore does not follow: nil for a SkillLink.
func LinkSkipped(p, abs string) *Warning {
	if target, err := os.Readlink(abs); err == nil && SkillLink(p, target) {
		return nil
	}
	return &Warning{Path: p, Message: "skipped: a symbolic link"}
}

// warningsOf is the warning w, if any, as a list.
func WarningsOf(w *Warning) []Warning {
	if w == nil {
		return nil
	}
	return []Warning{*w}
}

// asWarning turns a file's error into a warning for the files that are
// reported and skipped (nil for a SkillLink).
func AsWarning(err error, path string) *Warning {
	if w, skipped := Skipped(path, err); skipped {
		return w
	}
	var fe *FileError
	if errors.As(err, &fe) {
		return &Warning{Path: fe.Path, Line: fe.Line, Message: fe.Msg + "; skipped"}
	}
	return &Warning{Path: path, Message: err.Error() + "; skipped"}
}

// readMarkdownFiles parses every *.md file of dir with parse; a file that
// does not parse is reported and skipped.
func readMarkdownFiles[T any](r Reader, dir string, parse func([]byte, string) (T, error)) ([]T, []Warning, error) {
	paths, w, err := MarkdownFiles(r, dir)
	if err != nil {
		return nil, nil, err
	}
	out, ws := parseFiles(r, paths, parse)
	return out, append(WarningsOf(w), ws...), nil
}

// markdownFiles lists the entry files (*.md, not hidden) in dir: every
// name but a directory's, so that a link or a FIFO is read, refused and
// reported like a file that does not parse. A dir that lore does not read
// (a link) is a warning.
func MarkdownFiles(r Reader, dir string) ([]string, *Warning, error) {
	entries, err := r.ReadDir(dir)
	if w, skipped := Skipped(dir, err); skipped {
		return nil, w, nil
	}
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		paths = append(paths, dir+"/"+e.Name())
	}
	return paths, nil, nil
}

// parseFiles reads and parses the files at paths, in order; a file that
// cannot be read or parsed is a warning and is skipped. The worktree's
// files are read on every core: a store of 10,000 entries is 10,000 reads
// and YAML parses.
func parseFiles[T any](r Reader, paths []string, parse func([]byte, string) (T, error)) ([]T, []Warning) {
	type result struct {
		v       T
		ok      bool
		warning *Warning
	}
	results := make([]result, len(paths))
	one := func(i int) {
		p := paths[i]
		data, ok, err := r.Read(p)
		switch {
		case err != nil:
			results[i].warning = AsWarning(err, p)
		case ok:
			v, err := parse(data, p)
			if err != nil {
				results[i].warning = AsWarning(err, p)
			} else {
				results[i] = result{v: v, ok: true}
			}
		}
	}
	workers := 1
	if pr, ok := r.(ParallelReader); ok && pr.ParallelReads() {
		workers = min(runtime.GOMAXPROCS(0), 8, (len(paths)+31)/32)
	}
	if workers <= 1 {
		for i := range paths {
			one(i)
		}
	} else {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(paths); i += workers {
					one(i)
				}
			}()
		}
		wg.Wait()
	}
	var out []T
	var warnings []Warning
	for _, res := range results {
		if res.ok {
			out = append(out, res.v)
		} else if res.warning != nil {
			warnings = append(warnings, *res.warning)
		}
	}
	return out, warnings
}

func LoadKnowledge(r Reader) ([]Knowledge, []Warning, error) {
	return readMarkdownFiles(r, KnowledgeDir, ParseKnowledge)
}

func LoadLearnings(r Reader) ([]Learning, []Warning, error) {
	ls, warnings, err := readMarkdownFiles(r, LearningsDir, ParseLearning)
	SortLearnings(ls)
	return ls, warnings, err
}

// sortLearnings puts learnings oldest first, the order every read of them
// gives (compareLearnings), then by path.
func SortLearnings(ls []Learning) {
	slices.SortStableFunc(ls, func(a, b Learning) int {
		if c := CompareLearnings(&a, &b); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// compareLearnings orders learnings oldest first.
func CompareLearnings(a, b *Learning) int { return strings.Compare(a.CreatedAt, b.CreatedAt) }

func LoadJournal(r Reader) ([]JournalEntry, []Warning, error) {
	runs, err := r.ReadDir(JournalDir)
	if w, skipped := Skipped(JournalDir, err); skipped {
		return nil, WarningsOf(w), nil
	}
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	var ws []Warning
	for _, run := range runs {
		if strings.HasPrefix(run.Name(), ".") {
			continue
		}
		p := JournalDir + "/" + run.Name()
		if run.Type()&fs.ModeSymlink != 0 {
			ws = append(ws, Warning{Path: p, Message: "skipped: a symbolic link"})
			continue
		}
		if !run.IsDir() {
			continue
		}
		ps, w, err := MarkdownFiles(r, p)
		if err != nil {
			return nil, nil, err
		}
		ws = append(ws, WarningsOf(w)...)
		paths = append(paths, ps...)
	}
	all, pws := parseFiles(r, paths, ParseJournal)
	SortJournal(all)
	return all, append(ws, pws...), nil
}
