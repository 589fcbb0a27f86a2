package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"lore/internal/fsx"
)

// ErrUnsupported is returned for an index lore cannot rewrite without
// losing information (an unknown required extension or version). Callers
// fall back to writing files without staging them.
var ErrUnsupported = errors.New("index format not supported")

const (
	indexSignature = "DIRC"

	FlagAssumeValid = 0x8000
	flagExtended    = 0x4000
	flagStageMask   = 0x3000
	flagNameMask    = 0x0fff

	extFlagSkipWorktree = 0x4000
	ExtFlagIntentToAdd  = 0x2000

	entryFixedSize = 62 // stat data, mode, ids, size, hash and flags
)

// Entry is one entry of the index, with every field kept so that an
// entry lore does not touch is written back exactly as it was read.
type Entry struct {
	CtimeSec, CtimeNsec uint32
	MtimeSec, MtimeNsec uint32
	Dev, Ino            uint32
	Mode                uint32
	UID, GID            uint32
	Size                uint32
	Hash                plumbing.Hash
	Flags               uint16 // assume-valid, extended, stage; the name length is recomputed
	ExtFlags            uint16 // skip-worktree, intent-to-add (version 3 and later)
	Path                string
}

// Stage is the entry's merge stage: 0 for a resolved path, 1 to 3 for the
// base, ours and theirs of a conflict.
func (e *Entry) Stage() int { return int(e.Flags&flagStageMask) >> 12 }

// SetStat records the stat of the file the entry describes, as git does,
// so that git sees the file as unchanged without hashing it. Where the
// system does not say (an inode, a change time), git compares against
// what is recorded and re-reads the file when they differ, which costs a
// hash but is never wrong.
func (e *Entry) SetStat(st fsx.Stamp) {
	e.CtimeSec, e.CtimeNsec = uint32(st.Ctime/1e9), uint32(st.Ctime%1e9)
	e.MtimeSec, e.MtimeNsec = uint32(st.Mtime/1e9), uint32(st.Mtime%1e9)
	e.Dev, e.Ino = st.Dev, uint32(st.Ino)
	e.UID, e.GID = st.UID, st.GID
	e.Size = uint32(st.Size)
}

// indexExtension is an extension kept for writing back.
type indexExtension struct {
	sig  string
	data []byte
}

// Index is a whole index file in memory.
type Index struct {
	version    uint32
	Entries    []Entry
	extensions []indexExtension
	// mtime of the file when it was read: entries modified at or after it
	// are "racily clean" (see smudgeRacyEntries).
	mtime time.Time
	// split is set when the index was read from a split index; it is
	// written back as a single, unsplit file.
	split bool
}

// Read reads the index at path. A missing file is an empty index.
func Read(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &Index{version: 2}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	idx, link, err := decodeIndex(data, path)
	if err != nil {
		return nil, err
	}
	idx.mtime = info.ModTime()
	if link != nil {
		if err := idx.mergeSharedIndex(filepath.Dir(path), link); err != nil {
			return nil, err
		}
	}
	return idx, nil
}

