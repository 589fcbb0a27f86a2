package fresh

import (
	"bytes"
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"lore/index"
	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
	"lore/internal/storewatch"
	"lore/mdstore/entry"
)

// Changes is what a check found: documents to (re)index, document IDs to
// drop, and the Manifest that describes the store afterwards.
type Changes struct {
	Docs     []index.Doc
	Remove   []string
	Next     *Manifest
	Files    int  // entry files read again
	Changed  int  // entry files whose entries changed (or that are gone)
	Touched  bool // the manifest changed (also when no document did)
	Warnings []entry.Warning
}

// Empty says whether the index needs no document changed.
func (c *Changes) Empty() bool { return len(c.Docs) == 0 && len(c.Remove) == 0 }

// Store is what a check looks at: Root holds .agent/. In a git
// worktree, GitIndex is the worktree's index file and Prefix the root
// relative to the worktree's top ("" at the top); outside git both are "".
type Store struct {
	Root, GitIndex, Prefix string
}

// checker compares a store with a Manifest, and updates the Manifest as
// it goes: afterwards it describes the store.
type checker struct {
	root string // the store root, holding .agent/
	git  Store  // for the git index
	m    *Manifest
	now  int64 // nanoseconds, for the racy rule
	out  *Changes

	candidates map[string]bool     // entry files to stat
	listings   map[string]*listing // directories listed ahead, in parallel

	// sink, when set, takes documents in batches as they are read (a
	// rebuild does not hold the whole store in memory); progress hears how
	// many candidates were looked at.
	sink     func([]index.Doc) error
	progress func(done, total int)

	// Candidates looked at and found changed, for the prefault.
	looked, changed atomic.Int64
	total           int
}

func isRoot(p string) bool {
	for _, r := range entry.Roots {
		if p == r {
			return true
		}
	}
	return false
}

// hot files are checked before every search, whatever the store's size:
// memories.md, which holds many entries, and skills, which are few.
func hot(p string) bool {
	k := entry.KindOf(p)
	return k == entry.KindMemory || k == entry.KindSkill
}

// check finds what changed in the store since m was written, updating m
// to describe the store as it is. With every set, each entry file is
// looked at; otherwise only the watched paths are, and the files of a
// directory that changed.
func Check(s Store, m *Manifest, every bool, now int64) (*Changes, error) {
	return checkWith(s, m, every, now, nil, nil)
}

func checkWith(s Store, m *Manifest, every bool, now int64,
	sink func([]index.Doc) error, progress func(done, total int)) (*Changes, error) {
	c := &checker{root: s.Root, git: s, m: m, now: now, out: &Changes{}, candidates: map[string]bool{}, sink: sink, progress: progress}
	var dirty []string
	for p, rec := range m.watch {
		st, err := fsx.Lstat(c.abs(p))
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, err
		case err != nil || st.Dir == hot(p):
			// Gone, or a file became a directory: relisting its parent
			// drops it.
			if isRoot(p) {
				dirty = append(dirty, p)
			} else {
				dirty = append(dirty, path.Dir(p))
			}
		case rec.stat.Same(st):
		case hot(p):
			c.candidates[p] = true
		default:
			dirty = append(dirty, p)
		}
	}
	for _, r := range entry.Roots {
		_, watched := m.watch[r]
		below := fsx.CheckDirs(c.root, r) // .claude made a link to where .claude was
		switch {
		case watched && below != nil && !slices.Contains(dirty, r):
			dirty = append(dirty, r)
		case watched || below != nil:
		default:
			if st, err := fsx.Lstat(c.abs(r)); err == nil && st.Dir {
				dirty = append(dirty, r)
			}
		}
	}
	sort.Strings(dirty)
	// What git wrote is read from its index while the directories are
	// listed (after a pull, both): it is put to use after the listings,
	// in the order the check has always had.
	var written gitWrites
	var gitRead chan struct{}
	if !every {
		gitRead = make(chan struct{})
		go func() {
			defer close(gitRead)
			written = c.gitWrites()
		}()
	}
	c.listAll(dirty)
	if gitRead != nil {
		<-gitRead
	}
	for _, d := range dirty {
		if err := c.relist(d); err != nil {
			return nil, err
		}
	}
	if !every {
		if err := c.rewrittenByGit(written); err != nil {
			return nil, err
		}
	}
	if every || written.err != nil {
		for d := range m.segs {
			s, err := m.segment(d)
			if err != nil {
				return nil, err
			}
			s.each(func(name string, _ fileRecord) error {
				c.candidates[d+"/"+name] = true
				return nil
			})
		}
	}
	if err := c.statCandidates(); err != nil {
		return nil, err
	}
	if err := c.flush(0); err != nil {
		return nil, err
	}
	c.warnings()
	c.out.Next = m
	return c.out, nil
}

