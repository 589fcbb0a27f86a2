package catalog

import (
	"os"
	"path/filepath"
	"unsafe"

	"lore/internal/fsx"
	"lore/mdstore/entry"
)

// The memories cache (memories.cache in the state directory, never
// committed) keeps memories.md parsed: prime reads every memory, and
// parsing ten thousand of them costs tens of milliseconds where decoding
// them costs a few; a smaller file than memCacheMinSize is parsed each
// time (a millisecond or two), and no cache is written for it. It is
// keyed by the file's stamp, trusted as the
// entries cache trusts one (Entries), and holds: magic, version, the
// stamp, the warnings, and the memories in the file's order.
const (
	memCacheMagic   = "LOREMEMS"
	memCacheVersion = 2 // bump whenever Memory or the parser changes
)

// memCacheMinSize is the size of the smallest memories.md cached (a var
// for tests).
var memCacheMinSize int64 = 256 << 10

func (s *Cache) memCachePath() string { return filepath.Join(s.stateDir, "memories.cache") }

// cachedMemories are the memories and warnings of memories.md as the
// cache has them, when its stamp is the file's.
func (s *Cache) cachedMemories() ([]entry.Memory, []entry.Warning, bool) {
	if s.files.hideStore || s.files.hidden(entry.MemoriesPath) {
		return nil, nil, false
	}
	stamp, err := fsx.Lstat(s.files.Abs(entry.MemoriesPath))
	if err != nil || stamp.Dir || stamp.Size < memCacheMinSize {
		return nil, nil, false
	}
	data, err := os.ReadFile(s.memCachePath()) // the memories decoded point into it
	if err != nil || len(data) < len(memCacheMagic) || string(data[:len(memCacheMagic)]) != memCacheMagic {
		return nil, nil, false
	}
	d := decoder{data: data, off: len(memCacheMagic)}
	if d.uint() != memCacheVersion || !d.stamp().Same(stamp) {
		return nil, nil, false
	}
	nw := d.uint()
	if nw > uint64(len(data)) {
		return nil, nil, false
	}
	var ws []entry.Warning
	for range nw {
		ws = append(ws, d.warning())
	}
	n := d.uint()
	if d.err != nil || n > uint64(len(data)) {
		return nil, nil, false
	}
	ms := make([]entry.Memory, n)
	for i := range ms {
		m := &ms[i]
		d.strs(&m.ID, (*string)(&m.Type), &m.Content, &m.Created)
		m.Tags = d.list()
		m.Line = int(d.uint())
	}
	if d.err != nil || d.off != len(data) {
		return nil, nil, false
	}
	return ms, ws, true
}

// cacheMemories writes the memories parsed from memories.md when its stamp
// was before the read what it is now, and old enough to trust.
func (s *Cache) cacheMemories(before fsx.Stamp, ms []entry.Memory, ws []entry.Warning) {
	after, err := fsx.Lstat(s.files.Abs(entry.MemoriesPath))
	if err != nil || !before.Same(after) || !after.Settled(s.now().UnixNano()) || after.Size < memCacheMinSize {
		return
	}
	// A cache: failing to write it costs the next read only.
	writeCacheFile(s.memCachePath(), func(e *encoder) {
		e.w.WriteString(memCacheMagic)
		e.uint(memCacheVersion)
		e.stamp(after)
		e.uint(uint64(len(ws)))
		for i := range ws {
			e.warning(&ws[i])
		}
		e.uint(uint64(len(ms)))
		for i := range ms {
			m := &ms[i]
			e.strs(m.ID, string(m.Type), m.Content, m.Created)
			e.list(m.Tags)
			e.uint(uint64(m.Line))
		}
	})
}

// Memories reads memories.md through the memories cache: every valid
// memory in file order, and the problems found.
// A store without memories.md has no memories; one whose memories.md is
// not a file lore reads (a link, a FIFO, larger than MemoriesReadLimit)
// has none either, and a warning says why.
func (s *Cache) Memories() ([]entry.Memory, []entry.Warning, error) {
	if ms, ws, ok := s.cachedMemories(); ok {
		return ms, ws, nil
	}
	before, statErr := fsx.Lstat(s.files.Abs(entry.MemoriesPath))
	data, ok, err := s.files.Read(entry.MemoriesPath)
	if w, skipped := entry.Skipped(entry.MemoriesPath, err); skipped {
		return nil, entry.WarningsOf(w), nil
	}
	if err != nil {
		return nil, nil, err
	}
	// The bytes are this function's alone and never changed: the
	// memories' strings point into them rather than into a copy.
	f := entry.ParseMemoriesText(bytesText(data), entry.MemoriesPath)
	if ok && statErr == nil {
		s.cacheMemories(before, f.Memories, f.Warnings)
	}
	return f.Memories, f.Warnings, nil
}

// bytesText is b as a string without a copy; b must never change after.
func bytesText(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