// decodeIndex parses an index file. When the file is a split index it also
// returns the content of its "link" extension.
func decodeIndex(data []byte, name string) (*Index, []byte, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s: corrupt index: %s", name, fmt.Sprintf(format, args...))
	}
	if len(data) < 12+sha1.Size {
		return nil, nil, bad("too short")
	}
	body, sum := data[:len(data)-sha1.Size], data[len(data)-sha1.Size:]
	if !bytes.Equal(sum, make([]byte, sha1.Size)) { // index.skipHash writes zeros
		if got := sha1.Sum(body); !bytes.Equal(got[:], sum) {
			return nil, nil, bad("checksum mismatch")
		}
	}
	if string(body[:4]) != indexSignature {
		return nil, nil, bad("bad signature")
	}
	idx := &Index{version: binary.BigEndian.Uint32(body[4:8])}
	if idx.version < 2 || idx.version > 4 {
		return nil, nil, fmt.Errorf("%w: version %d", ErrUnsupported, idx.version)
	}
	count := binary.BigEndian.Uint32(body[8:12])
	// The count comes from the file: allocate no more than the file can hold.
	idx.Entries = make([]Entry, 0, min(int(count), len(body)/entryFixedSize))
	pos := 12
	prevPath := ""
	for i := uint32(0); i < count; i++ {
		start := pos
		if len(body)-pos < entryFixedSize {
			return nil, nil, bad("entry %d truncated", i)
		}
		e := decodeEntryFields(body[pos:])
		pos += entryFixedSize
		if e.Flags&flagExtended != 0 {
			if idx.version < 3 {
				return nil, nil, bad("entry %d has extended flags in a version 2 index", i)
			}
			if len(body)-pos < 2 {
				return nil, nil, bad("entry %d truncated", i)
			}
			e.ExtFlags = binary.BigEndian.Uint16(body[pos:])
			pos += 2
		}
		if idx.version == 4 {
			strip, n := readVarint(body[pos:])
			if n == 0 || strip > uint64(len(prevPath)) {
				return nil, nil, bad("entry %d has a bad path prefix", i)
			}
			pos += n
			nul := bytes.IndexByte(body[pos:], 0)
			if nul < 0 {
				return nil, nil, bad("entry %d path not terminated", i)
			}
			e.Path = prevPath[:len(prevPath)-int(strip)] + string(body[pos:pos+nul])
			pos += nul + 1
		} else {
			nul := bytes.IndexByte(body[pos:], 0)
			if nul < 0 {
				return nil, nil, bad("entry %d path not terminated", i)
			}
			e.Path = string(body[pos : pos+nul])
			pos += nul + 1
			// Entries are padded with NULs to a multiple of 8 bytes.
			for (pos-start)%8 != 0 {
				pos++
			}
			if pos > len(body) {
				return nil, nil, bad("entry %d truncated", i)
			}
		}
		prevPath = e.Path
		idx.Entries = append(idx.Entries, e)
	}
	var link []byte
	for pos < len(body) {
		if len(body)-pos < 8 {
			return nil, nil, bad("extension header truncated")
		}
		sig := string(body[pos : pos+4])
		size := int(binary.BigEndian.Uint32(body[pos+4:]))
		pos += 8
		if size < 0 || len(body)-pos < size {
			return nil, nil, bad("extension %q truncated", sig)
		}
		ext := body[pos : pos+size]
		pos += size
		switch sig {
		case "TREE", "REUC", "sdir":
			// Kept: the cache tree is invalidated along changed paths,
			// resolve-undo does not depend on entry positions, and sdir
			// only marks a sparse index.
			idx.extensions = append(idx.extensions, indexExtension{sig: sig, data: ext})
		case "link":
			link = ext
			idx.split = true
		default:
			if sig[0] < 'A' || sig[0] > 'Z' {
				return nil, nil, fmt.Errorf("%w: required extension %q", ErrUnsupported, sig)
			}
			// Optional caches (UNTR, FSMN, EOIE, IEOT, ...) describe
			// entry positions or the worktree as it was; git rebuilds
			// them when they are missing, and drops unknown ones too.
		}
	}
	return idx, link, nil
}

// mergeSharedIndex turns a split index into a whole one: the shared index
// "sharedindex.<hash>" provides the base entries, the link extension's
// bitmaps say which of them are deleted or replaced by this file's first
// entries, and this file's remaining entries are added.
func (idx *Index) mergeSharedIndex(dir string, link []byte) error {
	if len(link) < sha1.Size {
		return fmt.Errorf("corrupt link extension")
	}
	var base plumbing.Hash
	copy(base[:], link[:sha1.Size])
	rest := link[sha1.Size:]
	var deleted, replaced []uint64
	if len(rest) > 0 {
		var n int
		var err error
		if deleted, n, err = decodeEWAH(rest); err != nil {
			return fmt.Errorf("link extension delete bitmap: %w", err)
		}
		if replaced, _, err = decodeEWAH(rest[n:]); err != nil {
			return fmt.Errorf("link extension replace bitmap: %w", err)
		}
	}
	own := idx.Entries
	var sharedEntries []Entry
	if !base.IsZero() {
		sharedPath := filepath.Join(dir, "sharedindex."+base.String())
		data, err := os.ReadFile(sharedPath)
		if err != nil {
			return fmt.Errorf("read shared index: %w", err)
		}
		shared, link2, err := decodeIndex(data, sharedPath)
		if err != nil {
			return err
		}
		if link2 != nil {
			return fmt.Errorf("%s is itself split", sharedPath)
		}
		sharedEntries = shared.Entries
	}
	isDeleted := map[uint64]bool{}
	for _, p := range deleted {
		isDeleted[p] = true
	}
	next := 0
	for _, p := range replaced {
		if p >= uint64(len(sharedEntries)) || next >= len(own) {
			return fmt.Errorf("corrupt link extension: replacement %d out of range", p)
		}
		repl := own[next]
		repl.Path = sharedEntries[p].Path
		sharedEntries[p] = repl
		next++
	}
	merged := make([]Entry, 0, len(sharedEntries)+len(own)-next)
	for i, e := range sharedEntries {
		if !isDeleted[uint64(i)] {
			merged = append(merged, e)
		}
	}
	for _, e := range own[next:] {
		merged = insertIndexEntry(merged, e)
	}
	idx.Entries = merged
	return nil
}