func (c *checker) abs(p string) string { return filepath.Join(c.root, filepath.FromSlash(p)) }

// relist reads directory d again: new entry files and directories are
// added, missing ones dropped, and a file whose inode changed (saved by
// renaming a new file over it, or recreated by git) is looked at. Reading
// a directory's entries costs far less than a stat of each of its files.
func (c *checker) relist(d string) error {
	l := c.listings[d]
	delete(c.listings, d)
	if l == nil {
		seg, err := c.m.segment(d)
		if err != nil {
			return err
		}
		if l, err = list(c.root, d, seg); err != nil {
			return err
		}
	}
	if l.gone {
		return c.dropUnder(d)
	}
	seg := l.seg
	c.touch()
	c.m.watch[d] = fileRecord{stat: l.st.IfSettled(c.now)}
	for p := range c.m.skipped { // found again below if still there
		if path.Dir(p) == d {
			delete(c.m.skipped, p)
		}
	}
	listed := l.listed          // files of the segment still there
	others := map[string]bool{} // directories and watched files still there
	for _, name := range l.replaced {
		c.candidates[d+"/"+name] = true
	}
	for _, e := range l.others {
		if err := c.other(d, seg, e, &listed, others); err != nil {
			return err
		}
	}
	// Anything recorded directly under d that is no longer there is gone.
	for p := range c.m.watch {
		if path.Dir(p) == d && !others[path.Base(p)] {
			if err := c.dropUnder(p); err != nil {
				return err
			}
		}
	}
	if listed == seg.len() {
		return nil
	}
	present := map[string]bool{}
	if err := fsx.ListDir(c.abs(d), func(e fsx.Dirent) error {
		if e.Regular {
			present[string(e.Name)] = true
		}
		return nil
	}); err != nil {
		return err
	}
	return seg.each(func(name string, _ fileRecord) error {
		if present[name] {
			return nil
		}
		return c.dropFile(d + "/" + name)
	})
}

// other handles an entry of directory d that is not a file of its
// segment: a directory, a watched file, a new or retyped entry file, or
// what lore does not read — a symbolic link or a FIFO where it would read
// a file or a directory, which is skipped with a warning (as index.LoadDocs
// and mdstore skip it). listed counts the segment's files still there;
// others collects the names of directories and watched files still there.
func (c *checker) other(d string, seg *segment, e fsx.Dirent, listed *int, others map[string]bool) error {
	name := string(e.Name)
	child := d + "/" + name
	read := entry.KindOf(child) != "" || (e.Symlink && entry.Descend(d, name))
	switch {
	case e.Symlink:
		if read {
			if w := entry.LinkSkipped(child, c.abs(child)); w != nil {
				c.skip(child, w.Message)
			}
		}
	case e.Dir && entry.Descend(d, name):
		others[name] = true
		if _, known := c.m.watch[child]; !known {
			return c.relist(child)
		}
	case e.Dir || !read:
	case !e.Regular:
		c.skip(child, "skipped: not a regular file")
	case hot(child):
		others[name] = true
		if rec, known := c.m.watch[child]; !known || rec.stat.Ino != e.Ino || e.Ino == 0 {
			c.candidates[child] = true
		}
	default:
		if _, known := seg.get(e.Name); known {
			*listed++
		}
		c.candidates[child] = true
	}
	return nil
}

