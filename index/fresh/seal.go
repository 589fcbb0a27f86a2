package fresh

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"lore/index"
	"lore/internal/fsx"
)

// A seal is what the files of a generation's scorch index were when lore
// last finished writing them, written once they are closed: each file
// bleve reads (root.bolt and the segments of the snapshot), with its
// stamp, size and CRC-32C; the segments that snapshot holds, with their
// live documents; and how many documents the index holds.
//
// bleve does not check what it reads: a segment that does not open makes
// scorch fall back, silently, on an older snapshot or on none (an empty
// index); a segment that opens but holds other bytes, or an older version
// put back, answers wrongly; a damaged root.bolt makes bolt panic. So a
// generation is believed only as sealed. Before every search its files'
// stamps are compared with the seal's (a few lstat calls, however large
// the index); a file whose stamp changed is read and its CRC compared (a
// copy or a touch is not damage), and `lore index status` and `refresh`
// read every file. Once bleve has opened the generation, the snapshot it
// loaded must be the sealed one: the same segments, each with as many
// documents, and as many documents in all. A writer removes the seal
// before it opens the generation for writing and writes it again after
// closing it, so a crash in between leaves no seal: an index without a
// seal is damaged. A stamp is written only once the file system's clock
// has moved past it (see WriteSeal), so that a change in the same clock
// tick as lore's last write is not taken for lore's.
type Seal struct {
	// Docs is how many documents the index holds.
	Docs uint64
	// Segments are the segments of the snapshot, by file name.
	Segments []SealedSegment
	// Files are the files bleve reads.
	Files []SealedFile
}

// SealedSegment is a segment of the sealed snapshot and its live
// documents.
type SealedSegment struct {
	Name string
	Docs uint64
}

// SealedFile is a file of a generation as lore wrote it.
type SealedFile struct {
	Name string
	Size int64
	// Stamp is its stamp when sealed; the zero Stamp (not settled) has
	// the file read at every check.
	Stamp fsx.Stamp
	CRC   uint32
}

// DamageError means a generation's files are not what lore wrote: its
// answers are not to be believed, and it is rebuilt. Why says what was
// found.
type DamageError struct{ Why string }

func (e *DamageError) Error() string { return "the index is damaged: " + e.Why }

func damaged(format string, args ...any) error {
	return &DamageError{Why: fmt.Sprintf(format, args...)}
}

// Damage says why err means a damaged index: a DamageError, a manifest or
// current file that does not read, or a file of the index that is gone.
func Damage(err error) (why string, ok bool) {
	var de *DamageError
	switch {
	case errors.As(err, &de):
		return de.Why, true
	case errors.Is(err, ErrBadManifest):
		return "its manifest or current file does not read", true
	case errors.Is(err, fs.ErrNotExist):
		return "a file of it is missing", true
	}
	return "", false
}

// Seal is where generation gen's seal is.
func (d Dir) Seal(gen string) string { return filepath.Join(string(d), gen+".seal") }

// castagnoli is CRC-32C, which the processor computes (SSE 4.2, ARMv8).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const sealMagic = "lore-seal"

// ReadSeal reads the seal at path. A missing or unreadable seal is a
// *DamageError.
func ReadSeal(path string) (*Seal, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, damaged("it is not sealed (lore did not finish writing it)")
	}
	if err != nil {
		return nil, err
	}
	at := bytes.LastIndex(data, []byte("\ncrc "))
	if at < 0 || strings.TrimSpace(string(data[at+5:])) != fmt.Sprintf("%08x", crc32.Checksum(data[:at+1], castagnoli)) {
		return nil, damaged("its seal does not read")
	}
	s := &Seal{}
	for i, line := range strings.Split(string(data[:at]), "\n") {
		f := strings.Fields(line)
		ok := false
		switch {
		case i == 0:
			ok = len(f) == 2 && f[0] == sealMagic && f[1] == strconv.Itoa(index.FormatVersion)
		case len(f) == 2 && f[0] == "docs":
			s.Docs, ok = parseUint(f[1])
		case len(f) == 3 && f[0] == "segment" && validName(f[1]):
			var seg SealedSegment
			seg.Name = f[1]
			seg.Docs, ok = parseUint(f[2])
			s.Segments = append(s.Segments, seg)
		case len(f) == 8 && f[0] == "file" && validName(f[1]):
			n := make([]uint64, 5)
			ok = true
			for j := range n {
				v, good := parseUint(f[2+j])
				n[j], ok = v, ok && good
			}
			crc, err := strconv.ParseUint(f[7], 16, 32)
			ok = ok && err == nil
			s.Files = append(s.Files, SealedFile{Name: f[1], Size: int64(n[0]), CRC: uint32(crc),
				Stamp: fsx.Stamp{Mtime: int64(n[1]), Ctime: int64(n[2]), Ino: n[3], Size: int64(n[4])}})
		}
		if !ok {
			return nil, damaged("its seal does not read")
		}
	}
	return s, nil
}