// decodeEWAH decodes a serialized EWAH bitmap (git's ewah/ewah_io.c) into
// the positions of its set bits. It returns the number of bytes consumed.
func decodeEWAH(data []byte) ([]uint64, int, error) {
	if len(data) < 8 {
		return nil, 0, errors.New("truncated")
	}
	words := int(binary.BigEndian.Uint32(data[4:]))
	end := 8 + 8*words + 4
	if words < 0 || len(data) < end {
		return nil, 0, errors.New("truncated")
	}
	buf := make([]uint64, words)
	for i := range buf {
		buf[i] = binary.BigEndian.Uint64(data[8+8*i:])
	}
	var bits []uint64
	var pos uint64
	for p := 0; p < len(buf); {
		rlw := buf[p]
		running := (rlw >> 1) & 0xffffffff
		literals := int(rlw >> 33)
		if rlw&1 != 0 {
			for k := uint64(0); k < running*64; k++ {
				bits = append(bits, pos+k)
			}
		}
		pos += running * 64
		p++
		for k := 0; k < literals && p < len(buf); k++ {
			for c := uint64(0); c < 64; c++ {
				if buf[p]&(1<<c) != 0 {
					bits = append(bits, pos+c)
				}
			}
			pos += 64
			p++
		}
	}
	return bits, end, nil
}

// decodeEntryFields reads the fixed-size part of an entry (stat data,
// mode, hash, flags); b holds at least entryFixedSize bytes.
func decodeEntryFields(b []byte) Entry {
	e := Entry{
		CtimeSec: binary.BigEndian.Uint32(b[0:]), CtimeNsec: binary.BigEndian.Uint32(b[4:]),
		MtimeSec: binary.BigEndian.Uint32(b[8:]), MtimeNsec: binary.BigEndian.Uint32(b[12:]),
		Dev: binary.BigEndian.Uint32(b[16:]), Ino: binary.BigEndian.Uint32(b[20:]),
		Mode: binary.BigEndian.Uint32(b[24:]),
		UID:  binary.BigEndian.Uint32(b[28:]), GID: binary.BigEndian.Uint32(b[32:]),
		Size:  binary.BigEndian.Uint32(b[36:]),
		Flags: binary.BigEndian.Uint16(b[60:]),
	}
	copy(e.Hash[:], b[40:60])
	return e
}

// compareIndexEntry orders entries by path, then stage.
func compareIndexEntry(path string, stage int, e *Entry) int {
	if c := strings.Compare(path, e.Path); c != 0 {
		return c
	}
	return stage - e.Stage()
}

func insertIndexEntry(entries []Entry, e Entry) []Entry {
	i := sort.Search(len(entries), func(i int) bool {
		return compareIndexEntry(e.Path, e.Stage(), &entries[i]) <= 0
	})
	if i < len(entries) && entries[i].Path == e.Path && entries[i].Stage() == e.Stage() {
		entries[i] = e
		return entries
	}
	entries = append(entries, Entry{})
	copy(entries[i+1:], entries[i:])
	entries[i] = e
	return entries
}

