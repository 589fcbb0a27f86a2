package catalog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"unsafe"

	"lore/internal/fsx"
	"lore/internal/gitx/gitindex"
	"lore/internal/storewatch"
	"lore/mdstore/entry"
)

// Entries are the store's knowledge, learnings and journal, as Knowledge,
// Learnings and Journal return them.
type Entries struct {
	Knowledge []entry.Knowledge
	Learnings []entry.Learning
	Journal   []entry.JournalEntry
}

// Entries reads the knowledge, learnings and journal through a per-clone
// cache of the parsed files (entries.cache in the state directory, never
// committed): a file whose stat (mtime, ctime, inode, size) is the one
// recorded is not read again. A store of at most SweepLimit files has
// every file stat'ed; a larger one only the files of the directories
// whose stat changed (a file created, deleted or renamed over) that are
// new there or under a new inode, and those git wrote since the last look
// (rewrittenByGit). A file changed within
// the racy window before the cache was written is looked at again next
// time (its timestamp cannot tell a later change apart). A file that does
// not parse is cached with its warning, which is said on every read: a
// broken file must not cost every read of a large store a rewrite of the
// cache.
func (s *Cache) Entries() (Entries, []entry.Warning, error) {
	c, ws, err := s.catalog(true)
	if err != nil {
		return Entries{}, nil, err
	}
	return c.All(), ws, nil
}

// Catalog reads the same entries as Entries, through the same cache, but
// decodes only their heads when the cache is as the files are: the caller
// asks for the entries it chose.
func (s *Cache) Catalog() (*Catalog, []entry.Warning, error) { return s.catalog(false) }

// catalog is Entries and Catalog; populate maps the cache for a read of
// every record.
func (s *Cache) catalog(populate bool) (*Catalog, []entry.Warning, error) {
	if s.files.hideStore {
		return wholeCatalog(&Entries{}), nil, nil
	}
	c := s.readEntryCaches(populate)
	now := s.now().UnixNano()
	if s.cacheIsCurrent(&c, now) {
		return &Catalog{cache: &c, store: s}, slices.Clone(c.w), nil
	}
	c.readTable()
	l, err := s.listEntryFiles(c, now)
	if err != nil {
		return nil, nil, err
	}
	paths := l.paths

	// Where each file is in the cache (both lists are sorted).
	at := make([]int, len(paths))
	for i, j := 0, 0; i < len(paths); i++ {
		for j < len(c.paths) && c.paths[j] < paths[i] {
			j++
		}
		at[i] = -1
		if j < len(c.paths) && c.paths[j] == paths[i] {
			at[i] = j
		}
	}
	// Stat the files that may have changed — every file in a store of at
	// most SweepLimit of them — and read and parse those the cache does
	// not have as they are now. On every core: a stat is a few
	// microseconds.
	stamps := make([]fsx.Stamp, len(paths))
	parsed := make([]entry.FileEntries, len(paths))
	warnings := make([]*entry.Warning, len(paths))
	rewritten := s.rewrittenByGit(c, &l, now)
	sweep := storewatch.Every(len(paths), s.sweepLimit()) || rewritten == nil
	one := func(i int, stamper *fsx.Stamper) {
		p := paths[i]
		// A file of a directory that changed, still under its inode,
		// was not replaced: what the cache has of it is as good as of a
		// file of a directory that did not change (an ingest adds five
		// files to directories of 25,000: no stat of the others).
		if j := at[i]; !sweep && j >= 0 && c.stamps[j].Mtime != 0 && !rewritten[p] &&
			(len(l.relisted) == 0 || !l.relisted[path.Dir(p)] || !storewatch.Replaced(c.stamps[j], l.inos[i])) {
			stamps[i] = c.stamps[j]
			return
		}
		st, err := stamper.Stamp(s.files.Abs(p))
		if err == nil && at[i] >= 0 && c.stamps[at[i]].Same(st) {
			stamps[i] = st
			return
		}
		at[i] = -1
		if err == nil && st.Settled(now) {
			stamps[i] = st // otherwise too new to trust: read again next time
		}
		data, ok, err := s.files.Read(p)
		if err != nil {
			warnings[i] = entry.AsWarning(err, p)
			return
		}
		if !ok {
			return
		}
		fe, ws := entry.ParseFile(p, data)
		if len(ws) > 0 {
			warnings[i] = &ws[0]
			return
		}
		parsed[i] = fe
	}
	// Each worker takes a contiguous run of the sorted paths, so that it
	// stats a directory's files one after another.
	workers := max(1, min(runtime.GOMAXPROCS(0), 8, len(paths)/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := fsx.NewStamper()
			defer st.Close()
			for i := w * len(paths) / workers; i < (w+1)*len(paths)/workers; i++ {
				one(i, st)
			}
		}()
	}
	wg.Wait()

	// A file the cache has as a warning gives it again.
	hits := 0
	for i, j := range at {
		if j >= 0 {
			hits++
			if c.kinds[j] == 'w' {
				warnings[i] = &c.w[c.index[j]]
			}
		}
	}
	ws := l.warnings
	if hits == len(paths) && hits == len(c.paths) {
		// Every file as the cache has it: the cache's entries are the
		// answer, in its order (sorted).
		ws = append(ws, c.w...)
		if !l.unchanged { // the same files, but a directory's new stamp to record
			s.writeDelta(&c, l, stamps, at, parsed, warnings, populate)
		}
		return &Catalog{cache: &c, store: s}, ws, nil
	}
	for _, w := range warnings {
		if w != nil {
			ws = append(ws, *w)
		}
	}
	if cat, ok := s.writeDelta(&c, l, stamps, at, parsed, warnings, populate); ok {
		return cat, ws, nil
	}
	// Too many changes for a delta: every entry, written whole.
	cached, ok := c.decodeAll()
	if !ok {
		return s.catalogAfresh(populate)
	}
	var nk, nl, nj int
	for i := range paths {
		switch kind := entryKind(c, at[i], parsed[i]); kind {
		case 'k':
			nk++
		case 'l':
			nl++
		case 'j':
			nj++
		}
	}
	out := Entries{Knowledge: make([]entry.Knowledge, 0, nk), Learnings: make([]entry.Learning, 0, nl), Journal: make([]entry.JournalEntry, 0, nj)}
	for i := range paths {
		switch j := at[i]; {
		case warnings[i] != nil:
		case j >= 0 && c.kinds[j] == 'k':
			out.Knowledge = append(out.Knowledge, cached.Knowledge[c.index[j]])
		case j >= 0 && c.kinds[j] == 'l':
			out.Learnings = append(out.Learnings, cached.Learnings[c.index[j]])
		case j >= 0 && c.kinds[j] == 'j':
			out.Journal = append(out.Journal, cached.Journal[c.index[j]])
		case parsed[i].Knowledge != nil:
			out.Knowledge = append(out.Knowledge, *parsed[i].Knowledge)
		case parsed[i].Learning != nil:
			out.Learnings = append(out.Learnings, *parsed[i].Learning)
		case parsed[i].Journal != nil:
			out.Journal = append(out.Journal, *parsed[i].Journal)
		}
	}
	sortEntries(out)
	// A cache: failing to write it costs the next read only. The delta
	// goes once the cache it was over is replaced.
	if writeEntryCache(s.entryCachePath(), l, stamps, out, warnings, nil, nil) == nil {
		os.Remove(s.entryDeltaPath())
	}
	return wholeCatalog(&out), ws, nil
}

