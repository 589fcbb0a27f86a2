package gitx

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// IndexStat is the stat data git keeps for a file in its index: what the
// file looked like when git last wrote it or found it unchanged. git
// truncates inode and size to 32 bits.
type IndexStat struct {
	MtimeSec, MtimeNsec uint32
	Ino, Size           uint32
}

// EachIndexStat calls fn with the path and stat data of every stage-0
// entry of the git index file at indexPath whose path starts with prefix,
// in path order, and stops early when fn returns false. The entries are
// read in place from the mapped file: nothing is decoded or allocated but
// what fn is handed, and the file is not verified (a damaged index yields
// fewer entries, or an error). A missing file has no entries. Entries
// kept in the shared index of a split index are not seen.
func EachIndexStat(indexPath, prefix string, fn func(path []byte, st IndexStat) bool) error {
	f, err := os.Open(indexPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("gitx: read index: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("gitx: read index: %w", err)
	}
	data, release, err := mapWhole(f, info.Size())
	if err != nil {
		return fmt.Errorf("gitx: read index: %w", err)
	}
	defer release()
	return eachIndexStat(data, []byte(prefix), fn)
}

func eachIndexStat(data, prefix []byte, fn func(path []byte, st IndexStat) bool) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("gitx: corrupt index: %s", fmt.Sprintf(format, args...))
	}
	if len(data) < 12 || string(data[:4]) != indexSignature {
		return bad("bad signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return fmt.Errorf("%w: version %d", ErrIndexUnsupported, version)
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	var prev []byte // version 4: the previous path, which the next one is relative to
	pos := 12
	for i := 0; i < count; i++ {
		if len(data)-pos < entryFixedSize {
			return bad("entry %d truncated", i)
		}
		entry := data[pos:]
		flags := binary.BigEndian.Uint16(entry[60:])
		name := entryFixedSize
		if flags&flagExtended != 0 {
			name += 2
		}
		if name > len(entry) {
			return bad("entry %d truncated", i)
		}
		var path []byte
		if version == 4 {
			strip, n := readVarint(entry[name:])
			nul := bytes.IndexByte(entry[name+n:], 0)
			if n == 0 || strip > uint64(len(prev)) || nul < 0 {
				return bad("entry %d has a bad path", i)
			}
			path = append(prev[:len(prev)-int(strip)], entry[name+n:name+n+nul]...)
			prev = path
			pos += name + n + nul + 1
		} else {
			length := int(flags & flagNameMask)
			if length == flagNameMask {
				length = bytes.IndexByte(entry[name:], 0)
			}
			if length < 0 || name+length > len(entry) {
				return bad("entry %d path not terminated", i)
			}
			path = entry[name : name+length]
			// Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
			pos += (name + length + 8) &^ 7
		}
		if !bytes.HasPrefix(path, prefix) {
			if bytes.Compare(path, prefix) > 0 {
				return nil // past every path that has the prefix
			}
			continue
		}
		if flags&flagStageMask != 0 {
			continue
		}
		st := IndexStat{
			MtimeSec: binary.BigEndian.Uint32(entry[8:]), MtimeNsec: binary.BigEndian.Uint32(entry[12:]),
			Ino: binary.BigEndian.Uint32(entry[20:]), Size: binary.BigEndian.Uint32(entry[36:]),
		}
		if !fn(path, st) {
			return nil
		}
	}
	return nil
}