func parseUint(s string) (uint64, bool) {
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}

// validName is a file name directly in the generation's directory.
func validName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, `/\`)
}

// WriteSeal replaces the seal at path with s. A stamp is written only
// once the file system's clock has moved past it (fsx.Stamp.SettledBy,
// with the seal's own file as the later one): a change in the same tick
// as lore's last write would leave the file's stamp as it was. The seal
// is written again, a millisecond apart, until it has; a stamp not
// settled after fsx.RacyWindow (a file system with coarse times) is
// written as unknown (in s too), and that file is read at every check.
// Like the manifest, the seal is not fsynced: a seal lost in a crash
// means a rebuild.
func WriteSeal(path string, s *Seal) error {
	p, err := fsx.Create(path)
	if err != nil {
		return err
	}
	give := time.Now().Add(fsx.RacyWindow)
	for {
		f := p.File()
		data := s.encode()
		err := f.Truncate(0)
		if err == nil {
			_, err = f.WriteAt(data, 0)
		}
		var probe fsx.Stamp
		if err == nil {
			probe, err = fsx.Fstat(f)
		}
		if err != nil {
			p.Abort()
			return fmt.Errorf("write %s: %w", path, err)
		}
		racy := false
		for i, sf := range s.Files {
			if sf.Stamp.Mtime != 0 && !sf.Stamp.SettledBy(probe) {
				racy = true
				if time.Now().After(give) {
					s.Files[i].Stamp = fsx.Stamp{}
				}
			}
		}
		if !racy {
			break
		}
		time.Sleep(time.Millisecond)
	}
	return p.Commit(fsx.Unsynced)
}

func (s *Seal) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s %d\ndocs %d\n", sealMagic, index.FormatVersion, s.Docs)
	for _, seg := range s.Segments {
		fmt.Fprintf(&b, "segment %s %d\n", seg.Name, seg.Docs)
	}
	for _, f := range s.Files {
		st := f.Stamp
		fmt.Fprintf(&b, "file %s %d %d %d %d %d %08x\n", f.Name, f.Size, uint64(st.Mtime), uint64(st.Ctime), st.Ino, uint64(st.Size), f.CRC)
	}
	fmt.Fprintf(&b, "crc %08x\n", crc32.Checksum(b.Bytes(), castagnoli))
	return b.Bytes()
}

// Unseal removes the seal at path: the generation is about to change, or
// bleve failed on it.
func Unseal(path string) error {
	err := os.Remove(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// NewSeal seals the files of the generation in dir that bleve reads —
// root.bolt and the files of segs — holding docs documents: it stamps and
// reads each file, reusing the CRC prev has of a file whose stamp has not
// changed.
func NewSeal(dir string, docs uint64, segs []SealedSegment, prev *Seal) (*Seal, error) {
	s := &Seal{Docs: docs, Segments: slices.Clone(segs)}
	slices.SortFunc(s.Segments, func(a, b SealedSegment) int { return strings.Compare(a.Name, b.Name) })
	names := []string{"root.bolt"}
	for _, seg := range s.Segments {
		names = append(names, seg.Name)
	}
	known := map[string]SealedFile{}
	if prev != nil {
		for _, f := range prev.Files {
			known[f.Name] = f
		}
	}
	for _, name := range names {
		p := filepath.Join(dir, name)
		st, err := fsx.Lstat(p)
		if err != nil {
			return nil, err
		}
		f := SealedFile{Name: name, Size: st.Size, Stamp: st}
		if k, ok := known[name]; ok && k.Stamp.Same(st) {
			f.CRC = k.CRC
		} else if f.CRC, err = fileCRC(p, st.Size); err != nil {
			return nil, err
		}
		s.Files = append(s.Files, f)
	}
	return s, nil
}

// RemoveUnsealed removes the segment files of the generation in dir that
// the seal does not hold: those a merge replaced, which bleve leaves
// behind when it is closed. Only the writer, holding the write lock and
// having just written s, calls it; a reader opens only what a seal
// holds.
func (s *Seal) RemoveUnsealed(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".zap") && !slices.ContainsFunc(s.Files, func(f SealedFile) bool { return f.Name == name }) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Check compares the generation's files in dir with the seal: by stamp,
// and by CRC when the stamp changed (or is unknown) or full is set. A
// file whose bytes are as sealed but whose stamp changed (a copy, a
// touch) is stamped anew in s, and restamped says so: the caller holding
// the write lock writes the seal again. A file missing or changed is a
// *DamageError.
func (s *Seal) Check(dir string, full bool) (restamped bool, err error) {
	if len(s.Files) == 0 {
		return false, damaged("its seal names no file")
	}
	for i, f := range s.Files {
		p := filepath.Join(dir, f.Name)
		st, err := fsx.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return false, damaged("%s is missing", f.Name)
		}
		if err != nil {
			return false, err
		}
		if !full && st.Same(f.Stamp) {
			continue
		}
		if st.Dir || st.Size != f.Size {
			return false, damaged("%s changed since lore wrote it (%d bytes, not %d)", f.Name, st.Size, f.Size)
		}
		crc, err := fileCRC(p, f.Size)
		if errors.Is(err, fs.ErrNotExist) {
			return false, damaged("%s is missing", f.Name)
		}
		if err != nil {
			return false, err
		}
		if crc != f.CRC {
			return false, damaged("%s changed since lore wrote it (its bytes differ)", f.Name)
		}
		if !st.Same(f.Stamp) {
			s.Files[i].Stamp, restamped = st, true
		}
	}
	return restamped, nil
}

// SameFiles says whether s and o seal the same bytes: the same documents,
// segments and files, each of the same size and CRC (their stamps may
// differ).
func (s *Seal) SameFiles(o *Seal) bool {
	return s.Docs == o.Docs && slices.Equal(s.Segments, o.Segments) &&
		slices.EqualFunc(s.Files, o.Files, func(a, b SealedFile) bool { return a.Name == b.Name && a.Size == b.Size && a.CRC == b.CRC })
}

// Holds checks that an opened index is the sealed one: docs documents,
// in segs.
func (s *Seal) Holds(docs uint64, segs []SealedSegment) error {
	got := slices.Clone(segs)
	slices.SortFunc(got, func(a, b SealedSegment) int { return strings.Compare(a.Name, b.Name) })
	if !slices.Equal(got, s.Segments) {
		return damaged("bleve opened %s, lore wrote %s", describe(got), describe(s.Segments))
	}
	if docs != s.Docs {
		return damaged("it holds %d documents, lore wrote %d", docs, s.Docs)
	}
	return nil
}

func describe(segs []SealedSegment) string {
	if len(segs) == 0 {
		return "no segment"
	}
	var parts []string
	for _, seg := range segs {
		parts = append(parts, fmt.Sprintf("%s (%d documents)", seg.Name, seg.Docs))
	}
	return strings.Join(parts, ", ")
}

// fileCRC is the CRC-32C of the file at p, which must hold size bytes.
func fileCRC(p string, size int64) (uint32, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := crc32.New(castagnoli)
	n, err := io.CopyBuffer(h, f, make([]byte, 256<<10))
	if err != nil {
		return 0, err
	}
	if n != size {
		return 0, damaged("%s changed since lore wrote it (%d bytes, not %d)", filepath.Base(p), n, size)
	}
	return h.Sum32(), nil
}