// readEntryCaches reads the entries cache, and the delta over it when
// there is one.
func (s *Cache) readEntryCaches(populate bool) entryCache {
	base := readEntryCache(s.entryCachePath(), populate, nil, &s.mapped)
	if base.data == nil {
		return base
	}
	if d := readEntryCache(s.entryDeltaPath(), populate, &base, &s.mapped); d.data != nil {
		return d
	}
	return base
}

// deltaLimit is how many entries a delta may hold before the cache is
// written whole: a sixteenth of the files, and at least deltaMin.
func deltaLimit(files int) int { return max(deltaMin, files/16) }

// deltaMin is the least deltaLimit (a var for tests).
var deltaMin = 1024

// writeDelta writes the files as they are now (the listing l; at, parsed
// and warnings as catalog found them) as a delta over c's base — c itself
// when it is not a delta — and returns a Catalog read through it: only
// the entries that are not the base's records are written. False when
// there is no base, more entries changed than deltaLimit, or the delta
// could not be written.
func (s *Cache) writeDelta(c *entryCache, l listing, stamps []fsx.Stamp, at []int, parsed []entry.FileEntries, warnings []*entry.Warning, populate bool) (*Catalog, bool) {
	base := c
	if c.base != nil {
		base = c.base
	}
	if base.data == nil {
		return nil, false
	}
	reuse := make([]basePlace, len(l.paths))
	var own Entries
	n := 0
	for i := range l.paths {
		if warnings[i] != nil {
			continue
		}
		j := at[i]
		if j < 0 {
			switch fe := parsed[i]; {
			case fe.Knowledge != nil:
				own.Knowledge = append(own.Knowledge, *fe.Knowledge)
			case fe.Learning != nil:
				own.Learnings = append(own.Learnings, *fe.Learning)
			case fe.Journal != nil:
				own.Journal = append(own.Journal, *fe.Journal)
			default:
				continue
			}
			n++
			continue
		}
		k := strings.IndexByte("klj", c.kinds[j])
		if k < 0 {
			continue
		}
		if p := c.index[j]; p < c.baseCount[k] || c.base == nil {
			reuse[i] = basePlace{c.kinds[j], p}
			continue
		}
		// An entry of c's own delta: carried into the new one.
		ok := true
		switch k {
		case 0:
			var e entry.Knowledge
			e, ok = c.knowledgeAt(c.index[j])
			own.Knowledge = append(own.Knowledge, e)
		case 1:
			var e entry.Learning
			e, ok = c.learningAt(c.index[j])
			own.Learnings = append(own.Learnings, e)
		case 2:
			var e entry.JournalEntry
			e, ok = c.journalAt(c.index[j])
			own.Journal = append(own.Journal, e)
		}
		if !ok {
			return nil, false
		}
		n++
	}
	if n > deltaLimit(len(l.paths)) {
		return nil, false
	}
	sortEntries(own)
	if writeEntryCache(s.entryDeltaPath(), l, stamps, own, warnings, base, reuse) != nil {
		return nil, false
	}
	d := readEntryCache(s.entryDeltaPath(), populate, base, &s.mapped)
	if d.data == nil {
		return nil, false
	}
	return &Catalog{cache: &d, store: s}, true
}

// catalogAfresh reads every file again: the cache's records did not
// decode.
func (s *Cache) catalogAfresh(populate bool) (*Catalog, []entry.Warning, error) {
	if err := s.DropEntryCache(); err != nil {
		return nil, nil, err
	}
	return s.catalog(populate)
}

// sortEntries puts entries in the order Entries returns them: knowledge
// by title, learnings oldest first, the journal by run and iteration.
func sortEntries(e Entries) {
	entry.SortKnowledge(e.Knowledge)
	entry.SortLearnings(e.Learnings)
	entry.SortJournal(e.Journal)
}

// entryKind is the kind of the entry a file holds: from the cache
// (position j) or just parsed.
func entryKind(c entryCache, j int, fe entry.FileEntries) byte {
	switch {
	case j >= 0:
		return c.kinds[j]
	case fe.Knowledge != nil:
		return 'k'
	case fe.Learning != nil:
		return 'l'
	case fe.Journal != nil:
		return 'j'
	}
	return 0
}

// listing is the knowledge, learning and journal files (sorted), and
// the directories they were listed from with their stamps (zero when too
// new to trust).
type listing struct {
	paths []string
	// inos are the paths' inodes as their directory's listing gave them,
	// for the directories relisted (0 for the others, or unknown).
	inos      []uint64
	dirs      []string
	dirStamps []fsx.Stamp
	// unchanged: every directory was as the cache has it.
	unchanged bool
	// relisted are the directories of files read again: their stamp is
	// not the one the cache has.
	relisted map[string]bool
	// git is the git index's stamp and gitLook when its entries were last
	// looked at (rewrittenByGit).
	git     fsx.Stamp
	gitLook int64
	// warnings say which directories were not read (links).
	warnings []entry.Warning
}

