package gitindex

import (
	"bufio"
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"hash"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
)

// File is the index kept as the bytes git wrote, with the boundaries
// of its entries. lore changes a handful of entries in an index of maybe
// 100,000: the others are never decoded, and when the index is written
// back they are copied byte for byte (an entry that is racily clean gets
// its size zeroed on the way, see smudge). Only the changed entries are
// encoded, and in a version 4 index the one after each change, whose path
// is stored relative to its predecessor's.
type File struct {
	data    []byte // the whole file
	release func() // unmaps data
	version uint32
	count   int
	offsets []uint32 // start of each entry; offsets[count] is where the entries end
	// Path of entry i is pathData[pathStart[i]:pathStart[i+1]-1] for
	// version 4 (an arena of decoded paths), or read from data otherwise.
	pathData   []byte
	pathStart  []uint32
	extensions []indexExtension
	mtime      time.Time // entries modified at or after it are racy
	verify     chan error
	changes    map[string]*Entry // path → new stage-0 entry, or nil to remove
}

// Open reads the index at path. The file's checksum is verified in
// the background; call checkSum before relying on it. A missing file is an
// empty index.
func Open(path string) (*File, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		empty := (&Index{version: 2}).encode()
		return parseIndexFile(empty, func() {}, time.Time{}, path)
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	data, release, err := fsx.Map(f)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx, err := parseIndexFile(data, release, info.ModTime(), path)
	if err != nil {
		release()
		return nil, err
	}
	if idx.splitLink() != nil {
		// A split index is merged with its shared index through the
		// entry-by-entry codec and then handled as one whole index.
		defer release()
		if err := idx.CheckSum(); err != nil {
			return nil, err
		}
		whole, err := Read(path)
		if err != nil {
			return nil, err
		}
		return parseIndexFile(whole.encode(), func() {}, info.ModTime(), path)
	}
	return idx, nil
}

// parseIndexFile reads the entry boundaries of data; the checksum is
// verified meanwhile in a goroutine that reads data, so that on an error
// the goroutine is waited for before returning: the caller unmaps data.
func parseIndexFile(data []byte, release func(), mtime time.Time, name string) (idx *File, err error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: corrupt index: %s", name, fmt.Sprintf(format, args...))
	}
	if len(data) < 12+sha1.Size {
		return nil, bad("too short")
	}
	body := data[:len(data)-sha1.Size]
	if string(body[:4]) != indexSignature {
		return nil, bad("bad signature")
	}
	idx = &File{data: data, release: release, mtime: mtime, version: binary.BigEndian.Uint32(body[4:8]), verify: make(chan error, 1)}
	if idx.version < 2 || idx.version > 4 {
		return nil, fmt.Errorf("%w: version %d", ErrUnsupported, idx.version)
	}
	verifying := idx.verify
	defer func() {
		if err != nil {
			<-verifying // the goroutine below reads data, which the caller releases
		}
	}()
	go func() {
		sum := data[len(data)-sha1.Size:]
		if bytes.Equal(sum, make([]byte, sha1.Size)) { // index.skipHash
			verifying <- nil
			return
		}
		if got := sha1.Sum(body); !bytes.Equal(got[:], sum) {
			verifying <- bad("checksum mismatch")
			return
		}
		verifying <- nil
	}()
	count := int(binary.BigEndian.Uint32(body[8:12]))
	if count > len(body)/entryFixedSize {
		return nil, bad("%d entries cannot fit in %d bytes", count, len(body))
	}
	idx.count = count
	idx.offsets = make([]uint32, 0, count+1)
	if idx.version == 4 {
		idx.pathStart = make([]uint32, 0, count+1)
		idx.pathData = make([]byte, 0, len(body)/4)
	}
	pos, problem := walkEntries(body, idx.version, count, func(i, at int, path []byte) bool {
		idx.offsets = append(idx.offsets, uint32(at))
		if idx.version == 4 {
			idx.pathStart = append(idx.pathStart, uint32(len(idx.pathData)))
			idx.pathData = append(append(idx.pathData, path...), 0)
		}
		return true
	})
	if problem != "" {
		return nil, bad("%s", problem)
	}
	idx.offsets = append(idx.offsets, uint32(pos))
	if idx.version == 4 {
		idx.pathStart = append(idx.pathStart, uint32(len(idx.pathData)))
	}
	for pos < len(body) {
		if len(body)-pos < 8 {
			return nil, bad("extension header truncated")
		}
		sig := string(body[pos : pos+4])
		size := int(binary.BigEndian.Uint32(body[pos+4:]))
		pos += 8
		if size < 0 || len(body)-pos < size {
			return nil, bad("extension %q truncated", sig)
		}
		ext := body[pos : pos+size]
		pos += size
		switch sig {
		case "TREE", "REUC", "sdir", "link":
			// Kept: the cache tree is invalidated along changed paths,
			// resolve-undo does not depend on entry positions, sdir only
			// marks a sparse index; link is resolved by Open.
			idx.extensions = append(idx.extensions, indexExtension{sig: sig, data: ext})
		default:
			if sig[0] < 'A' || sig[0] > 'Z' {
				return nil, fmt.Errorf("%w: required extension %q", ErrUnsupported, sig)
			}
			// Optional caches (UNTR, FSMN, EOIE, IEOT, ...) describe
			// entry positions or the worktree as it was; git rebuilds
			// them when they are missing, and drops unknown ones too.
		}
	}
	return idx, nil
}

