package fresh

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sort"

	"lore/internal/fsx"
)

// segment is the record of the entry files directly in one directory
// (memories.md and SKILL.md files are watched, not in segments).
//
// A segment read from a Manifest is used where it lies, in the mapped
// file: a table of fixed-size records sorted by the hash of the file name,
// then the names. Looking a name up is a binary search, so checking a
// directory of 25,000 files allocates nothing for the files that did not
// change. Changes are kept beside the table and merged into it when the
// Manifest is written.
type segment struct {
	at    span   // where it is in the Manifest file; zero for a new one
	table []byte // its bytes in the mapped manifest; nil until loaded, or for a new one
	// loaded is set once table has been checked (or the segment is new).
	loaded bool
	count  int                   // records in table
	set    map[string]fileRecord // added or changed since table
	gone   map[string]bool       // dropped since table
}

// A record in a segment's table: name hash, name offset and length (in
// the names that follow the table), mtime, ctime, inode, size, content
// hash.
const (
	segHeaderLen = 8
	segRecordLen = 8 + 4 + 4 + 8*5
)

// fnv64a is the 64-bit FNV-1a hash: of a file's bytes (what was indexed)
// and of a file name (a segment's key). Written out rather than through
// hash/fnv, whose Hash escapes to the heap on every call.
func fnv64a(name []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, b := range name {
		h ^= uint64(b)
		h *= 1099511628211
	}
	return h
}

// load checks the segment's bytes in the mapped Manifest file.
func (s *segment) load(file []byte) error {
	if s.loaded {
		return nil
	}
	if s.at.n == 0 {
		s.loaded = true
		return nil
	}
	if s.at.off < 0 || s.at.n < segHeaderLen || s.at.off+s.at.n > int64(len(file)) {
		return ErrBadManifest
	}
	t := file[s.at.off : s.at.off+s.at.n]
	if crc32.ChecksumIEEE(t) != s.at.crc {
		return ErrBadManifest
	}
	count := int(binary.LittleEndian.Uint32(t))
	if count != s.count || segHeaderLen+count*segRecordLen > len(t) {
		return ErrBadManifest
	}
	names := len(t) - segHeaderLen - count*segRecordLen
	for i := 0; i < count; i++ {
		off, n := s.nameSpan(t, i)
		if off+n > names || (i > 0 && s.key(t, i) < s.key(t, i-1)) {
			return ErrBadManifest
		}
	}
	s.table, s.loaded = t, true
	return nil
}

func (s *segment) rec(t []byte, i int) []byte {
	return t[segHeaderLen+i*segRecordLen : segHeaderLen+(i+1)*segRecordLen]
}

func (s *segment) key(t []byte, i int) uint64 { return binary.LittleEndian.Uint64(s.rec(t, i)) }

func (s *segment) nameSpan(t []byte, i int) (off, n int) {
	r := s.rec(t, i)
	return int(binary.LittleEndian.Uint32(r[8:])), int(binary.LittleEndian.Uint32(r[12:]))
}

func (s *segment) name(i int) []byte {
	off, n := s.nameSpan(s.table, i)
	base := segHeaderLen + s.count*segRecordLen + off
	return s.table[base : base+n]
}

func (s *segment) record(i int) fileRecord {
	r := s.rec(s.table, i)[16:]
	le := binary.LittleEndian
	return fileRecord{
		stat: fsx.Stamp{Mtime: int64(le.Uint64(r)), Ctime: int64(le.Uint64(r[8:])), Ino: le.Uint64(r[16:]), Size: int64(le.Uint64(r[24:]))},
		hash: le.Uint64(r[32:]),
	}
}

// find returns the table index of name, or -1.
func (s *segment) find(name []byte) int {
	if s.count == 0 || s.table == nil {
		return -1
	}
	k := fnv64a(name)
	// Keys are hashes, spread evenly: interpolation finds the place in a
	// probe or two where a binary search would take fifteen.
	i, j := 0, s.count // the first key >= k is in [i, j]
	for j-i > 8 {
		lo, hi := s.key(s.table, i), s.key(s.table, j-1)
		if k <= lo {
			j = i
			break
		}
		if k > hi {
			i = j
			break
		}
		g := i + int(float64(k-lo)/float64(hi-lo)*float64(j-1-i))
		g = max(i, min(g, j-1))
		if s.key(s.table, g) < k {
			i = g + 1
		} else {
			j = g
		}
	}
	for i < j && s.key(s.table, i) < k {
		i++
	}
	for ; i < s.count && s.key(s.table, i) == k; i++ {
		if bytes.Equal(s.name(i), name) {
			return i
		}
	}
	return -1
}