// listEntryFiles lists the entry files. A directory whose stamp is the one
// the cache recorded has the files the cache lists: a file created,
// deleted or renamed in it would have changed its mtime. Only the
// directories changed since are read.
func (s *Cache) listEntryFiles(c entryCache, now int64) (listing, error) {
	l := listing{unchanged: len(c.dirs) > 0, relisted: map[string]bool{}}
	st := fsx.NewStamper()
	defer st.Close()
	// dir's files (or for the journal, its runs): from the cache, or read.
	list := func(dir string, subdirs bool) ([]string, error) {
		stamp, err := st.Stamp(s.files.Abs(dir))
		if errors.Is(err, os.ErrNotExist) {
			l.unchanged = l.unchanged && c.dir(dir) < 0
			return nil, nil
		}
		if err == nil && !stamp.Dir {
			// A link (the Stamper does not follow one): readDir says so.
			if _, err = s.files.ReadDir(dir); err == nil {
				err = &fsx.SkipError{Path: s.files.Abs(dir), Err: fsx.ErrNotDir} // changed meanwhile
			}
			if path.Dir(dir) == entry.JournalDir {
				// A run that is a link stays in the cache's listing of
				// the journal, never trusted, so that it is said each time.
				l.dirs, l.dirStamps = append(l.dirs, dir), append(l.dirStamps, fsx.Stamp{})
			}
		}
		if w, skipped := entry.Skipped(dir, err); skipped {
			l.unchanged = false
			l.warnings = append(l.warnings, entry.WarningsOf(w)...)
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", dir, err)
		}
		stamp = stamp.IfSettled(now)
		l.dirs, l.dirStamps = append(l.dirs, dir), append(l.dirStamps, stamp)
		if i := c.dir(dir); i >= 0 && c.dirStamps[i].Same(stamp) {
			if subdirs {
				return c.subdirs(dir), nil
			}
			return c.files(dir), nil
		}
		l.unchanged = false
		l.relisted[dir] = true
		if subdirs {
			entries, err := s.files.ReadDir(dir)
			var runs []string
			for _, e := range entries {
				// A link is listed to be refused, and said, like a file.
				if (e.IsDir() || e.Type()&fs.ModeSymlink != 0) && !strings.HasPrefix(e.Name(), ".") {
					runs = append(runs, dir+"/"+e.Name())
				}
			}
			return runs, err
		}
		paths, inos, w, err := s.files.listMarkdownFiles(dir)
		l.warnings = append(l.warnings, entry.WarningsOf(w)...)
		l.inos = append(l.inos, inos...)
		return paths, err
	}
	// In path order (journal, knowledge, learnings), so that the paths
	// come sorted and l.inos stays beside them.
	files := func(dir string) error {
		ps, err := list(dir, false)
		for len(l.inos) < len(l.paths)+len(ps) {
			l.inos = append(l.inos, 0) // listed from the cache
		}
		l.paths = append(l.paths, ps...)
		return err
	}
	runs, err := list(entry.JournalDir, true)
	if err != nil {
		return l, err
	}
	for _, run := range runs {
		if err := files(run); err != nil {
			return l, err
		}
	}
	for _, dir := range []string{entry.KnowledgeDir, entry.LearningsDir} {
		if err := files(dir); err != nil {
			return l, err
		}
	}
	l.unchanged = l.unchanged && len(l.dirs) == len(c.dirs)
	if !slices.IsSorted(l.paths) { // a run's name that sorts before another's with a '/' after it
		order := make([]int, len(l.paths))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(l.paths[a], l.paths[b]) })
		paths, inos := make([]string, len(order)), make([]uint64, len(order))
		for i, o := range order {
			paths[i], inos[i] = l.paths[o], l.inos[o]
		}
		l.paths, l.inos = paths, inos
	}
	if !sort.IsSorted(byDir{&l}) {
		sort.Sort(byDir{&l})
	}
	return l, nil
}

// byDir sorts a listing's directories with their stamps.
type byDir struct{ l *listing }

func (b byDir) Len() int           { return len(b.l.dirs) }
func (b byDir) Less(i, j int) bool { return b.l.dirs[i] < b.l.dirs[j] }
func (b byDir) Swap(i, j int) {
	b.l.dirs[i], b.l.dirs[j] = b.l.dirs[j], b.l.dirs[i]
	b.l.dirStamps[i], b.l.dirStamps[j] = b.l.dirStamps[j], b.l.dirStamps[i]
}

// dir is where the cache has directory d, -1 when it does not.
func (c entryCache) dir(d string) int {
	i := sort.SearchStrings(c.dirs, d)
	if i < len(c.dirs) && c.dirs[i] == d {
		return i
	}
	return -1
}

// files lists the files the cache has directly in directory d.
func (c entryCache) files(d string) []string {
	prefix := d + "/"
	from := sort.SearchStrings(c.paths, prefix)
	to := from + sort.Search(len(c.paths)-from, func(i int) bool { return !strings.HasPrefix(c.paths[from+i], prefix) })
	below := func(p string) bool { return strings.Contains(p[len(prefix):], "/") }
	under := c.paths[from:to:to]
	if !slices.ContainsFunc(under, below) {
		return under // the usual case, without a copy
	}
	var out []string
	for _, p := range under {
		if !below(p) {
			out = append(out, p)
		}
	}
	return out
}

// subdirs lists the directories the cache has directly in directory d.
func (c entryCache) subdirs(d string) []string {
	prefix := d + "/"
	var out []string
	for i := sort.SearchStrings(c.dirs, prefix); i < len(c.dirs) && strings.HasPrefix(c.dirs[i], prefix); i++ {
		if !strings.Contains(c.dirs[i][len(prefix):], "/") {
			out = append(out, c.dirs[i])
		}
	}
	return out
}

// entryCache is the cache as read: the directories listed (sorted) with
// their stamps, and the warnings of files that do not parse; for each file
// listed (sorted by path) its stamp, its kind ('k', 'l', 'j', 'w' for a
// file that does not parse, 'n' for one that holds no entry, 'x' for a
// file not cached, or 'K', 'L', 'J' for an entry cached from a file too
// new to trust: either is read again) and its entry's or warning's place
// among its kind's records or in w, decoded only when the cache is not current
// (readTable); each kind's heads, decoded when walked (eachHead); and
// each record, decoded when asked for (knowledgeAt, learningAt,
// journalAt).
type entryCache struct {
	git       fsx.Stamp // the git index's, when rewrittenByGit last looked
	gitLook   int64
	dirs      []string
	dirStamps []fsx.Stamp
	w         []entry.Warning
	// The number of files, and of those to read again ('x', 'K', 'L',
	// 'J').
	nfiles, unstamped int
	// Decoded by readTable.
	paths  []string
	stamps []fsx.Stamp
	kinds  []byte
	index  []int
	// How many records each kind has (knowledge, learnings, journal),
	// and where their heads start in data.
	count   [3]int
	headsAt [3]int
	data    []byte
	tableAt int // where the file table starts
	// records[i] is where record i starts in data: the knowledge's, then
	// the learnings', then the journal's, and where the last one ends.
	records []byte
	// heap is every record copied to the heap (copyRecords), nil until
	// decodeAll.
	heap []byte
	// headOffsets[i] is where head i starts, from headsAt[0] (4 bytes
	// each, in the records' order); byPath is each kind's own records in
	// the order of their paths.
	headOffsets, byPath []byte
	// id tells this cache apart as a delta's base: its size and the sum
	// of its heads.
	id uint64
	// A delta (entries.delta) holds only the entries that changed since
	// its base was written: places below baseCount[k] are the base's
	// records of kind k (those whose bit is set in live), the others
	// its own, from baseCount[k] on.
	base      *entryCache
	baseCount [3]int
	live      [3][]byte
}

