package mdstore

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"lore/internal/gitx"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// The blob cache: knowledge entries and learnings parsed once per content.
//
// A write decides from the store as its commit builds on it — HEAD's
// files, or the index's when it stages — and the duplicate checks of
// lore knowledge add, lore learning add and lore ingest read every
// knowledge entry or every learning to do so: at 100k entries, reading
// and parsing 25,000 learnings from git's objects took 2 s under the
// repository lock. But git names every file's content: a blob id. The
// blob cache (<state dir>/blobs-<kind>.cache, never committed) keeps each
// file parsed under its path and blob id, so a write reads from git only
// the files whose content it has not parsed before. Being keyed by
// content, it needs no invalidation: a file changed by anyone has another
// blob id, and an entry the cache holds is what parsing that blob at that
// path gives. A write that reads the files on disk (commit: none) or that
// has queued changes on top of what it reads reads every file, as before.
//
// The cache file: magic, versions, then per file, in path order, its
// path, blob id, entry and the entry's keywords (for a learning: what the
// near-duplicate check compares; see storedLearnings), so that a write
// tokenises none of the stored bodies either. A file that does not parse
// is not cached: it is read again, and says why, every time. The file is
// rewritten, atomically, after a read that parsed more than rewriteAfter
// files it does not hold, found a quarter of it stale, or found it
// damaged; two processes rewriting it at once leave one of two correct
// caches. Its strings point into the mapped file, which is never
// unmapped: a long-lived process will want to copy them.

const (
	blobCacheMagic   = "LOREBLOB"
	blobCacheVersion = 1 // the entries' encoding is the entries cache's (cacheVersion, also checked)
)

// rewriteAfter is how many files a read may parse that the cache does not
// hold before it rewrites the cache.
const rewriteAfter = 32

type blobKey struct {
	path string
	blob gitx.Hash
}

// cached is an entry as the blob cache holds it, with its keywords.
type cached[T any] struct {
	v     T
	words string
}

// readCachedMarkdownFiles is readMarkdownFiles(t, dir, parse) through the
// blob cache: the same entries in the same order, each with keys(entry)
// (its keywords; "" when keys is nil). ok is false when the change reads
// the files on disk or has queued changes, and the caller must read every
// file.
//
// The cache holds its files sorted by path, as the directory lists them,
// so the two are walked side by side: nothing is looked up in a map, and
// a cached entry is decoded only when its file is still there with the
// same blob.
func readCachedMarkdownFiles[T any](t *Tx, dir string, parse func([]byte, string) (T, error), keys func(*T) string,
	encode func(*encoder, *T), decode func(*decoder, *T)) (out []cached[T], ok bool, err error) {
	if len(t.overlay) > 0 || t.stateDir == "" {
		return nil, false, nil
	}
	if ahead, ok := t.ahead[dir]; ok {
		if tree, ok, err := t.tx.TreeID(t.path(dir)); err == nil && ok && tree == ahead.tree {
			if read, ok := ahead.read.([]cached[T]); ok {
				return read, true, nil
			}
		}
	}
	all, ok, err := t.tx.Blobs(t.path(dir))
	if err != nil || !ok {
		return nil, false, err
	}
	// The regular files git has, as markdownFiles lists them: any other
	// entry (a link, a submodule) is refused when read, and skipped.
	// They are sorted by name, as the cache is.
	blobs := all[:0:0]
	for _, b := range all {
		if strings.HasSuffix(b.Name, ".md") && !strings.HasPrefix(b.Name, ".") {
			blobs = append(blobs, b)
		}
	}
	cachePath := filepath.Join(t.stateDir, "blobs-"+path.Base(dir)+".cache")
	c := openBlobCache(cachePath)
	skip := func(d *decoder) {
		var v T
		decode(d, &v)
		d.str()
	}
	found := make([]cached[T], len(blobs))
	parsed := make([]bool, len(blobs))
	keep := make([]blobKey, len(blobs)) // the file: what the cache may hold
	hits, misses := 0, 0
	for i, b := range blobs {
		p := dir + "/" + b.Name
		if c.seek(p, b.Hash, skip) {
			e := &found[i] // decoded in place: an entry is a few hundred bytes
			decode(&c.d, &e.v)
			e.words = c.d.str()
			if c.d.err == nil {
				parsed[i], keep[i] = true, blobKey{p, b.Hash}
				hits++
				continue
			}
			*e = cached[T]{}
			c.broken()
		}
		// Not parsed before.
		data, ok, err := t.Read(p)
		if err != nil || !ok {
			continue
		}
		v, err := parse(data, p)
		if err != nil {
			continue
		}
		found[i], parsed[i], keep[i] = cached[T]{v: v}, true, blobKey{p, b.Hash}
		if keys != nil {
			found[i].words = keys(&v)
		}
		misses++
	}
	// Rewriting the cache costs what it holds (19 MB for 25,000
	// learnings); a few misses are cheaper parsed again next time.
	if misses > rewriteAfter || c.bad || c.n-hits > c.n/4 {
		var ks []blobKey
		var es []cached[T]
		for i := range keep {
			if keep[i].path != "" {
				ks, es = append(ks, keep[i]), append(es, found[i])
			}
		}
		writeBlobCache(cachePath, es, ks, encode) // a cache: failing costs the next write only
	}
	// In place: an entry is a few hundred bytes, and a store holds tens
	// of thousands.
	out = found[:0]
	for i := range parsed {
		if parsed[i] {
			if len(out) < i {
				found[len(out)] = found[i]
			}
			out = out[:len(out)+1]
		}
	}
	return out, true, nil
}

