package gitx

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/klauspost/compress/zlib"

	"lore/internal/fsx"
)

// objectDB reads objects the way C git does: a loose object from its file,
// a packed one by binary search in the mapped .idx and a read of its entry
// in the .pack, with deltas applied by go-git's packfile.PatchDelta. The
// index of a pack is never decoded whole, so reading the few objects lore
// needs costs the same in a repository of a thousand objects or a million.
type objectDB struct {
	dirs        []string // the objects directory, then its alternates
	packs       []*packFile
	packsLoaded bool
}

func newObjectDB(objectsDir string) *objectDB {
	db := &objectDB{dirs: []string{objectsDir}}
	db.dirs = append(db.dirs, readAlternates(objectsDir, 0)...)
	return db
}

// readAlternates lists the object directories named in
// objects/info/alternates, recursively.
func readAlternates(objectsDir string, depth int) []string {
	data, err := os.ReadFile(filepath.Join(objectsDir, "info", "alternates"))
	if err != nil || depth > 5 {
		return nil
	}
	var dirs []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(objectsDir, line)
		}
		dirs = append(dirs, line)
		dirs = append(dirs, readAlternates(line, depth+1)...)
	}
	return dirs
}

// read returns the type and content of object h.
func (db *objectDB) read(h Hash) (plumbing.ObjectType, []byte, error) {
	hex := h.String()
	for _, dir := range db.dirs {
		typ, data, err := readLooseObject(filepath.Join(dir, hex[:2], hex[2:]))
		if err == nil {
			return typ, data, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return 0, nil, fmt.Errorf("read object %s: %w", hex, err)
		}
	}
	// Packs, rescanned once if the object is not found: a concurrent
	// repack may have replaced them.
	for attempt := 0; attempt < 2; attempt++ {
		if !db.packsLoaded || attempt == 1 {
			db.loadPacks()
		}
		for _, p := range db.packs {
			if off, ok := p.find(h); ok {
				typ, data, err := p.readAt(off, db, 0)
				if err != nil {
					return 0, nil, fmt.Errorf("read object %s from %s: %w", hex, filepath.Base(p.path), err)
				}
				return typ, data, nil
			}
		}
	}
	return 0, nil, fmt.Errorf("%w: %s", ErrObjectNotFound, hex)
}

// close releases the packs opened: their mapped indexes and their files.
func (db *objectDB) close() {
	for _, p := range db.packs {
		p.close()
	}
	db.packs, db.packsLoaded = nil, false
}

func (db *objectDB) loadPacks() {
	db.close()
	for _, dir := range db.dirs {
		idxs, _ := filepath.Glob(filepath.Join(dir, "pack", "pack-*.idx"))
		for _, idx := range idxs {
			if p, err := openPack(idx); err == nil {
				db.packs = append(db.packs, p)
			}
		}
	}
	db.packsLoaded = true
}