// gitWrites is what git's index says it wrote under the store since the
// last check (storewatch.Git.Written): the entries, with the stat git
// recorded, and the look to record. It reads only git's index and what
// the manifest recorded of it, so it runs beside the listings.
type gitWrites struct {
	files   []gitWrite
	look    storewatch.Look
	changed bool  // git's index is not the one the manifest recorded
	err     error // git's index cannot tell: every file is looked at
}

// gitWrite is a file git wrote (its path relative to the store's root).
type gitWrite struct {
	path []byte
	stat gitindex.Stat
}

func (c *checker) gitWrites() (w gitWrites) {
	last := storewatch.Look{Stamp: c.m.git.stat, At: int64(c.m.git.hash)}
	git := storewatch.Git{Index: c.git.GitIndex, Prefix: c.git.Prefix}
	w.look, w.err = git.Written(entry.Dir, last, c.now, func(p []byte, g gitindex.Stat) {
		w.files = append(w.files, gitWrite{bytes.Clone(p), g})
	})
	w.changed = w.look != last
	return w
}

// rewrittenByGit makes candidates of the entry files git has written
// since the last check (gitWrites) whose stat the manifest does not have.
// Files changed by hand, which git has not seen, are the listings'
// business.
func (c *checker) rewrittenByGit(w gitWrites) error {
	if !w.changed {
		return nil
	}
	var dir string
	var seg *segment
	for _, f := range w.files {
		slash := bytes.LastIndexByte(f.path, '/')
		if string(f.path[:slash]) != dir {
			dir = string(f.path[:slash])
			if seg = c.m.segs[dir]; seg != nil {
				var err error
				if seg, err = c.m.segment(dir); err != nil {
					return err
				}
			}
		}
		if seg == nil {
			continue // a directory the manifest does not know: its listing finds the files
		}
		name := f.path[slash+1:]
		if rec, known := seg.get(name); known && !f.stat.Matches(rec.stat) {
			c.candidates[dir+"/"+string(name)] = true
		}
	}
	c.m.git = fileRecord{stat: w.look.Stamp, hash: uint64(w.look.At)}
	c.touch()
	return nil
}

// listing is one reading of a directory, sorted against its segment:
// it Changes nothing, so several directories are read at once.
type listing struct {
	seg      *segment
	st       fsx.Stamp    // of the directory, taken before its entries were read
	gone     bool         // it is no longer a directory
	listed   int          // files of the segment still there
	replaced []string     // those of them whose inode changed
	others   []fsx.Dirent // every other entry (names copied)
	summed   bool         // the files were known by their inode sum, not one by one
}

