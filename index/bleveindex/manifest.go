package bleveindex

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
)

// fileStat is what freshness compares of a file or directory. The zero
// value means "unknown": the file is looked at again next time.
type fileStat struct {
	mtime, ctime int64 // nanoseconds
	ino          uint64
	size         int64
	dir          bool
}

func (a fileStat) same(b fileStat) bool {
	return a.mtime != 0 && a.mtime == b.mtime && a.ctime == b.ctime && a.ino == b.ino && a.size == b.size
}

// fileRecord is an indexed file: its stat when it was read and the hash of
// the bytes that were indexed.
type fileRecord struct {
	stat fileStat
	hash uint64
}

// manifest is what the index holds, as of when it was last brought up to
// date: the watched paths (every directory of the store, memories.md and
// every SKILL.md — what is checked before every search) with their stats,
// every other entry file with its stat and content hash, and for
// memories.md the hash of each memory (so that one changed memory
// reindexes one document).
//
// On disk it is one file, replaced atomically: a header, the watched
// paths, then the files. The watched part comes first and is read on its
// own, so the check before every search reads a few kilobytes however large
// the store is; the file records are read only when a directory changed or
// every file is checked.
type manifest struct {
	watch    map[string]fileRecord
	files    map[string]fileRecord
	memories map[string]uint64 // memory document ID → hash
	// filesLoaded is false while only the directory part has been read.
	filesLoaded bool
	// fileCount is the number of file records, known before they are read.
	fileCount int
}

func newManifest() *manifest {
	return &manifest{watch: map[string]fileRecord{}, files: map[string]fileRecord{}, memories: map[string]uint64{}, filesLoaded: true}
}

const manifestMagic = "LOREMAN1"

// header: magic, format version, file count, length and CRC-32 of the
// directory part, length and CRC-32 of the file part.
const manifestHeaderLen = 8 + 4*6

var errBadManifest = errors.New("manifest is damaged")

func (m *manifest) encode() []byte {
	// Records are written in map order: the decoder fills maps, and at
	// 100k files sorting cost more than everything else here.
	dirs := make([]byte, 0, 64*len(m.watch))
	for p, r := range m.watch {
		dirs = appendString(dirs, p)
		dirs = appendStat(dirs, r.stat)
		dirs = binary.LittleEndian.AppendUint64(dirs, r.hash)
	}
	files := make([]byte, 0, 80*len(m.files)+40*len(m.memories)+8)
	for p, r := range m.files {
		files = appendString(files, p)
		files = appendStat(files, r.stat)
		files = binary.LittleEndian.AppendUint64(files, r.hash)
	}
	files = binary.AppendUvarint(files, uint64(len(m.memories)))
	for id, h := range m.memories {
		files = appendString(files, id)
		files = binary.LittleEndian.AppendUint64(files, h)
	}
	out := make([]byte, 0, manifestHeaderLen+len(dirs)+len(files))
	out = append(out, manifestMagic...)
	for _, v := range []uint32{FormatVersion, uint32(len(m.files)), uint32(len(dirs)), crc32.ChecksumIEEE(dirs), uint32(len(files)), crc32.ChecksumIEEE(files)} {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	out = append(out, dirs...)
	return append(out, files...)
}

// readManifest reads the watched part of the manifest at path; loadFiles
// reads the rest when it is needed.
func readManifest(path string) (*manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, manifestHeaderLen)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:8]) != manifestMagic {
		return nil, errBadManifest
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(head[8+4*i:]) }
	if word(0) != FormatVersion {
		return nil, errBadManifest
	}
	dirs := make([]byte, word(2))
	if _, err := io.ReadFull(f, dirs); err != nil || crc32.ChecksumIEEE(dirs) != word(3) {
		return nil, errBadManifest
	}
	m := &manifest{watch: map[string]fileRecord{}, fileCount: int(word(1))}
	d := decoder{buf: dirs}
	for !d.done() {
		p := d.string()
		st := d.stat()
		m.watch[p] = fileRecord{stat: st, hash: d.uint64()}
	}
	if d.err {
		return nil, errBadManifest
	}
	return m, nil
}

// loadFiles reads the file part of the manifest at path into m.
func (m *manifest) loadFiles(path string) error {
	if m.filesLoaded {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(data) < manifestHeaderLen {
		return errBadManifest
	}
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(data[8+4*i:]) }
	start := manifestHeaderLen + int(word(2))
	if start+int(word(4)) != len(data) {
		return errBadManifest
	}
	files := data[start:]
	if crc32.ChecksumIEEE(files) != word(5) {
		return errBadManifest
	}
	m.files = make(map[string]fileRecord, word(1))
	d := decoder{buf: files}
	for i := 0; i < int(word(1)) && !d.err; i++ {
		p := d.string()
		st := d.stat()
		m.files[p] = fileRecord{stat: st, hash: d.uint64()}
	}
	n := d.uvarint()
	m.memories = make(map[string]uint64, n)
	for i := uint64(0); i < n && !d.err; i++ {
		id := d.string()
		m.memories[id] = d.uint64()
	}
	if d.err || !d.done() {
		return errBadManifest
	}
	m.filesLoaded = true
	return nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStat(b []byte, st fileStat) []byte {
	b = binary.AppendVarint(b, st.mtime)
	b = binary.AppendVarint(b, st.ctime)
	b = binary.AppendUvarint(b, st.ino)
	return binary.AppendVarint(b, st.size)
}

// decoder reads what encode wrote; a short or malformed buffer sets err.
type decoder struct {
	buf []byte
	err bool
}

func (d *decoder) done() bool { return len(d.buf) == 0 || d.err }

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

func (d *decoder) stat() fileStat {
	return fileStat{mtime: d.varint(), ctime: d.varint(), ino: d.uvarint(), size: d.varint()}
}