// writeBlobCache writes entries, whose files are keys (in path order).
func writeBlobCache[T any](path string, entries []cached[T], keys []blobKey, encode func(*encoder, *T)) error {
	return writeCacheFile(path, func(e *encoder) {
		e.w.WriteString(blobCacheMagic)
		e.uint(blobCacheVersion)
		e.uint(cacheVersion)
		e.uint(uint64(len(keys)))
		for i, k := range keys {
			e.str(k.path)
			e.w.Write(k.blob[:])
			encode(e, &entries[i].v)
			e.str(entries[i].words)
		}
	})
}

// blobCache reads a cache file in order: the current record's path and
// blob, with its entry next in d.
type blobCache struct {
	d       decoder
	n       int // records in the file
	reached int // records whose path was read
	path    string
	blob    gitx.Hash
	pending bool // path and blob are read, the entry not
	bad     bool // the file is damaged: rewrite it
}

// openBlobCache maps the cache at path; a missing, damaged or older one
// reads as empty.
func openBlobCache(path string) *blobCache {
	c := &blobCache{}
	data, err := os.ReadFile(path) // the entries decoded point into it
	if err != nil || len(data) < len(blobCacheMagic) || string(data[:len(blobCacheMagic)]) != blobCacheMagic {
		c.bad = err == nil
		return c
	}
	c.d = decoder{data: data, off: len(blobCacheMagic)}
	if c.d.uint() != blobCacheVersion || c.d.uint() != cacheVersion {
		return &blobCache{bad: true}
	}
	n := c.d.uint()
	if c.d.err != nil || n > uint64(len(data)) {
		return &blobCache{bad: true}
	}
	c.n = int(n)
	return c
}

// seek moves to the record of path p, skipping (with skip) the entries of
// the records before it — paths ascend — and reports whether there is one
// for blob; its entry is then what d reads next. A record of p for another
// blob (the file has changed) is skipped too.
func (c *blobCache) seek(p string, blob gitx.Hash, skip func(*decoder)) bool {
	for {
		if c.pending {
			if c.path == p {
				c.pending = false
				if c.blob == blob {
					return true
				}
				skip(&c.d)
				return false
			}
			if c.path > p {
				return false
			}
			skip(&c.d)
			c.pending = false
		}
		if c.reached == c.n || c.d.err != nil {
			return false
		}
		c.reached++
		prev := c.path
		c.path = c.d.str()
		if c.d.err != nil || c.d.off+len(c.blob) > len(c.d.data) || (c.reached > 1 && c.path <= prev) {
			c.broken()
			return false
		}
		copy(c.blob[:], c.d.data[c.d.off:])
		c.d.off += len(c.blob)
		c.pending = true
	}
}

