package catalog

import (
	"os"
	"path"
	"path/filepath"

	"lore/internal/gitx"
	"lore/internal/neardup"
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
// near-duplicate check compares; see mdstore.StoredLearnings), so that a write
// tokenises none of the stored bodies either. A file that does not parse
// is not cached: it is read again, and says why, every time. The file is
// rewritten, atomically, after a read that parsed more than rewriteAfter
// files it does not hold, found a quarter of it stale, or found it
// damaged; two processes rewriting it at once leave one of two correct
// caches. It is read into the heap whole (it is read whole anyway), so
// the entries decoded from it, whose strings point into it, are the
// caller's.

const (
	blobCacheMagic   = "LOREBLOB"
	blobCacheVersion = 1 // the entries' encoding is the entries cache's (cacheVersion, also checked)
)

// rewriteAfter is how many files a read may parse that the cache does not
// hold before it rewrites the cache.
const RewriteAfter = 32

type blobKey struct {
	path string
	blob gitx.Hash
}

// ByBlob is an entry as the blob cache holds it, with its keywords.
type ByBlob[T any] struct {
	V     T
	Words string
}

// readByBlob reads the entries of dir's files through the blob cache in
// stateDir: blobs are the regular .md files git holds there, sorted by
// name, and read reads one that the cache does not hold as it is. The
// entries come in the order of blobs; a file that does not parse is left
// out.
func readByBlob[T any](stateDir, dir string, blobs []gitx.Blob, read func(p string) ([]byte, bool, error), parse func([]byte, string) (T, error), keys func(*T) string,
	encode func(*encoder, *T), decode func(*decoder, *T)) []ByBlob[T] {
	cachePath := filepath.Join(stateDir, "blobs-"+path.Base(dir)+".cache")
	c := openBlobCache(cachePath)
	skip := func(d *decoder) {
		var v T
		decode(d, &v)
		d.str()
	}
	found := make([]ByBlob[T], len(blobs))
	parsed := make([]bool, len(blobs))
	keep := make([]blobKey, len(blobs)) // the file: what the cache may hold
	hits, misses := 0, 0
	for i, b := range blobs {
		p := dir + "/" + b.Name
		if c.seek(p, b.Hash, skip) {
			e := &found[i] // decoded in place: an entry is a few hundred bytes
			decode(&c.d, &e.V)
			e.Words = c.d.str()
			if c.d.err == nil {
				parsed[i], keep[i] = true, blobKey{p, b.Hash}
				hits++
				continue
			}
			*e = ByBlob[T]{}
			c.broken()
		}
		// Not parsed before.
		data, ok, err := read(p)
		if err != nil || !ok {
			continue
		}
		v, err := parse(data, p)
		if err != nil {
			continue
		}
		found[i], parsed[i], keep[i] = ByBlob[T]{V: v}, true, blobKey{p, b.Hash}
		if keys != nil {
			found[i].Words = keys(&v)
		}
		misses++
	}
	// Rewriting the cache costs what it holds (19 MB for 25,000
	// learnings); a few misses are cheaper parsed again next time.
	if misses > RewriteAfter || c.bad || c.n-hits > c.n/4 {
		var ks []blobKey
		var es []ByBlob[T]
		for i := range keep {
			if keep[i].path != "" {
				ks, es = append(ks, keep[i]), append(es, found[i])
			}
		}
		writeBlobCache(cachePath, es, ks, encode) // a cache: failing costs the next write only
	}
	// In place: an entry is a few hundred bytes, and a store holds tens
	// of thousands.
	out := found[:0]
	for i := range parsed {
		if parsed[i] {
			if len(out) < i {
				found[len(out)] = found[i]
			}
			out = out[:len(out)+1]
		}
	}
	return out
}

// writeBlobCache writes entries, whose files are keys (in path order).
func writeBlobCache[T any](path string, entries []ByBlob[T], keys []blobKey, encode func(*encoder, *T)) error {
	return writeCacheFile(path, func(e *encoder) {
		e.w.WriteString(blobCacheMagic)
		e.uint(blobCacheVersion)
		e.uint(cacheVersion)
		e.uint(uint64(len(keys)))
		for i, k := range keys {
			e.str(k.path)
			e.w.Write(k.blob[:])
			encode(e, &entries[i].V)
			e.str(entries[i].Words)
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

// knowledgeByBlob and learningsByBlob read knowledge entries and
// learnings through the blob cache (readByBlob); a learning comes with
// its keywords.
func KnowledgeByBlob(stateDir, dir string, blobs []gitx.Blob, read func(string) ([]byte, bool, error)) []ByBlob[entry.Knowledge] {
	return readByBlob(stateDir, dir, blobs, read, entry.ParseKnowledge, nil, (*encoder).knowledge, (*decoder).knowledge)
}

func LearningsByBlob(stateDir, dir string, blobs []gitx.Blob, read func(string) ([]byte, bool, error)) []ByBlob[entry.Learning] {
	return readByBlob(stateDir, dir, blobs, read, entry.ParseLearning, func(l *entry.Learning) string { return neardup.Words(l.Body) },
		(*encoder).learning, (*decoder).learning)
}