// list reads directory dir, whose files seg records. Most entries of a
// large directory are files seen before: those cost a lookup in seg, or
// nothing when the sum of the names' keys mixed with their inodes is
// seg's. The directory is stat'ed first, so a change made while
// it is read Changes its mtime after the one recorded.
func list(root, d string, seg *segment) (*listing, error) {
	l := &listing{seg: seg}
	dir := filepath.Join(root, filepath.FromSlash(d))
	st, err := fsx.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !st.Dir) {
		l.gone = true
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	// A directory below a link (.agent made a link since) is gone too:
	// nothing is read through a link.
	if err := fsx.CheckDirs(root, d); err != nil {
		if _, skipped := fsx.Skipped(err); skipped {
			l.gone = true
			return l, nil
		}
		return nil, err
	}
	l.st = st
	// The regular files, their names one after another in names.
	type file struct {
		at, n int
		ino   uint64
	}
	files := make([]file, 0, seg.count+64)
	names := make([]byte, 0, 16*(seg.count+64))
	var sum uint64 // of inodeMix over the files
	inodes := true // every file has one
	err = fsx.ListDir(dir, func(e fsx.Dirent) error {
		if !e.Regular {
			e.Name = bytes.Clone(e.Name)
			l.others = append(l.others, e)
			return nil
		}
		files = append(files, file{len(names), len(e.Name), e.Ino})
		names = append(names, e.Name...)
		sum += inodeMix(fnv64a(e.Name), e.Ino)
		inodes = inodes && e.Ino != 0
		return nil
	})
	if err != nil {
		return l, err
	}
	// After a pull that changed files (git rewrites a file under the
	// inode it just freed) the directory holds the same names under the
	// same inodes: one sum says so, without a lookup of each of 25,000
	// names.
	if want, ok := seg.inodeSum(); ok && inodes && len(files) == seg.len() && sum == want {
		l.listed, l.summed = len(files), true
		return l, nil
	}
	for _, f := range files {
		name := names[f.at : f.at+f.n]
		if rec, known := seg.get(name); known {
			l.listed++
			if storewatch.Replaced(rec.stat, f.ino) {
				l.replaced = append(l.replaced, string(name))
			}
			continue
		}
		l.others = append(l.others, fsx.Dirent{Name: name, Ino: f.ino, Regular: true})
	}
	return l, nil
}

// listAll reads the directories dirs in parallel, ahead of relisting
// them one by one; a directory that cannot be read here is read again
// (and its error reported) by relist.
func (c *checker) listAll(dirs []string) {
	if len(dirs) < 2 {
		return
	}
	segs := make([]*segment, len(dirs))
	for i, d := range dirs {
		if seg, err := c.m.segment(d); err == nil {
			segs[i] = seg
		}
	}
	found := make([]*listing, len(dirs))
	var wg sync.WaitGroup
	for i, d := range dirs {
		if segs[i] == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if l, err := list(c.root, d, segs[i]); err == nil {
				found[i] = l
			}
		}()
	}
	wg.Wait()
	c.listings = make(map[string]*listing, len(dirs))
	for i, d := range dirs {
		if found[i] != nil {
			c.listings[d] = found[i]
		}
	}
}

// skip records that lore does not read entry file p, and why.
func (c *checker) skip(p, why string) {
	if c.m.skipped[p] != why {
		c.m.skipped[p] = why
		c.touch()
	}
}

// unskip forgets that p was skipped.
func (c *checker) unskip(p string) {
	if _, ok := c.m.skipped[p]; ok {
		delete(c.m.skipped, p)
		c.touch()
	}
}

// warnings says what the store holds that lore does not read, after every
// check, as a scan of the files says it every time: what the manifest
// recorded, and the roots that are links (or below one).
func (c *checker) warnings() {
	var ws []entry.Warning
	for p, why := range c.m.skipped {
		ws = append(ws, entry.Warning{Path: p, Message: why})
	}
	for _, r := range entry.Roots {
		err := fsx.CheckDirs(c.root, r)
		if info, lerr := os.Lstat(c.abs(r)); err == nil && lerr == nil {
			switch m := info.Mode(); {
			case m&fs.ModeSymlink != 0:
				err = &fsx.SkipError{Path: c.abs(r), Err: fsx.ErrSymlink}
			case !m.IsDir():
				err = &fsx.SkipError{Path: c.abs(r), Err: fsx.ErrNotDir, Mode: m.Type()}
			}
		}
		if w, _ := entry.Skipped(r, err); w != nil {
			ws = append(ws, *w)
		}
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].Path < ws[j].Path })
	c.out.Warnings = append(c.out.Warnings, ws...)
}

