package bleveindex

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"lore/index"
	"lore/mdstore"
)

// A file whose mtime is this close to the moment it was checked may still
// change without its mtime changing (timestamps are coarse), so it is
// recorded as unknown and looked at again next time — git's "racily
// clean" rule. Linux filesystems stamp files with a clock of a few
// milliseconds' resolution; a file system with whole-second timestamps
// (every mtime a whole second) gets a window to match.
const (
	racyWindow       = int64(50e6)
	racyWindowCoarse = int64(2e9)
)

// changes is what a check found: documents to (re)index, document IDs to
// drop, and the manifest that describes the store afterwards.
type changes struct {
	docs     []index.Doc
	remove   []string
	next     *manifest
	files    int  // entry files read again
	changed  int  // entry files whose entries changed (or that are gone)
	touched  bool // the manifest changed (also when no document did)
	warnings []mdstore.Warning
}

func (c *changes) empty() bool { return len(c.docs) == 0 && len(c.remove) == 0 }

// checker compares a store with a manifest.
type checker struct {
	root string // the store root, holding .agent/
	old  *manifest
	next *manifest
	now  int64 // nanoseconds, for the racy rule
	out  *changes

	candidates map[string]bool // entry files to stat

	// sink, when set, takes documents in batches as they are read (a
	// rebuild does not hold the whole store in memory); progress hears how
	// many candidates were looked at.
	sink     func([]index.Doc) error
	progress func(done, total int)
}

func isRoot(p string) bool {
	for _, r := range index.Roots {
		if p == r {
			return true
		}
	}
	return false
}

// hot files are checked before every search, whatever the store's size:
// memories.md, which holds many entries, and skills, which are few.
func hot(p string) bool {
	k := mdstore.KindOf(p)
	return k == mdstore.KindMemory || k == mdstore.KindSkill
}

// check finds what changed in the store since m was written. With every
// set, each entry file is looked at; otherwise only the watched paths are,
// and the files of a directory that changed.
func check(root string, m *manifest, manifestPath string, every bool, now int64) (*changes, error) {
	return checkWith(root, m, manifestPath, every, now, nil, nil)
}

func checkWith(root string, m *manifest, manifestPath string, every bool, now int64,
	sink func([]index.Doc) error, progress func(done, total int)) (*changes, error) {
	c := &checker{root: root, old: m, now: now, out: &changes{}, candidates: map[string]bool{}, sink: sink, progress: progress}
	c.next = &manifest{watch: make(map[string]fileRecord, len(m.watch)), filesLoaded: true}
	needFiles := every
	var dirty []string
	for p, rec := range m.watch {
		st, err := statOf(c.abs(p))
		switch {
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return nil, err
		case err != nil || (st.dir != !hot(p)):
			needFiles = true // gone: relisting its parent drops it
			if isRoot(p) {
				dirty = append(dirty, p)
			} else {
				dirty = append(dirty, path.Dir(p))
			}
		case hot(p):
			c.next.watch[p] = rec
			if !rec.stat.same(st) {
				c.candidates[p] = true
				needFiles = needFiles || mdstore.KindOf(p) == mdstore.KindMemory
			}
		default:
			c.next.watch[p] = rec
			if !rec.stat.same(st) {
				dirty = append(dirty, p)
				needFiles = true
			}
		}
	}
	for _, r := range index.Roots {
		if _, ok := m.watch[r]; !ok {
			if st, err := statOf(c.abs(r)); err == nil && st.dir {
				dirty = append(dirty, r)
				needFiles = true
			}
		}
	}
	if needFiles {
		if err := m.loadFiles(manifestPath); err != nil {
			return nil, err
		}
		c.next.files = m.files // m is not used again: update it in place
		c.next.memories = m.memories
	} else {
		c.next.filesLoaded = false
		c.next.fileCount = m.fileCount
	}
	sort.Strings(dirty)
	for _, d := range dirty {
		if err := c.relist(d); err != nil {
			return nil, err
		}
	}
	if every {
		for p := range c.next.files {
			c.candidates[p] = true
		}
	}
	if err := c.statCandidates(); err != nil {
		return nil, err
	}
	if err := c.flush(0); err != nil {
		return nil, err
	}
	c.out.next = c.next
	return c.out, nil
}

func (c *checker) abs(p string) string { return filepath.Join(c.root, filepath.FromSlash(p)) }

// relist reads directory d again: new entry files and directories are
// added, missing ones dropped, and a file whose inode changed (saved by
// renaming a new file over it, or recreated by git) is looked at. Reading
// a directory's entries costs far less than a stat of each of its files.
func (c *checker) relist(d string) error {
	st, err := statOf(c.abs(d))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !st.dir) {
		c.dropUnder(d)
		return nil
	}
	if err != nil {
		return err
	}
	entries, err := readDirents(c.abs(d))
	if err != nil {
		return err
	}
	c.touch()
	c.next.watch[d] = fileRecord{stat: c.racy(st)}
	present := make(map[string]bool, len(entries))
	for _, e := range entries {
		child := d + "/" + e.name
		isDir := e.dir
		if e.symlink { // a skill may be a link to a directory
			if info, err := os.Stat(c.abs(child)); err == nil {
				isDir = info.IsDir()
			}
		}
		switch {
		case isDir && index.Descend(d, e.name):
			present[child] = true
			if _, known := c.next.watch[child]; !known {
				if err := c.relist(child); err != nil {
					return err
				}
			}
		case !isDir && mdstore.KindOf(child) != "":
			present[child] = true
			if rec, known := c.record(child); !known || rec.stat.ino == 0 || e.ino == 0 || rec.stat.ino != e.ino {
				c.candidates[child] = true
			}
		}
	}
	// Anything recorded directly under d that is no longer there is gone.
	for p := range c.next.watch {
		if path.Dir(p) == d && !present[p] {
			c.dropUnder(p)
		}
	}
	for p := range c.next.files {
		if !present[p] && path.Dir(p) == d {
			c.dropFile(p)
		}
	}
	return nil
}