// broken gives up on the rest of the file.
func (c *blobCache) broken() { c.reached, c.n, c.pending, c.bad = 0, 0, false, true }

// knowledge is the knowledge entries the change builds on, as
// loadKnowledge reads them, through the blob cache when it can.
func (t *Tx) knowledge() ([]entry.Knowledge, error) {
	cs, ok, err := t.cachedKnowledge()
	if err != nil || !ok {
		if err == nil {
			ks, _, err := entry.LoadKnowledge(t)
			return ks, err
		}
		return nil, err
	}
	ks := make([]entry.Knowledge, len(cs))
	for i, c := range cs {
		ks[i] = c.v
	}
	return ks, nil
}

// learnings is the learnings the change builds on, as loadLearnings
// reads them, each with its keywords (learningWords), through the blob
// cache when it can: as the directory lists them, which is not oldest
// first.
func (t *Tx) learnings() ([]cached[entry.Learning], error) {
	cs, ok, err := t.cachedLearnings()
	if err != nil || ok {
		return cs, err
	}
	ls, _, err := entry.LoadLearnings(t)
	if err != nil {
		return nil, err
	}
	for _, l := range ls {
		cs = append(cs, cached[entry.Learning]{v: l, words: entry.LearningWords(l.Body)})
	}
	return cs, nil
}

// cachedKnowledge and cachedLearnings are readCachedMarkdownFiles for
// each kind: what a write decides duplicates from, and what it reads ahead.
func (t *Tx) cachedKnowledge() ([]cached[entry.Knowledge], bool, error) {
	return readCachedMarkdownFiles(t, entry.KnowledgeDir, entry.ParseKnowledge, nil, (*encoder).knowledge, (*decoder).knowledge)
}

func (t *Tx) cachedLearnings() ([]cached[entry.Learning], bool, error) {
	return readCachedMarkdownFiles(t, entry.LearningsDir, entry.ParseLearning, func(l *entry.Learning) string { return entry.LearningWords(l.Body) },
		(*encoder).learning, (*decoder).learning)
}

// afterReadAhead, when a test sets it, runs between a write's read-ahead
// and its taking the lock.
var afterReadAhead func()

// readAhead is a directory of knowledge or learnings read before the
// repository's lock is taken (Store.readAhead): its git tree and what
// readCachedMarkdownFiles returned for it.
type readAhead struct {
	tree gitx.Hash
	read any // []cached[Knowledge] or []cached[Learning]
}

// readAhead reads the knowledge and learnings a write is about to decide
// duplicates from — the most of its time at 100k entries — from HEAD,
// before the write takes the repository's lock, so that the lock is held
// for little more than the commit. Under the lock the write uses what was
// read only when the directory's tree is still the one read (anyone's
// commit in between makes another); otherwise it reads again. Nothing is
// decided here. release drops what was read.
func (s *Store) readAhead(dirs ...string) (release func()) {
	if s.repo == nil || s.unusable != nil || s.config.Commit != config.CommitAuto || s.pending != (Pending{}) {
		return func() {}
	}
	snap, end, err := s.repo.Snapshot()
	if err != nil {
		return func() {} // the write reads under the lock, and says why
	}
	t := &Tx{tx: snap, prefix: s.prefix, stateDir: s.StateDir()}
	ahead := map[string]readAhead{}
	for _, dir := range dirs {
		tree, ok, err := snap.TreeID(t.path(dir))
		if err != nil || !ok {
			continue
		}
		var read any
		switch dir {
		case entry.KnowledgeDir:
			read, ok, err = t.cachedKnowledge()
		case entry.LearningsDir:
			read, ok, err = t.cachedLearnings()
		}
		if err == nil && ok {
			ahead[dir] = readAhead{tree: tree, read: read}
		}
	}
	s.ahead = ahead
	if afterReadAhead != nil {
		afterReadAhead()
	}
	return func() {
		s.ahead = nil
		end()
	}
}
