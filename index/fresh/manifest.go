package fresh

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"sort"

	"lore/index"
	"lore/internal/fsx"
)

// fileRecord is an indexed file: its stat when it was read and the hash of
// the bytes that were indexed.
type fileRecord struct {
	stat fsx.Stamp // the zero Stamp: unknown, looked at again next time
	hash uint64
}

// Manifest is what the index holds, as of when it was last brought up to
// date: the watched paths (every directory of the store, memories.md and
// every SKILL.md — what is checked before every search) with their stats;
// for each directory a segment with the stat and content hash of each
// entry file directly in it; and for memories.md the hash of each memory
// (so that one changed memory reindexes one document).
//
// On disk it is one file, replaced atomically: a header, the watched paths
// (each directory with where its segment is), then the segments and the
// memory hashes. The check before every search reads the header and the
// watched part — a few kilobytes however large the store is; a segment is
// read only when its directory changed (or every file is checked), and
// the next Manifest copies the segments nobody read byte for byte. So a
// change in one directory costs in proportion to that directory.
type Manifest struct {
	// f is the file the Manifest was read from and data its bytes
	// (mapped), kept so that segments can be read and copied later even if
	// another process replaces the file meanwhile; nil for a new manifest.
	f     *os.File
	data  []byte
	unmap func()

	watch map[string]fileRecord
	segs  map[string]*segment // directory → the entry files in it
	// memories maps a memory's document ID to its hash; nil until loaded.
	memories map[string]uint64
	memAt    span
	// git is the stat of the git index when its entries were last looked
	// at, and (as hash) the time of that look; zero when never.
	git fileRecord
	// skipped holds the files lore does not read (a link, a FIFO, a file
	// over its cap) where an entry would be, with the warning that says
	// why: said after every check, as a scan would say it every time.
	skipped map[string]string
}

// span locates bytes in a Manifest file.
type span struct {
	off, n int64
	crc    uint32
}

func NewManifest() *Manifest {
	return &Manifest{watch: map[string]fileRecord{}, segs: map[string]*segment{}, memories: map[string]uint64{}, skipped: map[string]string{}, unmap: func() {}}
}

const manifestMagic = "LOREMAN2"

// header: magic, format version, offset, length and CRC-32 of the watched
// part (which is written last, after the segments).
const manifestHeaderLen = 8 + 4 + 8 + 4 + 4

var ErrBadManifest = errors.New("the index manifest is damaged")

// Kinds of watched record.
const (
	watchedFile = 'f'
	watchedDir  = 'd'
	watchedGit  = 'g' // the git index (with an empty path)
	skippedFile = 's' // a file not read, its stat zero, then its warning
)

// EntryFiles is how many entry files the manifest records: those of the
// segments and the watched ones (memories.md, skills).
func (m *Manifest) EntryFiles() int {
	n := m.FileCount()
	for p := range m.watch {
		if hot(p) {
			n++
		}
	}
	return n
}

// FileCount is how many entry files the segments hold.
func (m *Manifest) FileCount() int {
	n := 0
	for _, s := range m.segs {
		n += s.len()
	}
	return n
}

// Dirs is every directory of the store the manifest records (relative to
// the store root, slash-separated), sorted.
func (m *Manifest) Dirs() []string {
	dirs := make([]string, 0, len(m.segs))
	for d := range m.segs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	return dirs
}