// walkEntries walks the count entries of an index file's bytes (body, the
// checksum left out), from just after the header, and calls fn with each
// entry's number, where it starts and its path — in version 4 rebuilt from
// the previous one into a buffer that the next entry reuses — until fn
// returns false. It returns where the entries end, or what is wrong with
// them.
func walkEntries(body []byte, version uint32, count int, fn func(i, at int, path []byte) bool) (end int, problem string) {
	pos := 12
	var prev []byte
	for i := 0; i < count; i++ {
		at := pos
		if len(body)-pos < entryFixedSize {
			return pos, fmt.Sprintf("entry %d truncated", i)
		}
		flags := binary.BigEndian.Uint16(body[pos+60:])
		name := pos + entryFixedSize
		if flags&flagExtended != 0 {
			if version < 3 {
				return pos, fmt.Sprintf("entry %d has extended flags in a version 2 index", i)
			}
			name += 2
		}
		if name > len(body) {
			return pos, fmt.Sprintf("entry %d truncated", i)
		}
		var path []byte
		if version == 4 {
			strip, n := readVarint(body[name:])
			if n == 0 || strip > uint64(len(prev)) {
				return pos, fmt.Sprintf("entry %d has a bad path prefix", i)
			}
			nul := bytes.IndexByte(body[name+n:], 0)
			if nul < 0 {
				return pos, fmt.Sprintf("entry %d path not terminated", i)
			}
			prev = append(prev[:len(prev)-int(strip)], body[name+n:name+n+nul]...)
			path = prev
			pos = name + n + nul + 1
		} else {
			length := int(flags & flagNameMask)
			if length == flagNameMask {
				if length = bytes.IndexByte(body[name:], 0); length < 0 {
					return pos, fmt.Sprintf("entry %d path not terminated", i)
				}
			}
			if name+length > len(body) {
				return pos, fmt.Sprintf("entry %d truncated", i)
			}
			path = body[name : name+length]
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			pos += (name - pos + length + 8) &^ 7
			if pos > len(body) {
				return pos, fmt.Sprintf("entry %d truncated", i)
			}
		}
		if !fn(i, at, path) {
			return pos, ""
		}
	}
	return pos, ""
}

func (idx *File) splitLink() []byte {
	for _, e := range idx.extensions {
		if e.sig == "link" {
			return e.data
		}
	}
	return nil
}

// checkSum waits for the background verification of the file's checksum.
func (idx *File) CheckSum() error {
	if idx.verify == nil {
		return nil
	}
	err := <-idx.verify
	idx.verify <- err // let a second call see the same answer
	return err
}

// close releases the mapped file.
func (idx *File) Close() {
	if idx.release != nil {
		idx.CheckSum() // the verifying goroutine reads data
		idx.release()
		idx.release = nil
	}
}

// path returns the path of entry i without copying.
func (idx *File) path(i int) []byte {
	if idx.version == 4 {
		return idx.pathData[idx.pathStart[i] : idx.pathStart[i+1]-1]
	}
	off := int(idx.offsets[i])
	name := off + entryFixedSize
	if binary.BigEndian.Uint16(idx.data[off+60:])&flagExtended != 0 {
		name += 2
	}
	return idx.data[name : name+bytes.IndexByte(idx.data[name:], 0)]
}

func (idx *File) stage(i int) int {
	return int(binary.BigEndian.Uint16(idx.data[idx.offsets[i]+60:])&flagStageMask) >> 12
}