// The cache file: magic, version, the git index's stamp and the time of
// the look at it, the directories with their stamps, the number of files,
// of each kind of record and of files not cached, and the warnings of the
// files that do not parse; then per file (in path order) its path, stamp,
// kind and, for an entry, its place among its kind's records; then the
// heads of the knowledge, learnings and journal (encoder.head; each kind
// in the order Entries returns it, so that a read of an unchanged store
// sorts nothing); then their records in the same order; then where each record
// starts and where the last ends (8 bytes each); then where each head
// starts, from the first, and each kind's places in the order of their
// paths (4 bytes each); and last a trailer of six numbers (8 bytes each):
// where each kind's heads start, the CRC-32 of the heads, where the
// table of records starts, and the CRC-32 of the heads' tables. Numbers
// are little-endian; strings are a length and bytes. The CRC is IEEE's,
// which the processor computes (PCLMULQDQ, ARMv8) with no table to make
// first: CRC-32C's table took 0.15–0.25 ms of every process that read
// the cache.
const (
	cacheMagic   = "LORECACH"
	cacheVersion = 12 // bump whenever an entry type, its parsing or Head changes
	cacheTrailer = 6 * 8
)

// writeEntryCache writes the listing and, for each of its files (by path:
// stamps, warnings), the entry read from it (out, in the order Entries
// returns) or the warning it gave; a file without a stamp is read again
// next time. With a base, it writes a delta over it: reuse[i] names the
// base's record that file i keeps (kind 0: none), and out holds only the
// other entries.
func writeEntryCache(path string, l listing, stamps []fsx.Stamp, out Entries, warnings []*entry.Warning, base *entryCache, reuse []basePlace) error {
	paths := l.paths
	kinds := make([]byte, len(paths))
	place := make([]int, len(paths))
	at := make(map[string]int, len(paths))
	var baseCount [3]int
	var live [3][]byte
	if base != nil {
		baseCount = base.count
		for k := range live {
			live[k] = make([]byte, (baseCount[k]+7)/8)
		}
	}
	for i, p := range paths {
		at[p], kinds[i] = i, 'x'
		if stamps[i].Mtime == 0 {
			continue // too new to trust
		}
		kinds[i] = 'n'
		switch {
		case warnings[i] != nil:
			kinds[i] = 'w'
		case base != nil && reuse[i].kind != 0:
			k, pl := strings.IndexByte("klj", reuse[i].kind), reuse[i].place
			kinds[i], place[i] = reuse[i].kind, pl
			live[k][pl/8] |= 1 << (pl % 8)
		}
	}
	// Each kind's records are the entries of stamped files, in out's
	// order; take marks a file's record as the next entry of kind.
	take := func(p string, kind byte, n *int) bool {
		i, ok := at[p]
		if !ok || kinds[i] != 'n' && kinds[i] != 'x' {
			return false
		}
		place[i] = baseCount[strings.IndexByte("klj", kind)] + *n
		if kinds[i] == 'x' {
			kind -= 'a' - 'A' // kept for this read, not trusted by the next
		}
		kinds[i] = kind
		*n++
		return true
	}
	var ks []*entry.Knowledge
	var ls []*entry.Learning
	var js []*entry.JournalEntry
	var nk, nl, nj, nw int
	for i := range out.Knowledge {
		if take(out.Knowledge[i].Path, 'k', &nk) {
			ks = append(ks, &out.Knowledge[i])
		}
	}
	for i := range out.Learnings {
		if take(out.Learnings[i].Path, 'l', &nl) {
			ls = append(ls, &out.Learnings[i])
		}
	}
	for i := range out.Journal {
		if take(out.Journal[i].Path, 'j', &nj) {
			js = append(js, &out.Journal[i])
		}
	}
	for _, k := range kinds {
		if k == 'w' {
			nw++
		}
	}

	unstamped := 0
	for _, st := range stamps {
		if st.Mtime == 0 {
			unstamped++
		}
	}
	return writeCacheFile(path, func(e *encoder) {
		e.w.WriteString(cacheMagic)
		e.uint(cacheVersion)
		e.stamp(l.git)
		e.int(l.gitLook)
		e.uint(uint64(len(l.dirs)))
		for i, d := range l.dirs {
			e.str(d)
			e.stamp(l.dirStamps[i])
		}
		for _, n := range []int{len(paths), nk, nl, nj, nw, unstamped} {
			e.uint(uint64(n))
		}
		if base == nil {
			e.uint(0)
		} else {
			e.uint(base.id)
			for _, b := range live {
				e.w.Write(b)
			}
		}
		for i, w := range warnings {
			if kinds[i] == 'w' {
				e.warning(w)
			}
		}
		for i, p := range paths {
			e.str(p)
			e.stamp(stamps[i])
			e.w.WriteByte(kinds[i])
			if strings.IndexByte("kljKLJ", kinds[i]) >= 0 {
				e.uint(uint64(place[i]))
			}
		}
		// The heads, summed as they are written.
		var trailer [cacheTrailer]byte
		crc := crc32.NewIEEE()
		e.w.Flush()
		e.tee = crc
		heads := e.pos()
		index := make([]byte, 0, 8*(len(ks)+len(ls)+len(js)))
		head := func() { index = binary.LittleEndian.AppendUint32(index, uint32(e.pos()-heads)) }
		binary.LittleEndian.PutUint64(trailer[0:], uint64(e.pos()))
		for _, k := range ks {
			head()
			h := KnowledgeHead(k)
			e.head(0, &h)
		}
		binary.LittleEndian.PutUint64(trailer[8:], uint64(e.pos()))
		for _, l := range ls {
			head()
			h := LearningHead(l)
			e.head(1, &h)
		}
		binary.LittleEndian.PutUint64(trailer[16:], uint64(e.pos()))
		for _, j := range js {
			head()
			h := JournalHead(j)
			e.head(2, &h)
		}
		// Each kind's places in the order of their paths.
		for _, paths := range [][]string{pathsOf(ks, func(k *entry.Knowledge) string { return k.Path }),
			pathsOf(ls, func(l *entry.Learning) string { return l.Path }), pathsOf(js, func(j *entry.JournalEntry) string { return j.Path })} {
			order := make([]uint32, len(paths))
			for i := range order {
				order[i] = uint32(i)
			}
			slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(paths[a], paths[b]) })
			for _, i := range order {
				index = binary.LittleEndian.AppendUint32(index, i)
			}
		}
		e.w.Flush()
		e.tee = nil
		binary.LittleEndian.PutUint64(trailer[24:], uint64(crc.Sum32()))
		records := make([]byte, 0, 8*(len(ks)+len(ls)+len(js)+1))
		mark := func() { records = binary.LittleEndian.AppendUint64(records, uint64(e.pos())) }
		for _, k := range ks {
			mark()
			e.knowledge(k)
		}
		for _, l := range ls {
			mark()
			e.learning(l)
		}
		for _, j := range js {
			mark()
			e.journal(j)
		}
		mark()
		binary.LittleEndian.PutUint64(trailer[32:], uint64(e.pos()))
		binary.LittleEndian.PutUint64(trailer[40:], uint64(crc32.ChecksumIEEE(index)))
		e.w.Write(records)
		e.w.Write(index)
		e.w.Write(trailer[:])
	})
}