// invalidateTreeExtension rewrites a TREE extension with every node on the
// way to path (the root and each parent directory) marked invalid.
func invalidateTreeExtension(data []byte, path string) ([]byte, error) {
	dirs := strings.Split(path, "/")
	dirs = dirs[:len(dirs)-1] // the directories that contain path
	var out bytes.Buffer
	pos := 0
	// walk reads one node and its subtrees; onPath says whether the node
	// is a directory on the way to path, depth how many components it has.
	var walk func(onPath bool, depth int) error
	walk = func(onPath bool, depth int) error {
		nul := bytes.IndexByte(data[pos:], 0)
		if nul < 0 {
			return errors.New("truncated")
		}
		name := data[pos : pos+nul]
		pos += nul + 1
		nl := bytes.IndexByte(data[pos:], '\n')
		if nl < 0 {
			return errors.New("truncated")
		}
		countStr, subStr, ok := strings.Cut(string(data[pos:pos+nl]), " ")
		if !ok {
			return errors.New("malformed")
		}
		pos += nl + 1
		count, err1 := strconv.Atoi(countStr)
		subtrees, err2 := strconv.Atoi(subStr)
		if err1 != nil || err2 != nil || subtrees < 0 {
			return errors.New("malformed")
		}
		var hash []byte
		if count >= 0 {
			if len(data)-pos < sha1.Size {
				return errors.New("truncated")
			}
			hash = data[pos : pos+sha1.Size]
			pos += sha1.Size
		}
		out.Write(name)
		out.WriteByte(0)
		if onPath {
			fmt.Fprintf(&out, "-1 %d\n", subtrees)
		} else {
			fmt.Fprintf(&out, "%d %d\n", count, subtrees)
			out.Write(hash)
		}
		for s := 0; s < subtrees; s++ {
			childOnPath := false
			if onPath && depth < len(dirs) {
				end := bytes.IndexByte(data[pos:], 0)
				if end < 0 {
					return errors.New("truncated")
				}
				childOnPath = string(data[pos:pos+end]) == dirs[depth]
			}
			if err := walk(childOnPath, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if len(data) > 0 {
		if err := walk(true, 0); err != nil {
			return nil, err
		}
		if pos != len(data) {
			return nil, errors.New("trailing data")
		}
	}
	return out.Bytes(), nil
}

// encode writes the index in its version, without a split and with the
// kept extensions, followed by its checksum.
func (idx *Index) encode() []byte {
	var buf bytes.Buffer
	buf.Grow(len(idx.Entries)*(entryFixedSize+48) + 1024)
	var hdr [12]byte
	copy(hdr[:], indexSignature)
	version := idx.version
	if version == 2 {
		for i := range idx.Entries {
			if idx.Entries[i].ExtFlags != 0 {
				version = 3 // extended flags need version 3
				break
			}
		}
	}
	binary.BigEndian.PutUint32(hdr[4:], version)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(idx.Entries)))
	buf.Write(hdr[:])
	prevPath := ""
	out := buf.Bytes()
	for i := range idx.Entries {
		out = appendIndexEntry(out, &idx.Entries[i], version, prevPath)
		prevPath = idx.Entries[i].Path
	}
	buf = *bytes.NewBuffer(out)
	for _, ext := range idx.extensions {
		var h [8]byte
		copy(h[:], ext.sig)
		binary.BigEndian.PutUint32(h[4:], uint32(len(ext.data)))
		buf.Write(h[:])
		buf.Write(ext.data)
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	return buf.Bytes()
}

// readVarint decodes git's offset encoding (pack-format OFS_DELTA), used
// for the prefix length of version 4 paths.
func readVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	v := uint64(b[0] & 0x7f)
	n := 1
	for b[n-1]&0x80 != 0 {
		if n >= len(b) || n > 9 {
			return 0, 0
		}
		v = ((v + 1) << 7) | uint64(b[n]&0x7f)
		n++
	}
	return v, n
}

func appendVarint(dst []byte, v uint64) []byte {
	var tmp [10]byte
	pos := len(tmp) - 1
	tmp[pos] = byte(v & 0x7f)
	for v >>= 7; v != 0; v >>= 7 {
		v--
		pos--
		tmp[pos] = 0x80 | byte(v&0x7f)
	}
	return append(dst, tmp[pos:]...)
}