// search returns the first entry whose (path, stage) is not before
// (path, stage 0).
func (idx *File) search(path string) int {
	return sort.Search(idx.count, func(i int) bool { return string(idx.path(i)) >= path })
}

// find returns the position of path's stage-0 entry.
func (idx *File) find(path string) (int, bool) {
	i := idx.search(path)
	return i, i < idx.count && string(idx.path(i)) == path && idx.stage(i) == 0
}

// conflicted reports whether path has entries at stages 1 to 3 (and no
// pending change, which resolves it).
func (idx *File) Conflicted(path string) bool {
	if _, changed := idx.changes[path]; changed {
		return false
	}
	for i := idx.search(path); i < idx.count && string(idx.path(i)) == path; i++ {
		if idx.stage(i) > 0 {
			return true
		}
	}
	return false
}

// Unmerged returns the entries at stages 1 to 3 (a path git left in
// conflict) of the paths below prefix ("" for all; a directory ends with
// a slash), in index order: by path, then by stage. A path with a pending
// change is resolved and left out.
func (idx *File) Unmerged(prefix string) []Entry {
	var out []Entry
	for i := idx.search(prefix); i < idx.count; i++ {
		p := idx.path(i)
		if !bytes.HasPrefix(p, []byte(prefix)) {
			break
		}
		if _, changed := idx.changes[string(p)]; changed || idx.stage(i) == 0 {
			continue
		}
		out = append(out, idx.entry(i))
	}
	return out
}

// sparseDirFor returns the sparse directory entry containing path, if any.
func (idx *File) SparseDirFor(path string) (string, bool) {
	for dir := path; ; {
		slash := strings.LastIndexByte(dir, '/')
		if slash < 0 {
			return "", false
		}
		dir = dir[:slash]
		if _, ok := idx.find(dir + "/"); ok {
			return dir + "/", true
		}
	}
}

// entry decodes entry i.
func (idx *File) entry(i int) Entry {
	b := idx.data[idx.offsets[i]:]
	e := decodeEntryFields(b)
	e.Path = string(idx.path(i))
	if e.Flags&flagExtended != 0 {
		e.ExtFlags = binary.BigEndian.Uint16(b[62:])
	}
	return e
}

// lookup returns path's stage-0 entry, taking pending changes into account.
func (idx *File) Lookup(path string) (Entry, bool) {
	if e, changed := idx.changes[path]; changed {
		if e == nil {
			return Entry{}, false
		}
		return *e, true
	}
	i, ok := idx.find(path)
	if !ok {
		return Entry{}, false
	}
	return idx.entry(i), true
}

// Unchanged returns the blob of path's stage-0 entry when the file, whose
// stamp is st, is that blob by git's own rule: the stat git recorded is
// st's (mtime, ctime, inode and size, as far as git keeps them) and the
// entry is not racily clean (changed at or after the index was written).
func (idx *File) Unchanged(path string, st fsx.Stamp) (plumbing.Hash, bool) {
	if _, changed := idx.changes[path]; changed || idx.mtime.IsZero() || st.Mtime == 0 {
		return plumbing.ZeroHash, false
	}
	i, ok := idx.find(path)
	if !ok || idx.racy(i) {
		return plumbing.ZeroHash, false
	}
	e := decodeEntryFields(idx.data[idx.offsets[i]:])
	same := int64(e.MtimeSec) == st.Mtime/1e9 && int64(e.MtimeNsec) == st.Mtime%1e9 &&
		int64(e.CtimeSec) == st.Ctime/1e9 && int64(e.CtimeNsec) == st.Ctime%1e9 &&
		e.Ino == uint32(st.Ino) && e.Size == uint32(st.Size)
	if !same {
		return plumbing.ZeroHash, false
	}
	return e.Hash, true
}

// set records e as path's new stage-0 entry; the path's conflict
// stages, if any, go (the conflict is resolved, as by git add).
func (idx *File) Set(e Entry) {
	if idx.changes == nil {
		idx.changes = map[string]*Entry{}
	}
	e.Flags &^= flagStageMask
	idx.changes[e.Path] = &e
	idx.invalidateCacheTree(e.Path)
}

// remove records that path's stage-0 entry goes, and its conflict
// stages, if any (the conflict is resolved, as by git rm).
func (idx *File) Remove(path string) {
	if _, ok := idx.Lookup(path); !ok && !idx.Conflicted(path) {
		return
	}
	if idx.changes == nil {
		idx.changes = map[string]*Entry{}
	}
	idx.changes[path] = nil
	idx.invalidateCacheTree(path)
}