// dropUnder forgets p and everything below it.
func (c *checker) dropUnder(p string) error {
	under := func(q string) bool { return q == p || strings.HasPrefix(q, p+"/") }
	for q := range c.m.skipped {
		if under(q) {
			c.unskip(q)
		}
	}
	for d := range c.m.segs {
		if !under(d) {
			continue
		}
		s, err := c.m.segment(d)
		if err != nil {
			return err
		}
		if err := s.each(func(name string, _ fileRecord) error {
			return c.dropFile(d + "/" + name)
		}); err != nil {
			return err
		}
		delete(c.m.segs, d)
	}
	for w := range c.m.watch {
		if under(w) {
			if hot(w) {
				if err := c.dropFile(w); err != nil {
					return err
				}
			}
			delete(c.m.watch, w)
			c.touch()
		}
	}
	return nil
}

// dropFile removes a file's documents and its record.
func (c *checker) dropFile(p string) error {
	c.touch()
	c.out.Changed++
	delete(c.candidates, p)
	if hot(p) {
		delete(c.m.watch, p)
	} else if s := c.m.segs[path.Dir(p)]; s != nil && s.loaded {
		s.drop(path.Base(p))
	}
	if entry.KindOf(p) != entry.KindMemory {
		c.out.Remove = append(c.out.Remove, p)
		return nil
	}
	if err := c.m.loadMemories(); err != nil {
		return err
	}
	for id := range c.m.memories {
		c.out.Remove = append(c.out.Remove, id)
	}
	c.m.memories = map[string]uint64{}
	return nil
}

func (c *checker) touch() { c.out.Touched = true }

// record returns what the Manifest knows of entry file p (whose
// directory's segment is loaded).
func (c *checker) record(p string) (fileRecord, bool) {
	if hot(p) {
		r, ok := c.m.watch[p]
		return r, ok
	}
	if s := c.m.segs[path.Dir(p)]; s != nil && s.loaded {
		return s.get([]byte(path.Base(p)))
	}
	return fileRecord{}, false
}

// setRecord records what was indexed of entry file p.
func (c *checker) setRecord(p string, r fileRecord) error {
	if hot(p) {
		c.m.watch[p] = r
		return nil
	}
	s, err := c.m.segment(path.Dir(p))
	if err != nil {
		return err
	}
	s.put(path.Base(p), r)
	return nil
}

// look is what was found of one candidate file.
type look struct {
	rec   fileRecord // what the Manifest knows of it
	known bool
	st    fsx.Stamp
	err   error // from stat or read
	read  bool  // its stat changed, so it was read
	hash  uint64
	fe    entry.FileEntries // parsed when its bytes changed
	warns []entry.Warning
}

// BatchSize is how many documents a rebuild hands its sink at a time.
const BatchSize = 2000

// Indexing a changed file and answering a search on the result takes
// ~80 KiB of fresh memory per file: a check that finds at least
// PrefaultMin files changed prefaults that much for the files it expects
// to find changed (see Prefault). A check of unchanged files prefaults
// nothing.
const (
	PrefaultMin     = 16
	PrefaultMax     = 1000
	PrefaultPerFile = 80 << 10
)

// lookChunk is how many candidates are looked at (in parallel) before
// their findings are applied.
const lookChunk = 256

// statCandidates stats every candidate and reads again those whose stat
// changed, reading and parsing in parallel.
func (c *checker) statCandidates() error {
	paths := make([]string, 0, len(c.candidates))
	for p := range c.candidates {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	c.total = len(paths)
	looks := make([]look, min(len(paths), lookChunk))
	for start := 0; start < len(paths); start += lookChunk {
		chunk := paths[start:min(start+lookChunk, len(paths))]
		workers := min(runtime.GOMAXPROCS(0), 4, (len(chunk)+7)/8)
		var wg sync.WaitGroup
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := w; i < len(chunk); i += workers {
					looks[i] = c.look(chunk[i])
				}
			}(w)
		}
		wg.Wait()
		for i, p := range chunk {
			if err := c.apply(p, &looks[i]); err != nil {
				return err
			}
			looks[i] = look{}
		}
		if err := c.flush(BatchSize); err != nil {
			return err
		}
		if c.progress != nil {
			c.progress(start+len(chunk), len(paths))
		}
	}
	return nil
}

