package catalog

import (
	"path/filepath"

	"lore/internal/fsx"
	"lore/mdstore/entry"
)

// What catalog's tests, which write the store through mdstore.Store (in
// package catalog_test), reach of its insides.

var (
	MemCacheMinSize = &memCacheMinSize
	DeltaMin        = &deltaMin
	CatalogKinds    = catalogKinds
)

func (s *Cache) SetSweepLimit(n int)                                     { s.sweep = n }
func (s *Cache) DeltaPath() string                                       { return s.entryDeltaPath() }
func (s *Cache) StateDir() string                                        { return s.stateDir }
func (s *Cache) MemoriesCachePath() string                               { return s.memCachePath() }
func (s *Cache) CachedMemories() ([]entry.Memory, []entry.Warning, bool) { return s.cachedMemories() }

// Cached says whether c reads through the entries cache's heads, and
// whether over a delta.
func (c *Catalog) Cached() (cached, overDelta bool) {
	return c.cache != nil, c.cache != nil && c.cache.base != nil
}

// RecordAt is where record i starts in the cache file at path; HeadsAt
// where kind k's heads start; Readable whether it reads at all.
func RecordAt(path string, i int) int {
	var m mappings
	defer m.release()
	c := readEntryCache(path, false, nil, &m)
	return c.recordAt(i)
}

func HeadsAt(path string, k int) int {
	var m mappings
	defer m.release()
	return readEntryCache(path, false, nil, &m).headsAt[k]
}

func Readable(path string) bool {
	var m mappings
	defer m.release()
	return readEntryCache(path, false, nil, &m).data != nil
}

// ReadsOverDelta says whether the cache's next read goes through a delta.
func (s *Cache) ReadsOverDelta() bool {
	c := s.readEntryCaches(false)
	return c.base != nil
}

// Doctor rewrites the entries cache with the body of knowledge entry slug
// changed to body, its stamps kept: a read that uses the cache returns
// that body, and a read of the file the file's.
func (s *Cache) Doctor(slug, body string) (ok bool) {
	path := filepath.Join(s.stateDir, "entries.cache")
	c := s.readEntryCaches(false)
	defer s.mapped.release()
	c.readTable()
	if len(c.paths) == 0 {
		return false
	}
	cached, decoded := c.decodeAll()
	if !decoded {
		return false
	}
	l := listing{dirs: c.dirs, dirStamps: c.dirStamps, unchanged: true}
	var out Entries
	var stamps []fsx.Stamp
	for i, p := range c.paths {
		l.paths = append(l.paths, p)
		stamps = append(stamps, c.stamps[i])
		switch c.kinds[i] {
		case 'k':
			k := cached.Knowledge[c.index[i]]
			if k.Slug == slug {
				k.Body = body
			}
			out.Knowledge = append(out.Knowledge, k)
		case 'l':
			out.Learnings = append(out.Learnings, cached.Learnings[c.index[i]])
		case 'j':
			out.Journal = append(out.Journal, cached.Journal[c.index[i]])
		}
	}
	warnings := make([]*entry.Warning, len(c.paths))
	for i := range c.paths {
		if c.kinds[i] == 'w' {
			warnings[i] = &c.w[c.index[i]]
		}
	}
	if err := writeEntryCache(path, l, stamps, out, warnings, nil, nil); err != nil {
		return false
	}
	return true
}