func (idx *File) invalidateCacheTree(path string) {
	for i := range idx.extensions {
		if idx.extensions[i].sig != "TREE" {
			continue
		}
		data, err := invalidateTreeExtension(idx.extensions[i].data, path)
		if err != nil {
			// A cache tree we cannot read is dropped; git recomputes it.
			idx.extensions = append(idx.extensions[:i], idx.extensions[i+1:]...)
			return
		}
		idx.extensions[i].data = data
		return
	}
}

// racy reports whether entry i was modified at or after the index was
// written, so that its stat data alone does not prove it clean.
func (idx *File) racy(i int) bool {
	if idx.mtime.IsZero() {
		return false
	}
	b := idx.data[idx.offsets[i]:]
	mode := binary.BigEndian.Uint32(b[24:])
	if mode == 0o160000 || mode == 0o040000 { // gitlinks and sparse directories
		return false
	}
	sec, nsec := binary.BigEndian.Uint32(b[8:]), binary.BigEndian.Uint32(b[12:])
	isec, insec := uint32(idx.mtime.Unix()), uint32(idx.mtime.Nanosecond())
	return sec > isec || (sec == isec && nsec >= insec)
}

// writeTo streams the new index to w: header, entries (copied or
// encoded), kept extensions and the checksum.
func (idx *File) Write(w io.Writer) error {
	type change struct {
		path  string
		entry *Entry
	}
	var changes []change
	count := idx.count
	version := idx.version
	for p, e := range idx.changes {
		changes = append(changes, change{p, e})
		// A change replaces every entry at its path: stage 0, or the
		// stages of a conflict it resolves.
		for i := idx.search(p); i < idx.count && string(idx.path(i)) == p; i++ {
			count--
		}
		if e != nil {
			count++
		}
		if e != nil && e.ExtFlags != 0 && version == 2 {
			version = 3 // extended flags need version 3; other entries are unchanged
		}
	}
	sort.Slice(changes, func(i, j int) bool { return changes[i].path < changes[j].path })

	sum := sha1.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, sum), 256*1024)
	out := &indexWriter{w: bw, sum: sum}
	var hdr [12]byte
	copy(hdr[:], indexSignature)
	binary.BigEndian.PutUint32(hdr[4:], version)
	binary.BigEndian.PutUint32(hdr[8:], uint32(count))
	out.write(hdr[:])

	// The run of unchanged entries being copied starts at entry spanFrom.
	spanFrom := 0
	flush := func(to int) {
		out.copyEntries(idx, spanFrom, to)
		spanFrom = to
	}
	var lastPath []byte // the last path written, for version 4
	emit := func(e *Entry) {
		out.write(appendIndexEntry(nil, e, version, string(lastPath)))
		lastPath = []byte(e.Path)
	}
	ci := 0
	for i := 0; i <= idx.count; i++ {
		var p []byte
		if i < idx.count {
			p = idx.path(i)
		}
		// New paths that sort before entry i.
		for ci < len(changes) && (i == idx.count || changes[ci].path < string(p)) {
			flush(i)
			if changes[ci].entry != nil {
				emit(changes[ci].entry)
			}
			ci++
		}
		if i == idx.count {
			break
		}
		// Entry i replaced or removed, with the path's other stages.
		if ci < len(changes) && changes[ci].path == string(p) {
			flush(i)
			if changes[ci].entry != nil {
				emit(changes[ci].entry)
			}
			for i+1 < idx.count && string(idx.path(i+1)) == changes[ci].path {
				i++
			}
			spanFrom = i + 1
			ci++
			continue
		}
		// A version 4 entry stores its path relative to the entry before
		// it; after a change that is not the entry written last, so this
		// one is encoded again.
		if version == 4 {
			var origPrev []byte
			if i > 0 {
				origPrev = idx.path(i - 1)
			}
			if !bytes.Equal(lastPath, origPrev) {
				flush(i)
				e := idx.entry(i)
				if idx.racy(i) {
					e.Size = 0
				}
				emit(&e)
				spanFrom = i + 1
				continue
			}
		}
		lastPath = p
	}
	flush(idx.count)
	for _, ext := range idx.extensions {
		if ext.sig == "link" {
			continue
		}
		var h [8]byte
		copy(h[:], ext.sig)
		binary.BigEndian.PutUint32(h[4:], uint32(len(ext.data)))
		out.write(h[:])
		out.write(ext.data)
	}
	if out.err != nil {
		return out.err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(sum.Sum(nil))
	return err
}