// look stats candidate p and, when its stat changed, reads it and parses
// it if its bytes changed. It Changes nothing, so candidates are looked
// at in parallel.
func (c *checker) look(p string) look {
	l := look{}
	l.rec, l.known = c.record(p)
	l.st, l.err = fsx.Lstat(c.abs(p))
	looked := c.looked.Add(1)
	if l.err != nil || l.st.Dir || (l.known && l.rec.stat.Same(l.st)) {
		return l
	}
	if c.changed.Add(1) == PrefaultMin && c.sink == nil {
		// Many files have changed: while they are read, ready the memory
		// indexing them will take, for as many as the share changed so
		// far says.
		n := int(int64(PrefaultMin) * int64(c.total) / looked)
		go Prefault(min(max(n, PrefaultMin), PrefaultMax) * PrefaultPerFile)
	}
	data, err := fsx.ReadRegular(c.abs(p), entry.ReadLimit(p))
	if err != nil {
		l.err = err
		return l
	}
	l.read, l.hash = true, fnv64a(data)
	if !l.known || l.rec.hash != l.hash {
		l.fe, l.warns = entry.ParseFile(p, data)
	}
	return l
}

// flush hands the documents read so far to the sink once there are at
// least min of them.
func (c *checker) flush(min int) error {
	if c.sink == nil || len(c.out.Docs) == 0 || len(c.out.Docs) < min {
		return nil
	}
	err := c.sink(c.out.Docs)
	c.out.Docs = nil
	return err
}

// apply records what look found of p: a file gone, unchanged, or read
// again and reindexed if its bytes changed.
func (c *checker) apply(p string, l *look) error {
	w, skipped := entry.Skipped(p, l.err)
	if w != nil {
		c.skip(p, w.Message)
	} else if l.err == nil || errors.Is(l.err, fs.ErrNotExist) {
		c.unskip(p)
	}
	switch {
	case errors.Is(l.err, fs.ErrNotExist) || (l.err == nil && l.st.Dir) || skipped:
		// Gone, or no longer a file lore reads (a link, a FIFO, too
		// large): not indexed, as LoadDocs would not read it.
		if l.known {
			return c.dropFile(p)
		}
		return nil
	case l.err != nil:
		return l.err
	case !l.read:
		return nil
	}
	c.out.Files++
	c.touch()
	if err := c.setRecord(p, fileRecord{stat: l.st.IfSettled(c.now), hash: l.hash}); err != nil {
		return err
	}
	if l.known && l.rec.hash == l.hash {
		return nil
	}
	c.out.Changed++
	c.out.Warnings = append(c.out.Warnings, l.warns...)
	docs := index.DocsFromFile(p, l.fe)
	if l.fe.Kind != entry.KindMemory {
		if len(docs) == 0 && l.known {
			c.out.Remove = append(c.out.Remove, p)
		}
		c.out.Docs = append(c.out.Docs, docs...)
		return nil
	}
	// memories.md: only the memories that changed.
	if err := c.m.loadMemories(); err != nil {
		return err
	}
	next := make(map[string]uint64, len(docs))
	for _, d := range docs {
		dh := hashDoc(d)
		next[d.ID] = dh
		if old, ok := c.m.memories[d.ID]; !ok || old != dh {
			c.out.Docs = append(c.out.Docs, d)
		}
	}
	for id := range c.m.memories {
		if _, ok := next[id]; !ok {
			c.out.Remove = append(c.out.Remove, id)
		}
	}
	c.m.memories = next
	return nil
}

// hashDoc hashes what a memory's document is made of.
func hashDoc(d index.Doc) uint64 {
	h := fnv.New64a()
	for _, s := range append([]string{d.Type, d.Created.String(), d.Content}, d.Tags...) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum64()
}