// readLooseObject inflates a loose object file.
func readLooseObject(path string) (plumbing.ObjectType, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	zr, err := zlib.NewReader(bufio.NewReader(f))
	if err != nil {
		return 0, nil, err
	}
	defer zr.Close()
	br := bufio.NewReader(zr)
	header, err := br.ReadString(0)
	if err != nil {
		return 0, nil, fmt.Errorf("bad loose object header: %w", err)
	}
	typName, sizeText, ok := strings.Cut(strings.TrimSuffix(header, "\x00"), " ")
	size, serr := strconv.ParseInt(sizeText, 10, 64)
	typ, terr := plumbing.ParseObjectType(typName)
	if !ok || serr != nil || terr != nil || size < 0 {
		return 0, nil, fmt.Errorf("bad loose object header %q", header)
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(br, data); err != nil {
		return 0, nil, fmt.Errorf("truncated loose object: %w", err)
	}
	return typ, data, nil
}

// packFile is one pack: its index mapped for lookups, its data read at
// offsets.
type packFile struct {
	path    string // the .pack
	idx     []byte
	release func()
	data    *os.File
	count   int
}

const packIdxHeader = "\xfftOc\x00\x00\x00\x02"

func openPack(idxPath string) (*packFile, error) {
	f, err := os.Open(idxPath)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	idx, release, err := fsx.Map(f)
	if err != nil {
		return nil, err
	}
	// Version 2: header, 256 fan-out counts, then names, CRCs, offsets.
	if len(idx) < 8+256*4 || string(idx[:8]) != packIdxHeader {
		release()
		return nil, fmt.Errorf("%s: not a version 2 pack index", idxPath)
	}
	count := int(binary.BigEndian.Uint32(idx[8+255*4:]))
	if len(idx) < 8+256*4+count*(20+4+4)+40 {
		release()
		return nil, fmt.Errorf("%s: truncated", idxPath)
	}
	packPath := strings.TrimSuffix(idxPath, ".idx") + ".pack"
	data, err := os.Open(packPath)
	if err != nil {
		release()
		return nil, err
	}
	return &packFile{path: packPath, idx: idx, release: release, data: data, count: count}, nil
}

func (p *packFile) close() {
	p.data.Close()
	p.release()
}

// find returns the offset of h in the pack, by binary search within the
// fan-out bucket of its first byte.
func (p *packFile) find(h Hash) (int64, bool) {
	fanout := func(b int) int {
		if b < 0 {
			return 0
		}
		return int(binary.BigEndian.Uint32(p.idx[8+b*4:]))
	}
	lo, hi := fanout(int(h[0])-1), fanout(int(h[0]))
	names := p.idx[8+256*4:]
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := bytes.Compare(names[mid*20:mid*20+20], h[:]); {
		case c == 0:
			return p.offset(mid), true
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

func (p *packFile) offset(i int) int64 {
	offsets := p.idx[8+256*4+p.count*(20+4):]
	off := binary.BigEndian.Uint32(offsets[i*4:])
	if off&0x80000000 == 0 {
		return int64(off)
	}
	large := p.idx[8+256*4+p.count*(20+4+4):]
	return int64(binary.BigEndian.Uint64(large[int(off&0x7fffffff)*8:]))
}

// readAt reads the object whose entry starts at off, resolving deltas;
// depth counts the deltas followed so far.
func (p *packFile) readAt(off int64, db *objectDB, depth int) (plumbing.ObjectType, []byte, error) {
	if depth > 10000 {
		return 0, nil, errors.New("delta chain too long")
	}
	{
		r := bufio.NewReader(io.NewSectionReader(p.data, off, 1<<62))
		c, err := r.ReadByte()
		if err != nil {
			return 0, nil, err
		}
		typ := plumbing.ObjectType((c >> 4) & 7)
		size := int64(c & 15)
		for shift := 4; c&0x80 != 0; shift += 7 {
			if c, err = r.ReadByte(); err != nil {
				return 0, nil, err
			}
			size |= int64(c&0x7f) << shift
		}
		var base func() (plumbing.ObjectType, []byte, error)
		switch typ {
		case plumbing.CommitObject, plumbing.TreeObject, plumbing.BlobObject, plumbing.TagObject:
			data, err := inflate(r, size)
			return typ, data, err
		case plumbing.OFSDeltaObject:
			c, err := r.ReadByte()
			if err != nil {
				return 0, nil, err
			}
			rel := int64(c & 0x7f)
			for c&0x80 != 0 {
				if c, err = r.ReadByte(); err != nil {
					return 0, nil, err
				}
				rel = ((rel + 1) << 7) | int64(c&0x7f)
			}
			baseOff := off - rel
			base = func() (plumbing.ObjectType, []byte, error) { return p.readAt(baseOff, db, depth+1) }
		case plumbing.REFDeltaObject:
			var bh Hash
			if _, err := io.ReadFull(r, bh[:]); err != nil {
				return 0, nil, err
			}
			base = func() (plumbing.ObjectType, []byte, error) { return db.read(bh) }
		default:
			return 0, nil, fmt.Errorf("bad entry type %d at offset %d", typ, off)
		}
		delta, err := inflate(r, size)
		if err != nil {
			return 0, nil, err
		}
		baseType, baseData, err := base()
		if err != nil {
			return 0, nil, err
		}
		data, err := packfile.PatchDelta(baseData, delta)
		if err != nil {
			return 0, nil, err
		}
		return baseType, data, nil
	}
}

func inflate(r io.Reader, size int64) ([]byte, error) {
	zr, err := zlib.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, err
	}
	return data, nil
}