// indexWriter writes the new index, remembering the first error.
type indexWriter struct {
	w   *bufio.Writer
	sum hash.Hash
	err error
}

func (w *indexWriter) write(b []byte) {
	if w.err == nil {
		_, w.err = w.w.Write(b)
	}
}

// copyEntries copies entries [from, to) byte for byte, zeroing the size
// of racily clean ones (git's "smudging").
func (w *indexWriter) copyEntries(idx *File, from, to int) {
	if from >= to {
		return
	}
	start := idx.offsets[from]
	for i := from; i < to; i++ {
		if !idx.racy(i) {
			continue
		}
		sizeAt := idx.offsets[i] + 36
		w.write(idx.data[start:sizeAt])
		w.write([]byte{0, 0, 0, 0})
		start = sizeAt + 4
	}
	w.write(idx.data[start:idx.offsets[to]])
}

// appendIndexEntry encodes one entry; prevPath is the path of the entry
// written before it (used by version 4's prefix compression).
func appendIndexEntry(dst []byte, e *Entry, version uint32, prevPath string) []byte {
	start := len(dst)
	var b [entryFixedSize + 2]byte
	binary.BigEndian.PutUint32(b[0:], e.CtimeSec)
	binary.BigEndian.PutUint32(b[4:], e.CtimeNsec)
	binary.BigEndian.PutUint32(b[8:], e.MtimeSec)
	binary.BigEndian.PutUint32(b[12:], e.MtimeNsec)
	binary.BigEndian.PutUint32(b[16:], e.Dev)
	binary.BigEndian.PutUint32(b[20:], e.Ino)
	binary.BigEndian.PutUint32(b[24:], e.Mode)
	binary.BigEndian.PutUint32(b[28:], e.UID)
	binary.BigEndian.PutUint32(b[32:], e.GID)
	binary.BigEndian.PutUint32(b[36:], e.Size)
	copy(b[40:60], e.Hash[:])
	flags := e.Flags &^ (flagNameMask | flagExtended)
	if len(e.Path) < flagNameMask {
		flags |= uint16(len(e.Path))
	} else {
		flags |= flagNameMask
	}
	n := entryFixedSize
	if e.ExtFlags != 0 {
		flags |= flagExtended
		binary.BigEndian.PutUint16(b[62:], e.ExtFlags)
		n += 2
	}
	binary.BigEndian.PutUint16(b[60:], flags)
	dst = append(dst, b[:n]...)
	if version == 4 {
		common := 0
		for common < len(prevPath) && common < len(e.Path) && prevPath[common] == e.Path[common] {
			common++
		}
		dst = appendVarint(dst, uint64(len(prevPath)-common))
		dst = append(dst, e.Path[common:]...)
		return append(dst, 0)
	}
	dst = append(dst, e.Path...)
	dst = append(dst, 0)
	for (len(dst)-start)%8 != 0 {
		dst = append(dst, 0)
	}
	return dst
}

// Child is a name directly inside a directory of the index.
type Child struct {
	Name string
	Dir  bool
}

// Children lists the names directly inside directory dir ("" for the top,
// no trailing slash) as the index holds them, pending changes included:
// each name once, in index order, and whether it is a directory (a path
// below it, or a sparse directory entry). An entry added with git add -N
// holds nothing yet and is left out.
func (idx *File) Children(dir string) []Child {
	prefix := ""
	if dir != "" {
		prefix = dir + "/"
	}
	seen := map[string]bool{}
	var out []Child
	add := func(rest string) {
		name, _, below := strings.Cut(rest, "/")
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, Child{Name: name, Dir: below})
	}
	for i := idx.search(prefix); i < idx.count; i++ {
		p := idx.path(i)
		if !bytes.HasPrefix(p, []byte(prefix)) {
			break
		}
		path := string(p)
		if _, changed := idx.changes[path]; changed {
			continue
		}
		if e := idx.entry(i); e.ExtFlags&ExtFlagIntentToAdd != 0 {
			continue
		}
		add(path[len(prefix):])
	}
	for path, e := range idx.changes {
		if e != nil && strings.HasPrefix(path, prefix) {
			add(path[len(prefix):])
		}
	}
	return out
}