// basePlace names a record of a delta's base: its kind ('k', 'l', 'j';
// 0 for none) and place.
type basePlace struct {
	kind  byte
	place int
}

func pathsOf[T any](es []*T, path func(*T) string) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = path(e)
	}
	return out
}

// writeCacheFile writes a cache file with encode, streamed to a temporary
// file that is put in place whole: a cache of tens of megabytes is never
// held in memory.
func writeCacheFile(path string, encode func(*encoder)) error {
	p, err := fsx.Create(path)
	if err != nil {
		return err
	}
	f := &countingWriter{w: p.File()}
	e := encoder{written: &f.n}
	e.w = bufio.NewWriterSize(writerFunc(func(b []byte) (int, error) {
		if e.tee != nil {
			e.tee.Write(b)
		}
		return f.Write(b)
	}), 64<<10)
	encode(&e)
	if err := e.w.Flush(); err != nil { // the first error of any write
		p.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return p.Commit(fsx.Unsynced)
}

// writerFunc is a function as an io.Writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// readEntryCache reads the cache at path; a missing, damaged or older
// cache reads as empty, and so does a delta that is not over base. Its
// file table is decoded by readTable, its heads and records when asked
// for; populate maps the file for a read of every record.
func readEntryCache(path string, populate bool, base *entryCache, mapped *mappings) entryCache {
	data, err := mapped.mapFile(path, populate)
	if err != nil || len(data) < len(cacheMagic)+cacheTrailer || string(data[:len(cacheMagic)]) != cacheMagic {
		return entryCache{}
	}
	d := decoder{data: data, off: len(cacheMagic)}
	if d.uint() != cacheVersion {
		return entryCache{}
	}
	git, gitLook := d.stamp(), d.int()
	nd := d.uint()
	if d.err != nil || nd > uint64(len(data)) {
		return entryCache{}
	}
	c := entryCache{git: git, gitLook: gitLook, dirs: make([]string, nd), dirStamps: make([]fsx.Stamp, nd), data: data}
	for i := range c.dirs {
		c.dirs[i] = d.str()
		c.dirStamps[i] = d.stamp()
		if i > 0 && c.dirs[i] <= c.dirs[i-1] {
			d.fail()
		}
	}
	n, nk, nl, nj, nw, nx := d.uint(), d.uint(), d.uint(), d.uint(), d.uint(), d.uint()
	if d.err != nil || n > uint64(len(data)) || nk+nl+nj+nw+nx > n {
		return entryCache{}
	}
	c.nfiles, c.unstamped, c.count = int(n), int(nx), [3]int{int(nk), int(nl), int(nj)}
	// A delta names its base, and which of the base's records are still
	// the files'.
	if baseID := d.uint(); baseID != 0 {
		if base == nil || base.base != nil || base.id != baseID {
			return entryCache{}
		}
		c.base = base
		for k := range c.live {
			c.baseCount[k] = base.count[k]
			size := (base.count[k] + 7) / 8
			if d.err != nil || size > len(data)-d.off {
				return entryCache{}
			}
			c.live[k] = data[d.off : d.off+size]
			d.off += size
		}
	}
	c.w = make([]entry.Warning, nw)
	for i := range c.w {
		w := d.warning() // the caller's: copied off the mapping
		c.w[i] = entry.Warning{Path: strings.Clone(w.Path), Line: w.Line, Message: strings.Clone(w.Message), Minor: w.Minor}
	}
	c.tableAt = d.off
	// The trailer: where the heads start, their sum, and the table of
	// where records start, the last where the table starts.
	trailer := data[len(data)-cacheTrailer:]
	num := func(i int) uint64 { return binary.LittleEndian.Uint64(trailer[8*i:]) }
	entries := int(nk + nl + nj)
	records := entries + 1
	table := num(4)
	if d.err != nil || table != uint64(len(data)-cacheTrailer-8*records-8*entries) {
		return entryCache{}
	}
	c.records = data[table : table+uint64(8*records)]
	index := data[table+uint64(8*records) : len(data)-cacheTrailer]
	c.headOffsets, c.byPath = index[:4*entries], index[4*entries:]
	if uint64(crc32.ChecksumIEEE(index)) != num(5) {
		return entryCache{}
	}
	prev := uint64(c.tableAt)
	for i := range 3 {
		if num(i) < prev || num(i) > table {
			return entryCache{}
		}
		c.headsAt[i], prev = int(num(i)), num(i)
	}
	for i := range records {
		at := binary.LittleEndian.Uint64(c.records[8*i:])
		if at < prev || i == records-1 && at != table {
			return entryCache{}
		}
		prev = at
	}
	if uint64(crc32.ChecksumIEEE(data[c.headsAt[0]:c.recordAt(0)])) != num(3) {
		return entryCache{}
	}
	c.id = uint64(len(data))<<32 | num(3)
	return c
}

// isLive says whether base place p of kind k is still a file's entry.
func (c *entryCache) isLive(k, p int) bool { return c.live[k][p/8]&(1<<(p%8)) != 0 }

// len is how many of kind k's places are entries.
func (c *entryCache) len(k int) int {
	n := c.count[k]
	for _, b := range c.live[k] {
		n += bits.OnesCount8(b)
	}
	return n
}

// places lists kind k's places that are entries, in the order of their
// records (the base's first).
func (c *entryCache) places(k int) []int {
	out := make([]int, 0, c.baseCount[k]+c.count[k])
	for p := range c.baseCount[k] {
		if c.isLive(k, p) {
			out = append(out, p)
		}
	}
	for j := range c.count[k] {
		out = append(out, c.baseCount[k]+j)
	}
	return out
}

// readTable decodes the file table; a damaged one empties the cache.
func (c *entryCache) readTable() {
	if c.data == nil {
		return
	}
	d := decoder{data: c.data[:c.headsAt[0]], off: c.tableAt}
	n := c.nfiles
	c.paths, c.stamps, c.kinds, c.index = make([]string, n), make([]fsx.Stamp, n), make([]byte, n), make([]int, n)
	// Each record is one file's, placed once.
	var placed [3][]bool
	for k := range placed {
		placed[k] = make([]bool, c.baseCount[k]+c.count[k])
		for p := range c.baseCount[k] {
			placed[k][p] = !c.isLive(k, p) // a record no file has
		}
	}
	w, x := 0, 0
	for i := 0; i < n && d.err == nil; i++ {
		c.paths[i] = d.str()
		c.stamps[i] = d.stamp()
		c.kinds[i] = d.byte()
		switch kind := strings.IndexByte("kljKLJ", c.kinds[i]) % 3; c.kinds[i] {
		case 'x', 'n':
			c.index[i] = -1
			if c.kinds[i] == 'x' {
				x++
			}
		case 'k', 'l', 'j', 'K', 'L', 'J':
			if c.kinds[i] < 'a' {
				x++
			}
			at := d.uint()
			if at >= uint64(len(placed[kind])) || placed[kind][at] {
				d.fail()
				break
			}
			c.index[i], placed[kind][at] = int(at), true
		case 'w':
			c.index[i] = w
			if w >= len(c.w) || c.w[w].Path != c.paths[i] {
				d.fail()
			}
			w++
		default:
			d.fail()
		}
		if i > 0 && c.paths[i] <= c.paths[i-1] {
			d.fail()
		}
	}
	whole := d.err == nil && d.off == len(d.data) && w == len(c.w) && x == c.unstamped
	for _, p := range placed {
		whole = whole && !slices.Contains(p, false)
	}
	if !whole {
		*c = entryCache{}
	}
}

// cacheIsCurrent says whether the cache is as the files are without
// looking at them one by one: a store larger than the sweep limit whose
// every file was cached and whose directories and git index all have the
// stamps the cache recorded (listEntryFiles and rewrittenByGit would find
// nothing to read).
func (s *Cache) cacheIsCurrent(c *entryCache, now int64) bool {
	if c.data == nil || storewatch.Every(c.nfiles, s.sweepLimit()) || c.unstamped > 0 {
		return false
	}
	st := fsx.NewStamper()
	defer st.Close()
	for _, dir := range []string{entry.KnowledgeDir, entry.LearningsDir, entry.JournalDir} {
		if _, err := st.Stamp(s.files.Abs(dir)); c.dir(dir) < 0 && !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	for i, dir := range c.dirs {
		stamp, err := st.Stamp(s.files.Abs(dir))
		if err != nil || !stamp.Dir || !c.dirStamps[i].Same(stamp.IfSettled(now)) {
			return false
		}
	}
	gitIndex, _ := s.gitIndex, s.gitPrefix
	if gitIndex == "" {
		return true
	}
	git, err := fsx.Lstat(gitIndex)
	return errors.Is(err, fs.ErrNotExist) || err == nil && c.git.Same(git)
}

// eachHead calls each with the heads of kind's entries (0 knowledge, 1
// learnings, 2 journal) and their places, a delta's base's first, decoded
// into one Head.
func (c *entryCache) eachHead(kind int, each func(i int, h *Head)) {
	if c.base != nil {
		c.base.eachHead(kind, func(i int, h *Head) {
			if c.isLive(kind, i) {
				each(i, h)
			}
		})
	}
	d := decoder{data: c.data, off: c.headsAt[kind]}
	var h Head
	for j := range c.count[kind] {
		readHead(&d, kind, &h)
		each(c.baseCount[kind]+j, &h)
	}
}

// head encodes the head of an entry of kind (0 knowledge, 1 learnings,
// 2 journal): its path first (findOwn reads it alone), then the fields
// of its kind, and its list last.
func (e *encoder) head(kind int, h *Head) {
	e.str(h.Path)
	switch kind {
	case 0:
		e.strs(h.Title, h.CreatedAt, h.UpdatedAt)
		e.uint(uint64(h.BodyChars))
		e.list(h.Tags)
	case 1:
		e.strs(h.Status, h.SupersededBy, h.CreatedAt, h.Kind, h.TaskType)
		e.float(h.Confidence)
		e.float(h.SuccessRate)
		e.list(h.Tags)
	case 2:
		e.strs(h.RunID, h.TaskID, h.FeatureID, h.CreatedAt)
		e.int(int64(h.Iteration))
		e.list(h.FilesModified)
	}
}

// readHead decodes a head of kind into h, its list into the array h
// already has. The heads were summed when read (readEntryCache).
func readHead(d *decoder, kind int, h *Head) {
	h.Path = d.str()
	list := &h.Tags
	switch kind {
	case 0:
		d.strs(&h.Title, &h.CreatedAt, &h.UpdatedAt)
		h.BodyChars = int(d.uint())
	case 1:
		d.strs(&h.Status, &h.SupersededBy, &h.CreatedAt, &h.Kind, &h.TaskType)
		h.Confidence = d.float()
		h.SuccessRate = d.float()
	case 2:
		d.strs(&h.RunID, &h.TaskID, &h.FeatureID, &h.CreatedAt)
		h.Iteration = int(d.int())
		list = &h.FilesModified
	}
	*list = (*list)[:0]
	n := d.uint()
	if n > 0 && n-1 > uint64(len(d.data)-d.off) {
		d.fail()
		return
	}
	for range int(n) - 1 {
		*list = append(*list, d.str())
	}
}

// head decodes the head of kind's entry at place i into h; false when
// there is none, or it does not decode.
func (c *entryCache) head(kind, i int, h *Head) bool {
	if i >= 0 && i < c.baseCount[kind] {
		return c.isLive(kind, i) && c.base.head(kind, i, h)
	}
	j := i - c.baseCount[kind]
	if j < 0 || j >= c.count[kind] {
		return false
	}
	d := decoder{data: c.data[:c.recordAt(0)], off: c.headAt(kind, j)}
	readHead(&d, kind, h)
	return d.err == nil
}

// headAt is where the head of kind's own record j starts.
func (c *entryCache) headAt(kind, j int) int {
	for k := range kind {
		j += c.count[k]
	}
	return c.headsAt[0] + int(binary.LittleEndian.Uint32(c.headOffsets[4*j:]))
}

// find is the place among kind's heads of the entry of file p.
func (c *entryCache) find(kind int, p string) (int, bool) {
	if i, ok := c.findOwn(kind, p); ok {
		return c.baseCount[kind] + i, true
	}
	if c.base != nil {
		if i, ok := c.base.findOwn(kind, p); ok && c.isLive(kind, i) {
			return i, true
		}
	}
	return 0, false
}

// findOwn is which of kind's own records is the entry of file p.
func (c *entryCache) findOwn(kind int, p string) (int, bool) {
	base := 0
	for k := range kind {
		base += c.count[k]
	}
	place := func(i int) int { return int(binary.LittleEndian.Uint32(c.byPath[4*(base+i):])) }
	path := func(i int) string {
		d := decoder{data: c.data[:c.recordAt(0)], off: c.headAt(kind, i)}
		return d.str()
	}
	n := c.count[kind]
	i, found := sort.Find(n, func(i int) int {
		if pl := place(i); pl < n {
			return strings.Compare(p, path(pl))
		}
		return -1
	})
	if !found {
		return 0, false
	}
	return place(i), true
}

// recordAt is where record i starts (i = the number of records: where the
// last ends).
func (c *entryCache) recordAt(i int) int {
	return int(binary.LittleEndian.Uint64(c.records[8*i:]))
}

// record is a decoder of record i alone, over a copy of its bytes (the
// entry decoded from it is the caller's, whatever becomes of the
// mapping), and where the record ends.
func (c *entryCache) record(i int) (decoder, int) {
	from, to := c.recordAt(i), c.recordAt(i+1)
	if c.heap != nil {
		first := c.recordAt(0)
		return decoder{data: c.heap[:to-first], off: from - first}, to - first
	}
	return decoder{data: bytes.Clone(c.data[from:to])}, to - from
}

// copyRecords copies every record to the heap at once, for a decode of
// all of them (decodeAll): one copy rather than one a record.
func (c *entryCache) copyRecords() {
	if c.heap == nil && c.records != nil {
		c.heap = bytes.Clone(c.data[c.recordAt(0):c.recordAt(c.count[0]+c.count[1]+c.count[2])])
	}
	if c.base != nil {
		c.base.copyRecords()
	}
}

// knowledgeAt, learningAt and journalAt decode the entry at place i of
// their kind; false when its record does not decode to its end exactly.
func (c *entryCache) knowledgeAt(i int) (entry.Knowledge, bool) {
	if i < c.baseCount[0] {
		return c.base.knowledgeAt(i)
	}
	var k entry.Knowledge
	d, end := c.record(i - c.baseCount[0])
	d.knowledge(&k)
	return k, d.err == nil && d.off == end
}

func (c *entryCache) learningAt(i int) (entry.Learning, bool) {
	if i < c.baseCount[1] {
		return c.base.learningAt(i)
	}
	var l entry.Learning
	d, end := c.record(c.count[0] + i - c.baseCount[1])
	d.learning(&l)
	return l, d.err == nil && d.off == end
}

func (c *entryCache) journalAt(i int) (entry.JournalEntry, bool) {
	if i < c.baseCount[2] {
		return c.base.journalAt(i)
	}
	var j entry.JournalEntry
	d, end := c.record(c.count[0] + c.count[1] + i - c.baseCount[2])
	d.journal(&j)
	return j, d.err == nil && d.off == end
}

// decodeAll decodes every entry, each at its place (a delta's base's
// records that no file has left zero); false when one does not decode.
func (c *entryCache) decodeAll() (Entries, bool) {
	c.copyRecords()
	var out Entries
	out.Knowledge = make([]entry.Knowledge, c.baseCount[0]+c.count[0])
	out.Learnings = make([]entry.Learning, c.baseCount[1]+c.count[1])
	out.Journal = make([]entry.JournalEntry, c.baseCount[2]+c.count[2])
	ok := true
	for _, i := range c.places(0) {
		var good bool
		out.Knowledge[i], good = c.knowledgeAt(i)
		ok = ok && good
	}
	for _, i := range c.places(1) {
		var good bool
		out.Learnings[i], good = c.learningAt(i)
		ok = ok && good
	}
	for _, i := range c.places(2) {
		var good bool
		out.Journal[i], good = c.journalAt(i)
		ok = ok && good
	}
	return out, ok
}

var errBadCache = errors.New("entries.cache is damaged")

// knowledge and learning encode an entry's fields, in an order their
// decoder's counterparts read: the entries cache and the blob cache share
// them.
func (e *encoder) knowledge(k *entry.Knowledge) {
	e.strs(k.Slug, k.Title, k.Feature, k.CreatedAt, k.UpdatedAt, k.Body, k.Path)
	e.list(k.Tags)
	e.uint(uint64(len(k.Sources)))
	for _, src := range k.Sources {
		e.strs(src.Path, src.Blob)
	}
}

func (e *encoder) learning(l *entry.Learning) {
	e.strs(l.ID, l.Category, l.Task, l.CreatedAt, l.Status, l.StatusReason, l.SupersededBy, l.Kind, l.TaskType, l.Body, l.Path)
	e.list(l.Tags)
	e.list(l.SourceRuns)
	e.optFloat(l.Confidence)
	e.optFloat(l.SuccessRate)
}

func (e *encoder) journal(j *entry.JournalEntry) {
	e.strs(j.RunID, j.TaskID, j.FeatureID, j.Outcome, j.Model, j.NextModel, j.Difficulty, j.CreatedAt, j.IngestKey, j.RevertedAt, j.Notes, j.Path)
	e.int(int64(j.Iteration))
	e.float(j.DurationSecs)
	e.float(j.CostUSD)
	e.list(j.FilesModified)
	if f := j.Failure; f != nil {
		e.w.WriteByte(1)
		e.strs(f.WhatTried, f.WhyFailed, f.ErrorCategory, f.StackTrace, f.RetrySuggestion)
		e.list(f.RelevantFiles)
	} else {
		e.w.WriteByte(0)
	}
}

func (d *decoder) knowledge(k *entry.Knowledge) {
	d.strs(&k.Slug, &k.Title, &k.Feature, &k.CreatedAt, &k.UpdatedAt, &k.Body, &k.Path)
	k.Tags = d.list()
	if ns := d.uint(); ns > 0 && ns < 1<<16 {
		k.Sources = make([]entry.Source, ns)
		for j := range k.Sources {
			d.strs(&k.Sources[j].Path, &k.Sources[j].Blob)
		}
	}
}

func (d *decoder) learning(l *entry.Learning) {
	d.strs(&l.ID, &l.Category, &l.Task, &l.CreatedAt, &l.Status, &l.StatusReason, &l.SupersededBy, &l.Kind, &l.TaskType, &l.Body, &l.Path)
	l.Tags = d.list()
	l.SourceRuns = d.list()
	l.Confidence = d.optFloat()
	l.SuccessRate = d.optFloat()
}

func (d *decoder) journal(j *entry.JournalEntry) {
	d.strs(&j.RunID, &j.TaskID, &j.FeatureID, &j.Outcome, &j.Model, &j.NextModel, &j.Difficulty, &j.CreatedAt, &j.IngestKey, &j.RevertedAt, &j.Notes, &j.Path)
	j.Iteration = int(d.int())
	j.DurationSecs = d.float()
	j.CostUSD = d.float()
	j.FilesModified = d.list()
	if d.byte() == 1 {
		f := &entry.Failure{}
		d.strs(&f.WhatTried, &f.WhyFailed, &f.ErrorCategory, &f.StackTrace, &f.RetrySuggestion)
		f.RelevantFiles = d.list()
		j.Failure = f
	}
}

// encoder writes to w; scratch holds a number on its way there, so that
// encoding allocates nothing. written counts the bytes w has passed on.
type encoder struct {
	w       *bufio.Writer
	written *int64
	tee     io.Writer // when set, is also given what w passes on
	scratch [binary.MaxVarintLen64]byte
}

// pos is how many bytes have been encoded.
func (e *encoder) warning(w *entry.Warning) {
	e.str(w.Path)
	e.uint(uint64(w.Line))
	e.str(w.Message)
	minor := byte(0)
	if w.Minor {
		minor = 1
	}
	e.w.WriteByte(minor)
}

func (d *decoder) warning() entry.Warning {
	return entry.Warning{Path: d.str(), Line: int(d.uint()), Message: d.str(), Minor: d.byte() == 1}
}

func (e *encoder) pos() int64 { return *e.written + int64(e.w.Buffered()) }

func (e *encoder) uint(v uint64) { e.w.Write(binary.AppendUvarint(e.scratch[:0], v)) }
func (e *encoder) int(v int64)   { e.w.Write(binary.AppendVarint(e.scratch[:0], v)) }
func (e *encoder) float(v float64) {
	e.w.Write(binary.LittleEndian.AppendUint64(e.scratch[:0], math.Float64bits(v)))
}
func (e *encoder) stamp(st fsx.Stamp) {
	e.int(st.Mtime)
	e.int(st.Ctime)
	e.uint(st.Ino)
	e.int(st.Size)
}
func (e *encoder) str(s string) { e.uint(uint64(len(s))); e.w.WriteString(s) }
func (e *encoder) strs(ss ...string) {
	for _, s := range ss {
		e.str(s)
	}
}

// list keeps nil and empty apart, as the parsers do.
func (e *encoder) list(l []string) {
	if l == nil {
		e.uint(0)
		return
	}
	e.uint(uint64(len(l)) + 1)
	e.strs(l...)
}

func (e *encoder) optFloat(p *float64) {
	if p == nil {
		e.w.WriteByte(0)
		return
	}
	e.w.WriteByte(1)
	e.float(*p)
}

type decoder struct {
	data []byte
	off  int
	err  error
}

func (d *decoder) fail() { d.err, d.off = errBadCache, len(d.data) }

func (d *decoder) uint() uint64 {
	// Most numbers are short strings' lengths: one byte.
	if d.off < len(d.data) && d.data[d.off] < 0x80 {
		d.off++
		return uint64(d.data[d.off-1])
	}
	v, n := binary.Uvarint(d.data[d.off:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) int() int64 {
	v, n := binary.Varint(d.data[d.off:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) byte() byte {
	if d.off >= len(d.data) {
		d.fail()
		return 0
	}
	d.off++
	return d.data[d.off-1]
}

func (d *decoder) float() float64 {
	if len(d.data)-d.off < 8 {
		d.fail()
		return 0
	}
	d.off += 8
	return math.Float64frombits(binary.LittleEndian.Uint64(d.data[d.off-8:]))
}

func (d *decoder) stamp() fsx.Stamp {
	return fsx.Stamp{Mtime: d.int(), Ctime: d.int(), Ino: d.uint(), Size: d.int()}
}

// str is a string of the data, without a copy: it points into d.data
// (see cacheString).
func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.data)-d.off) {
		d.fail()
		return ""
	}
	s := cacheString(d.data[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

func (d *decoder) strs(ps ...*string) {
	for _, p := range ps {
		*p = d.str()
	}
}

func (d *decoder) list() []string {
	n := d.uint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(d.data)-d.off) {
		d.fail()
		return nil
	}
	l := make([]string, n-1)
	for i := range l {
		l[i] = d.str()
	}
	return l
}

func (d *decoder) optFloat() *float64 {
	if d.byte() == 0 {
		return nil
	}
	v := d.float()
	return &v
}

// mappings are the cache files a Cache mapped, released by its Close:
// a Catalog's heads and file table point into them.
type mappings struct{ releases []func() }

// mapFile maps the cache file at path read-only, populated for a read of
// all of it, until the mappings are released. The file is only ever
// replaced by a rename, never changed in place, so the mapped bytes stay
// what they were.
func (m *mappings) mapFile(path string, populate bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	mapFile := fsx.Map
	if populate {
		mapFile = fsx.MapPopulated
	}
	data, release, err := mapFile(f)
	if err == nil {
		m.releases = append(m.releases, release)
	}
	return data, err
}

// release unmaps every file mapped.
func (m *mappings) release() {
	for _, r := range m.releases {
		r()
	}
	m.releases = nil
}

// cacheString is b as a string without a copy. b is in a mapped cache
// file only for what a Catalog keeps while its Store is open (its heads
// and file table); what a caller is given is decoded from a copy on the
// heap, which the strings keep alive.
func cacheString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// DropEntryCache removes the entries cache: the next Entries reads every
// file (lore index rebuild).
func (s *Cache) DropEntryCache() error {
	for _, p := range []string{s.entryDeltaPath(), s.entryCachePath()} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func (s *Cache) entryCachePath() string { return filepath.Join(s.stateDir, "entries.cache") }

// entryDeltaPath is where the delta over the entries cache is kept.
func (s *Cache) entryDeltaPath() string { return filepath.Join(s.stateDir, "entries.delta") }

// sweepLimit is storewatch.SweepLimit, or what a test set.
func (s *Cache) sweepLimit() int {
	if s.sweep != 0 {
		return s.sweep
	}
	return storewatch.SweepLimit
}

// rewrittenByGit is the cached files that git wrote since the cache last
// looked (storewatch.Git.Written) with a stat the cache does not have,
// and records the look in l; nil when git's index cannot tell (every file
// is then stat'ed). Outside git, nothing.
func (s *Cache) rewrittenByGit(c entryCache, l *listing, now int64) map[string]bool {
	out := map[string]bool{}
	git := storewatch.Git{Index: s.gitIndex, Prefix: s.gitPrefix}
	last := storewatch.Look{Stamp: c.git, At: c.gitLook}
	look, err := git.Written(entry.Dir, last, now, func(p []byte, g gitindex.Stat) {
		rel := string(p)
		if i, found := sort.Find(len(c.paths), func(i int) int { return strings.Compare(rel, c.paths[i]) }); found && !g.Matches(c.stamps[i]) {
			out[rel] = true
		}
	})
	l.git, l.gitLook = look.Stamp, look.At
	if err != nil {
		return nil
	}
	if look != last {
		l.unchanged = false
	}
	return out
}