// dropUnder forgets p and everything below it.
func (c *checker) dropUnder(p string) {
	for w := range c.next.watch {
		if w == p || strings.HasPrefix(w, p+"/") {
			if hot(w) {
				c.dropFile(w)
			}
			delete(c.next.watch, w)
			c.touch()
		}
	}
	for f := range c.next.files {
		if strings.HasPrefix(f, p+"/") {
			c.dropFile(f)
		}
	}
}

// dropFile removes a file's documents and its record.
func (c *checker) dropFile(p string) {
	c.touch()
	c.out.changed++
	delete(c.next.files, p)
	delete(c.next.watch, p)
	delete(c.candidates, p)
	if mdstore.KindOf(p) == mdstore.KindMemory {
		for id := range c.next.memories {
			c.out.remove = append(c.out.remove, id)
		}
		c.next.memories = map[string]uint64{}
		return
	}
	c.out.remove = append(c.out.remove, p)
}

func (c *checker) touch() { c.out.touched = true }

// racy zeroes a stat taken too close to now to be trusted.
func (c *checker) racy(st fileStat) fileStat {
	window := racyWindow
	if st.mtime%1e9 == 0 {
		window = racyWindowCoarse
	}
	if st.mtime >= c.now-window || st.ctime >= c.now-window {
		return fileStat{}
	}
	return st
}

func (c *checker) record(p string) (fileRecord, bool) {
	if r, ok := c.next.watch[p]; ok {
		return r, true
	}
	r, ok := c.next.files[p]
	return r, ok
}

// statCandidates stats every candidate (in parallel when there are many)
// and reads again those whose stat changed.
func (c *checker) statCandidates() error {
	paths := make([]string, 0, len(c.candidates))
	for p := range c.candidates {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	stats := make([]fileStat, len(paths))
	errs := make([]error, len(paths))
	workers := 1
	if len(paths) > 256 {
		workers = min(runtime.GOMAXPROCS(0), 4)
	}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				stats[i], errs[i] = statOf(c.abs(paths[i]))
			}
		}(w)
	}
	wg.Wait()
	for i, p := range paths {
		if errors.Is(errs[i], fs.ErrNotExist) || (errs[i] == nil && stats[i].dir) {
			if _, ok := c.record(p); ok {
				c.dropFile(p)
			}
			continue
		}
		if errs[i] != nil {
			return errs[i]
		}
		rec, known := c.record(p)
		if known && rec.stat.same(stats[i]) {
			continue
		}
		if err := c.reread(p, stats[i], rec, known); err != nil {
			return err
		}
		if err := c.flush(batchSize); err != nil {
			return err
		}
		if c.progress != nil && (i%500 == 0 || i == len(paths)-1) {
			c.progress(i+1, len(paths))
		}
	}
	return nil
}

// flush hands the documents read so far to the sink once there are at
// least min of them.
func (c *checker) flush(min int) error {
	if c.sink == nil || len(c.out.docs) == 0 || len(c.out.docs) < min {
		return nil
	}
	err := c.sink(c.out.docs)
	c.out.docs = nil
	return err
}

// reread reads a file whose stat changed and reindexes it if its bytes did.
func (c *checker) reread(p string, st fileStat, rec fileRecord, known bool) error {
	data, err := os.ReadFile(c.abs(p))
	if errors.Is(err, fs.ErrNotExist) {
		if known {
			c.dropFile(p)
		}
		return nil
	}
	if err != nil {
		return err
	}
	c.out.files++
	c.touch()
	h := hashBytes(data)
	nrec := fileRecord{stat: c.racy(st), hash: h}
	if hot(p) {
		c.next.watch[p] = nrec
	} else {
		c.next.files[p] = nrec
	}
	if known && rec.hash == h {
		return nil
	}
	c.out.changed++
	fe, warnings := mdstore.ParseFile(p, data)
	c.out.warnings = append(c.out.warnings, warnings...)
	docs := index.DocsFromFile(p, fe)
	if fe.Kind != mdstore.KindMemory {
		if len(docs) == 0 && known {
			c.out.remove = append(c.out.remove, p)
		}
		c.out.docs = append(c.out.docs, docs...)
		return nil
	}
	// memories.md: only the memories that changed.
	next := make(map[string]uint64, len(docs))
	for _, d := range docs {
		dh := hashDoc(d)
		next[d.ID] = dh
		if old, ok := c.next.memories[d.ID]; !ok || old != dh {
			c.out.docs = append(c.out.docs, d)
		}
	}
	for id := range c.next.memories {
		if _, ok := next[id]; !ok {
			c.out.remove = append(c.out.remove, id)
		}
	}
	c.next.memories = next
	return nil
}

func hashBytes(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
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