// ReadManifest maps the Manifest at path and reads its header and
// watched part; segments and memory hashes are read when needed. close
// releases it.
func ReadManifest(path string) (*Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	data, unmap, err := fsx.Map(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	m := &Manifest{f: f, data: data, unmap: unmap, watch: map[string]fileRecord{}, segs: map[string]*segment{}, skipped: map[string]string{}}
	if err := m.decodeWatched(); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

func (m *Manifest) decodeWatched() error {
	head := m.data
	if len(head) < manifestHeaderLen || string(head[:8]) != manifestMagic {
		return ErrBadManifest
	}
	le := binary.LittleEndian
	if le.Uint32(head[8:]) != index.FormatVersion {
		return ErrBadManifest
	}
	at := span{off: int64(le.Uint64(head[12:])), n: int64(le.Uint32(head[20:])), crc: le.Uint32(head[24:])}
	watched, err := m.read(at)
	if err != nil {
		return err
	}
	d := decoder{buf: watched}
	m.memAt = d.span()
	for !d.done() {
		kind := d.byte()
		p := d.string()
		st := d.stat()
		rec := fileRecord{stat: st, hash: d.uint64()}
		if kind == watchedGit {
			m.git = rec
			continue
		}
		if kind == skippedFile {
			m.skipped[p] = d.string()
			continue
		}
		m.watch[p] = rec
		if kind == watchedDir {
			at := d.span()
			m.segs[p] = &segment{at: at, count: int(d.uvarint())}
		} else if kind != watchedFile {
			return ErrBadManifest
		}
	}
	if d.err {
		return ErrBadManifest
	}
	return nil
}

// Verify reads every part of the manifest and checks it against its CRC,
// where a check reads only the parts it needs: what `lore index status`
// does.
func (m *Manifest) Verify() error {
	for _, s := range m.segs {
		if err := s.load(m.data); err != nil {
			return err
		}
	}
	return m.loadMemories()
}

// close releases the manifest's file.
func (m *Manifest) Close() {
	if m.f != nil {
		m.unmap()
		m.f.Close()
		m.f, m.data = nil, nil
	}
}

// read returns the bytes at s, checked against their CRC.
func (m *Manifest) read(s span) ([]byte, error) {
	if s.n == 0 {
		return nil, nil
	}
	if s.off < 0 || s.n < 0 || s.off+s.n > int64(len(m.data)) {
		return nil, ErrBadManifest
	}
	b := m.data[s.off : s.off+s.n]
	if crc32.ChecksumIEEE(b) != s.crc {
		return nil, ErrBadManifest
	}
	return b, nil
}

// segment returns directory d's segment, loaded, creating an empty one
// for a directory not seen before.
func (m *Manifest) segment(d string) (*segment, error) {
	s := m.segs[d]
	if s == nil {
		s = &segment{loaded: true}
		m.segs[d] = s
	}
	return s, s.load(m.data)
}

// loadMemories reads the memory hashes.
func (m *Manifest) loadMemories() error {
	if m.memories != nil {
		return nil
	}
	buf, err := m.read(m.memAt)
	if err != nil {
		return err
	}
	if len(buf) == 0 {
		m.memories = map[string]uint64{}
		return nil
	}
	dec := decoder{buf: buf}
	n := dec.uvarint()
	m.memories = make(map[string]uint64, min(n, 1<<20))
	for i := uint64(0); i < n && !dec.err; i++ {
		id := dec.string()
		m.memories[id] = dec.uint64()
	}
	if dec.err || !dec.done() {
		return ErrBadManifest
	}
	return nil
}

// WriteManifest replaces the Manifest at path with m. Segments that were
// never loaded are copied from the file they were read from by the kernel
// (copy_file_range), unread. The file is not synced: the index is a cache,
// and a Manifest lost in a crash (an empty or damaged file) only means a
// rebuild.
func WriteManifest(path string, m *Manifest) error {
	aside := WriteAside(path, m)
	if aside.Err != nil {
		return aside.Err
	}
	return aside.Commit()
}

// Aside is a manifest written beside the one it is to replace, until
// Commit puts it in place or Discard drops it.
type Aside struct {
	next *fsx.Pending
	Err  error // why it could not be written
}

// WriteAside writes m next to the manifest at path, to be put in place
// later.
func WriteAside(path string, m *Manifest) Aside {
	next, err := fsx.Create(path)
	if err != nil {
		return Aside{Err: err}
	}
	err = m.writeTo(next.File())
	if cerr := next.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		next.Abort()
		return Aside{Err: err}
	}
	return Aside{next: next}
}

// Commit puts the manifest in place. It is derived state, checked when
// read: it is not fsynced.
func (a Aside) Commit() error {
	if a.Err != nil {
		return a.Err
	}
	return a.next.Commit(fsx.Unsynced)
}

// Discard drops it.
func (a Aside) Discard() {
	if a.next != nil {
		a.next.Abort()
	}
}

func (m *Manifest) writeTo(f *os.File) error {
	w := &spanWriter{f: f, w: bufio.NewWriterSize(f, 64<<10)}
	w.write(make([]byte, manifestHeaderLen)) // written last

	// Unread spans first, in their order in the old file, so that
	// neighbours are copied together.
	type unread struct {
		at  span
		put func(span)
	}
	var copies []unread
	memAt := m.memAt
	if m.memories == nil {
		copies = append(copies, unread{m.memAt, func(s span) { memAt = s }})
	}
	segAt := make(map[string]span, len(m.segs))
	for d, s := range m.segs {
		if s.unchanged() {
			copies = append(copies, unread{s.at, func(s span) { segAt[d] = s }})
		}
	}
	sort.Slice(copies, func(i, j int) bool { return copies[i].at.off < copies[j].at.off })
	for i := 0; i < len(copies); {
		start, end := copies[i].at.off, copies[i].at.off+copies[i].at.n
		j := i + 1
		for j < len(copies) && copies[j].at.off == end {
			end += copies[j].at.n
			j++
		}
		base, err := w.copyFrom(m.f, start, end-start)
		if err != nil {
			return err
		}
		for ; i < j; i++ {
			at := copies[i].at
			copies[i].put(span{off: base + at.off - start, n: at.n, crc: at.crc})
		}
	}

	var rec []byte
	if m.memories != nil {
		w.begin()
		w.write(binary.AppendUvarint(rec[:0], uint64(len(m.memories))))
		for id, h := range m.memories {
			rec = appendString(rec[:0], id)
			w.write(binary.LittleEndian.AppendUint64(rec, h))
		}
		memAt = w.end()
	}
	for d, s := range m.segs {
		if !s.unchanged() {
			w.begin()
			s.encode(w)
			segAt[d] = w.end()
		}
	}

	watched := appendSpan(make([]byte, 0, 64*len(m.watch)), memAt)
	if m.git != (fileRecord{}) {
		watched = append(watched, watchedGit)
		watched = appendString(watched, "")
		watched = appendStat(watched, m.git.stat)
		watched = binary.LittleEndian.AppendUint64(watched, m.git.hash)
	}
	for p, why := range m.skipped {
		watched = append(watched, skippedFile)
		watched = appendString(watched, p)
		watched = appendStat(watched, fsx.Stamp{})
		watched = binary.LittleEndian.AppendUint64(watched, 0)
		watched = appendString(watched, why)
	}
	for p, r := range m.watch {
		kind := byte(watchedFile)
		if m.segs[p] != nil {
			kind = watchedDir
		}
		watched = append(watched, kind)
		watched = appendString(watched, p)
		watched = appendStat(watched, r.stat)
		watched = binary.LittleEndian.AppendUint64(watched, r.hash)
		if s := m.segs[p]; s != nil {
			watched = appendSpan(watched, segAt[p])
			watched = binary.AppendUvarint(watched, uint64(s.len()))
		}
	}
	w.begin()
	w.write(watched)
	at := w.end()
	if err := w.flush(); err != nil {
		return err
	}
	head := make([]byte, 0, manifestHeaderLen)
	head = append(head, manifestMagic...)
	head = binary.LittleEndian.AppendUint32(head, index.FormatVersion)
	head = binary.LittleEndian.AppendUint64(head, uint64(at.off))
	head = binary.LittleEndian.AppendUint32(head, uint32(at.n))
	head = binary.LittleEndian.AppendUint32(head, at.crc)
	_, err := f.WriteAt(head, 0)
	return err
}

// spanWriter writes a Manifest file front to back, keeping the offset and
// CRC of the span being written.
type spanWriter struct {
	f     *os.File
	w     *bufio.Writer
	pos   int64
	start int64
	crc   uint32
	err   error
}

func (w *spanWriter) write(b []byte) {
	if w.err != nil {
		return
	}
	w.crc = crc32.Update(w.crc, crc32.IEEETable, b)
	n, err := w.w.Write(b)
	w.pos += int64(n)
	w.err = err
}

func (w *spanWriter) begin() { w.start, w.crc = w.pos, 0 }

func (w *spanWriter) end() span { return span{off: w.start, n: w.pos - w.start, crc: w.crc} }

func (w *spanWriter) flush() error {
	if w.err == nil {
		w.err = w.w.Flush()
	}
	return w.err
}

// copyFrom appends n bytes of src at off, returning where they start.
func (w *spanWriter) copyFrom(src *os.File, off, n int64) (int64, error) {
	if err := w.flush(); err != nil {
		return 0, err
	}
	if src == nil {
		return 0, ErrBadManifest
	}
	start := w.pos
	if _, err := src.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	// io.Copy from a LimitedReader of an *os.File to an *os.File is a
	// copy_file_range on Linux.
	copied, err := io.Copy(w.f, io.LimitReader(src, n))
	w.pos += copied
	if err == nil && copied != n {
		err = ErrBadManifest
	}
	w.err = err
	return start, err
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStat(b []byte, st fsx.Stamp) []byte {
	b = binary.AppendVarint(b, st.Mtime)
	b = binary.AppendVarint(b, st.Ctime)
	b = binary.AppendUvarint(b, st.Ino)
	return binary.AppendVarint(b, st.Size)
}

func appendSpan(b []byte, s span) []byte {
	b = binary.AppendUvarint(b, uint64(s.off))
	b = binary.AppendUvarint(b, uint64(s.n))
	return binary.LittleEndian.AppendUint32(b, s.crc)
}

// decoder reads what encode wrote; a short or malformed buffer sets err.
type decoder struct {
	buf []byte
	err bool
}

func (d *decoder) done() bool { return len(d.buf) == 0 || d.err }

func (d *decoder) byte() byte {
	if len(d.buf) == 0 {
		d.err = true
		return 0
	}
	b := d.buf[0]
	d.buf = d.buf[1:]
	return b
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.buf)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.buf)
	if n <= 0 {
		d.err = true
		return 0
	}
	d.buf = d.buf[n:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if d.err || n > uint64(len(d.buf)) {
		d.err = true
		return ""
	}
	s := string(d.buf[:n])
	d.buf = d.buf[n:]
	return s
}

func (d *decoder) uint64() uint64 {
	if len(d.buf) < 8 {
		d.err = true
		return 0
	}
	v := binary.LittleEndian.Uint64(d.buf)
	d.buf = d.buf[8:]
	return v
}

func (d *decoder) uint32() uint32 {
	if len(d.buf) < 4 {
		d.err = true
		return 0
	}
	v := binary.LittleEndian.Uint32(d.buf)
	d.buf = d.buf[4:]
	return v
}

func (d *decoder) span() span {
	return span{off: int64(d.uvarint()), n: int64(d.uvarint()), crc: d.uint32()}
}

func (d *decoder) stat() fsx.Stamp {
	return fsx.Stamp{Mtime: d.varint(), Ctime: d.varint(), Ino: d.uvarint(), Size: d.varint()}
}
