package mdstore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

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
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	defer f.Close()
	var b strings.Builder
	if info, err := f.Stat(); err == nil {
		b.Grow(int(info.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return b.String(), nil
}

// Memory returns the memory with the given id, or a NotFoundError.
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
	return Memory{}, warnings, notFound(KindMemory, id)
}

// fileReader reads store files: the Store reads the worktree directly, a
// storeTx reads it while the repository is locked.
type fileReader interface {
	read(p string) ([]byte, bool, error)
	readDir(p string) ([]os.DirEntry, error)
}

func (s *Store) read(p string) ([]byte, bool, error) {
	data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	return data, true, nil
}

func (s *Store) readDir(p string) ([]os.DirEntry, error) {
	entries, err := os.ReadDir(filepath.Join(s.root, filepath.FromSlash(p)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return entries, nil
}

// asWarning turns a file's error into a warning for the files that are
// reported and skipped.
func asWarning(err error, path string) Warning {
	var fe *FileError
	if errors.As(err, &fe) {
		return Warning{Path: fe.Path, Line: fe.Line, Message: fe.Msg + "; skipped"}
	}
	return Warning{Path: path, Message: err.Error() + "; skipped"}
}

// readMarkdownFiles parses every *.md file of dir with parse; a file that
// does not parse is reported and skipped.
func readMarkdownFiles[T any](r fileReader, dir string, parse func([]byte, string) (T, error)) ([]T, []Warning, error) {
	paths, err := markdownFiles(r, dir)
	if err != nil {
		return nil, nil, err
	}
	out, warnings := parseFiles(r, paths, parse)
	return out, warnings, nil
}

// markdownFiles lists the entry files (*.md, not hidden) in dir.
func markdownFiles(r fileReader, dir string) ([]string, error) {
	entries, err := r.readDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		paths = append(paths, dir+"/"+e.Name())
	}
	return paths, nil
}

// parseFiles reads and parses the files at paths, in order; a file that
// cannot be read or parsed is a warning and is skipped. The worktree's
// files are read on every core: a store of 10,000 entries is 10,000 reads
// and YAML parses.
func parseFiles[T any](r fileReader, paths []string, parse func([]byte, string) (T, error)) ([]T, []Warning) {
	type result struct {
		v       T
		ok      bool
		warning *Warning
	}
	results := make([]result, len(paths))
	one := func(i int) {
		p := paths[i]
		data, ok, err := r.read(p)
		switch {
		case err != nil:
			results[i].warning = &Warning{Path: p, Message: err.Error() + "; skipped"}
		case ok:
			v, err := parse(data, p)
			if err != nil {
				w := asWarning(err, p)
				results[i].warning = &w
			} else {
				results[i] = result{v: v, ok: true}
			}
		}
	}
	workers := 1
	if _, worktree := r.(*Store); worktree {
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

func loadKnowledge(r fileReader) ([]Knowledge, []Warning, error) {
	return readMarkdownFiles(r, KnowledgeDir, parseKnowledge)
}

func loadLearnings(r fileReader) ([]Learning, []Warning, error) {
	ls, warnings, err := readMarkdownFiles(r, LearningsDir, parseLearning)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].CreatedAt < ls[j].CreatedAt })
	return ls, warnings, err
}

func loadJournal(r fileReader) ([]JournalEntry, []Warning, error) {
	runs, err := r.readDir(JournalDir)
	if err != nil {
		return nil, nil, err
	}
	var paths []string
	for _, run := range runs {
		if !run.IsDir() || strings.HasPrefix(run.Name(), ".") {
			continue
		}
		ps, err := markdownFiles(r, JournalDir+"/"+run.Name())
		if err != nil {
			return nil, nil, err
		}
		paths = append(paths, ps...)
	}
	all, warnings := parseFiles(r, paths, parseJournal)
	sortJournal(all)
	return all, warnings, nil
}

// Knowledge returns every readable knowledge entry, by title.
func (s *Store) Knowledge() ([]Knowledge, []Warning, error) {
	ks, ws, err := loadKnowledge(s)
	sortKnowledge(ks)
	return ks, ws, err
}

// KnowledgeEntry returns the entry stored as <slug>.md, or a NotFoundError.
func (s *Store) KnowledgeEntry(slug string) (Knowledge, error) {
	slug = strings.TrimSuffix(slug, ".md")
	if slug == "" || strings.ContainsAny(slug, `/\`) || strings.HasPrefix(slug, ".") {
		return Knowledge{}, notFound(KindKnowledge, slug)
	}
	p := KnowledgePath(slug)
	data, ok, err := s.read(p)
	if err != nil {
		return Knowledge{}, err
	}
	if !ok {
		return Knowledge{}, notFound(KindKnowledge, slug)
	}
	return parseKnowledge(data, p)
}

// Learnings returns every readable learning, oldest first.
func (s *Store) Learnings() ([]Learning, []Warning, error) { return loadLearnings(s) }

// Learning returns the learning with the given id, or a NotFoundError.
func (s *Store) Learning(id string) (Learning, error) {
	if !ValidLearningID(id) {
		return Learning{}, notFound(KindLearning, id)
	}
	p := LearningPath(id)
	data, ok, err := s.read(p)
	if err != nil {
		return Learning{}, err
	}
	if !ok {
		return Learning{}, notFound(KindLearning, id)
	}
	return parseLearning(data, p)
}

// Journal returns every readable journal entry by run and iteration.
func (s *Store) Journal() ([]JournalEntry, []Warning, error) { return loadJournal(s) }

// JournalEntry returns the entry "<run>/<iteration>", or a NotFoundError.
func (s *Store) JournalEntry(key string) (JournalEntry, error) {
	run, it, err := parseJournalKey(key)
	if err != nil {
		return JournalEntry{}, err
	}
	p := JournalPath(run, it)
	data, ok, err := s.read(p)
	if err != nil {
		return JournalEntry{}, err
	}
	if !ok {
		return JournalEntry{}, notFound(KindJournal, key)
	}
	return parseJournal(data, p)
}
