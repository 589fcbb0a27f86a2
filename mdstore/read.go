package mdstore

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"lore/internal/fsx"
)

// Memories returns every valid memory in file order and the problems found.
// A store without memories.md has no memories; one whose memories.md is
// not a file lore reads (a link, a FIFO, larger than MemoriesReadLimit)
// has none either, and a warning says why.
func (s *Store) Memories() ([]Memory, []Warning, error) {
	if ms, ws, ok := s.cachedMemories(); ok {
		return ms, ws, nil
	}
	before, statErr := fsx.Lstat(s.abs(MemoriesPath))
	data, ok, err := s.read(MemoriesPath)
	if w, skipped := Skipped(MemoriesPath, err); skipped {
		return nil, warningsOf(w), nil
	}
	if err != nil {
		return nil, nil, err
	}
	// The bytes are this function's alone and never changed: the
	// memories' strings point into them rather than into a copy.
	f := parseMemoriesText(bytesText(data), MemoriesPath)
	if ok && statErr == nil {
		s.cacheMemories(before, f.memories, f.warnings)
	}
	return f.memories, f.warnings, nil
}

// bytesText is b as a string without a copy; b must never change after.
func bytesText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
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
// storeTx reads it while the repository is locked. Both read only regular
// files, through no symbolic link, each at most its ReadLimit; what they
// do not read is an fsx.SkipError (see Skipped).
type fileReader interface {
	read(p string) ([]byte, bool, error)
	readDir(p string) ([]os.DirEntry, error)
}

func (s *Store) abs(p string) string { return filepath.Join(s.root, filepath.FromSlash(p)) }

// hidden says whether p is under a .agent that is not read (unusable):
// it reads as missing, and the one warning was config.yaml's.
func (s *Store) hidden(p string) bool {
	return s.unusable != nil && (p == Dir || strings.HasPrefix(p, Dir+"/"))
}