// inodeSum is the sum of inodeMix(key, inode) over the files the segment
// records: a directory whose files sum the same holds the same names
// under the same inodes, in whatever order it lists them. ok is false
// when the segment was changed since it was read, or a record has no
// inode.
func (s *segment) inodeSum() (sum uint64, ok bool) {
	if len(s.set) > 0 || len(s.gone) > 0 || (s.table == nil && s.count > 0) {
		return 0, false
	}
	for i := 0; i < s.count; i++ {
		r := s.rec(s.table, i)
		ino := binary.LittleEndian.Uint64(r[16+16:])
		if ino == 0 {
			return 0, false
		}
		sum += inodeMix(binary.LittleEndian.Uint64(r), ino)
	}
	return sum, true
}

// inodeMix scrambles a name's key with its inode (splitmix64's
// finalizer), so that sums of different sets differ but by a 2^-64
// chance.
func inodeMix(key, ino uint64) uint64 {
	x := key ^ ino*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// get returns the record of file name.
func (s *segment) get(name []byte) (fileRecord, bool) {
	if r, ok := s.set[string(name)]; ok {
		return r, true
	}
	if s.gone[string(name)] {
		return fileRecord{}, false
	}
	if i := s.find(name); i >= 0 {
		return s.record(i), true
	}
	return fileRecord{}, false
}

// put records file name.
func (s *segment) put(name string, r fileRecord) {
	if s.set == nil {
		s.set = map[string]fileRecord{}
	}
	s.set[name] = r
	delete(s.gone, name)
}

// drop forgets file name.
func (s *segment) drop(name string) {
	delete(s.set, name)
	if s.find([]byte(name)) >= 0 {
		if s.gone == nil {
			s.gone = map[string]bool{}
		}
		s.gone[name] = true
	}
}

// unchanged says whether the segment's bytes in the Manifest file are
// still what it records.
func (s *segment) unchanged() bool {
	return !s.loaded || (s.at.n > 0 && len(s.set) == 0 && len(s.gone) == 0)
}

// len is how many files the segment records.
func (s *segment) len() int {
	if !s.loaded {
		return s.count
	}
	n := s.count - len(s.gone)
	for name := range s.set {
		if s.find([]byte(name)) < 0 {
			n++
		}
	}
	return n
}

// each calls fn with every file the segment records.
func (s *segment) each(fn func(name string, r fileRecord) error) error {
	for i := 0; i < s.count && s.table != nil; i++ {
		name := string(s.name(i))
		if _, ok := s.set[name]; ok || s.gone[name] {
			continue
		}
		if err := fn(name, s.record(i)); err != nil {
			return err
		}
	}
	for name, r := range s.set {
		if err := fn(name, r); err != nil {
			return err
		}
	}
	return nil
}

// encode writes the segment's records, the table's merged with the
// Changes, in key order.
func (s *segment) encode(w *spanWriter) {
	type entry struct {
		key  uint64
		name string
		r    fileRecord
	}
	added := make([]entry, 0, len(s.set))
	for name, r := range s.set {
		added = append(added, entry{fnv64a([]byte(name)), name, r})
	}
	sort.Slice(added, func(i, j int) bool { return added[i].key < added[j].key })
	// Walk the merge twice: records, then names.
	merge := func(fn func(key uint64, name []byte, r fileRecord)) {
		j := 0
		for i := 0; i < s.count && s.table != nil; i++ {
			k := s.key(s.table, i)
			for ; j < len(added) && added[j].key < k; j++ {
				fn(added[j].key, []byte(added[j].name), added[j].r)
			}
			name := s.name(i)
			if _, ok := s.set[string(name)]; ok || s.gone[string(name)] {
				continue
			}
			fn(k, name, s.record(i))
		}
		for ; j < len(added); j++ {
			fn(added[j].key, []byte(added[j].name), added[j].r)
		}
	}
	count := 0
	merge(func(uint64, []byte, fileRecord) { count++ })
	var head [segHeaderLen]byte
	binary.LittleEndian.PutUint32(head[:], uint32(count))
	w.write(head[:])
	var rec [segRecordLen]byte
	le := binary.LittleEndian
	off := 0
	merge(func(key uint64, name []byte, r fileRecord) {
		le.PutUint64(rec[0:], key)
		le.PutUint32(rec[8:], uint32(off))
		le.PutUint32(rec[12:], uint32(len(name)))
		le.PutUint64(rec[16:], uint64(r.stat.Mtime))
		le.PutUint64(rec[24:], uint64(r.stat.Ctime))
		le.PutUint64(rec[32:], r.stat.Ino)
		le.PutUint64(rec[40:], uint64(r.stat.Size))
		le.PutUint64(rec[48:], r.hash)
		w.write(rec[:])
		off += len(name)
	})
	merge(func(_ uint64, name []byte, _ fileRecord) { w.write(name) })
}