// read reads store file p, a regular file of at most ReadLimit(p) bytes;
// a link as p's last element is not followed. The directories on its way
// are the caller's to check: listed with readDir first, or checked by
// readEntry.
func (s *Store) read(p string) ([]byte, bool, error) {
	if s.hidden(p) {
		return nil, false, nil
	}
	data, err := fsx.ReadRegular(s.abs(p), ReadLimit(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if _, skipped := fsx.Skipped(err); err != nil && !skipped {
		return nil, false, fmt.Errorf("read %s: %w", p, err)
	}
	return data, err == nil, err
}

// readEntry reads the one store file p that a command names (show, a
// knowledge entry by slug): its directories are checked for links first,
// and a file lore does not read is an error that says why.
func (s *Store) readEntry(p string) ([]byte, bool, error) {
	err := fsx.CheckDirs(s.root, p)
	var data []byte
	var ok bool
	if err == nil {
		data, ok, err = s.read(p)
	}
	if w, skipped := Skipped(p, err); skipped {
		if w == nil {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("%s: not read: %s", w.Path, strings.TrimPrefix(w.Message, "skipped: "))
	}
	return data, ok, err
}

// readDir lists store directory p, never through a link: a directory on
// its way or p itself that is a link is an fsx.SkipError.
func (s *Store) readDir(p string) ([]os.DirEntry, error) {
	if s.hidden(p) {
		return nil, nil
	}
	err := fsx.CheckDirs(s.root, p)
	var entries []os.DirEntry
	if err == nil {
		entries, err = fsx.ReadDir(s.abs(p))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if _, skipped := fsx.Skipped(err); err != nil && !skipped {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	return entries, err
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
func warningsOf(w *Warning) []Warning {
	if w == nil {
		return nil
	}
	return []Warning{*w}
}

// asWarning turns a file's error into a warning for the files that are
// reported and skipped (nil for a SkillLink).
func asWarning(err error, path string) *Warning {
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
func readMarkdownFiles[T any](r fileReader, dir string, parse func([]byte, string) (T, error)) ([]T, []Warning, error) {
	paths, w, err := markdownFiles(r, dir)
	if err != nil {
		return nil, nil, err
	}
	out, ws := parseFiles(r, paths, parse)
	return out, append(warningsOf(w), ws...), nil
}

// markdownFiles lists the entry files (*.md, not hidden) in dir: every
// name but a directory's, so that a link or a FIFO is read, refused and
// reported like a file that does not parse. A dir that lore does not read
// (a link) is a warning.
func markdownFiles(r fileReader, dir string) ([]string, *Warning, error) {
	entries, err := r.readDir(dir)
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

// listMarkdownFiles is markdownFiles(s, dir) for the files on disk,
// with each file's inode (0 where the system gives none), in path order:
// a file of a directory that changed is known unchanged when its inode is
// (nothing was renamed over it), without a stat of each file.
func (s *Store) listMarkdownFiles(dir string) (paths []string, inos []uint64, w *Warning, err error) {
	if s.hidden(dir) {
		return nil, nil, nil, nil
	}
	type file struct {
		name string
		ino  uint64
	}
	var files []file
	err = fsx.CheckDirs(s.root, dir)
	if err == nil {
		err = fsx.ListDir(s.abs(dir), func(e fsx.Dirent) error {
			if !e.Dir && bytes.HasSuffix(e.Name, []byte(".md")) && !bytes.HasPrefix(e.Name, []byte(".")) {
				files = append(files, file{string(e.Name), e.Ino})
			}
			return nil
		})
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil, nil
	}
	if w, skipped := Skipped(dir, err); skipped {
		return nil, nil, w, nil
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read %s: %w", dir, err)
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.name, b.name) })
	paths, inos = make([]string, len(files)), make([]uint64, len(files))
	for i, f := range files {
		paths[i], inos[i] = dir+"/"+f.name, f.ino
	}
	return paths, inos, nil, nil
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
			results[i].warning = asWarning(err, p)
		case ok:
			v, err := parse(data, p)
			if err != nil {
				results[i].warning = asWarning(err, p)
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
	sortLearnings(ls)
	return ls, warnings, err
}

// sortLearnings puts learnings oldest first, the order every read of them
// gives (compareLearnings), then by path.
func sortLearnings(ls []Learning) {
	slices.SortStableFunc(ls, func(a, b Learning) int {
		if c := compareLearnings(&a, &b); c != 0 {
			return c
		}
		return strings.Compare(a.Path, b.Path)
	})
}

// compareLearnings orders learnings oldest first.
func compareLearnings(a, b *Learning) int { return strings.Compare(a.CreatedAt, b.CreatedAt) }

func loadJournal(r fileReader) ([]JournalEntry, []Warning, error) {
	runs, err := r.readDir(JournalDir)
	if w, skipped := Skipped(JournalDir, err); skipped {
		return nil, warningsOf(w), nil
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
		ps, w, err := markdownFiles(r, p)
		if err != nil {
			return nil, nil, err
		}
		ws = append(ws, warningsOf(w)...)
		paths = append(paths, ps...)
	}
	all, pws := parseFiles(r, paths, parseJournal)
	sortJournal(all)
	return all, append(ws, pws...), nil
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
	data, ok, err := s.readEntry(p)
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
	data, ok, err := s.readEntry(p)
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

// JournalEntry returns the entry named key: its Key ("<run>/<name>", the
// file's name), or "<run>/<iteration>" ("run-1a2b3c4d/3" or
// "run-1a2b3c4d/0003"), which names the iteration with that number when
// no file has that very name. An iteration number two branches recorded
// names two entries: an InputError lists their keys. A NotFoundError when
// there is none.
func (s *Store) JournalEntry(key string) (JournalEntry, error) {
	run, name, err := parseJournalKey(key)
	if err != nil {
		return JournalEntry{}, err
	}
	dir := JournalDir + "/" + run
	p := dir + "/" + name + ".md"
	data, ok, err := s.readEntry(p)
	if err != nil {
		return JournalEntry{}, err
	}
	if !ok {
		n, err := strconv.Atoi(name)
		if err != nil {
			return JournalEntry{}, notFound(KindJournal, key)
		}
		if p, err = s.journalFileOf(dir, n, key); err != nil {
			return JournalEntry{}, err
		}
		if data, ok, err = s.readEntry(p); err != nil {
			return JournalEntry{}, err
		} else if !ok {
			return JournalEntry{}, notFound(KindJournal, key)
		}
	}
	return parseJournal(data, p)
}

// journalFileOf is the file of iteration n in run directory dir, for key:
// a NotFoundError when there is none, an InputError naming each when two
// branches recorded one.
func (s *Store) journalFileOf(dir string, n int, key string) (string, error) {
	entries, err := s.readDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range entries {
		if it, _, ok := JournalFileName(e.Name()); ok && it == n && e.Type().IsRegular() {
			found = append(found, dir+"/"+e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", notFound(KindJournal, key)
	case 1:
		return found[0], nil
	}
	keys := make([]string, len(found))
	for i, p := range found {
		keys[i] = path.Base(dir) + "/" + journalName(p)
	}
	sort.Strings(keys)
	return "", &InputError{Field: "entry", Msg: fmt.Sprintf("%s is %d iterations, recorded on different branches: %s; name one", key, len(keys), strings.Join(keys, ", "))}
}
