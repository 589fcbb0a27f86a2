package gitindex

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"lore/internal/fsx"
)

// Stat is the stat data git keeps for a file in its index: what the
// file looked like when git last wrote it or found it unchanged. git
// truncates inode and size to 32 bits.
type Stat struct {
	MtimeSec, MtimeNsec uint32
	Ino, Size           uint32
}

// EachStat calls fn with the path and stat data of every stage-0
// entry of the git index file at indexPath whose path starts with prefix,
// in path order, and stops early when fn returns false. The entries are
// read in place from the mapped file: nothing is decoded or allocated but
// what fn is handed, and the file is not verified (a damaged index yields
// fewer entries, or an error). A missing file has no entries. Entries
// kept in the shared index of a split index are not seen.
func EachStat(indexPath, prefix string, fn func(path []byte, st Stat) bool) error {
	f, err := os.Open(indexPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	data, release, err := fsx.MapPopulated(f)
	if err != nil {
		return fmt.Errorf("read index: %w", err)
	}
	defer release()
	return eachStat(data, []byte(prefix), fn)
}

func eachStat(data, prefix []byte, fn func(path []byte, st Stat) bool) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("corrupt index: %s", fmt.Sprintf(format, args...))
	}
	if len(data) < 12 || string(data[:4]) != indexSignature {
		return bad("bad signature")
	}
	version := binary.BigEndian.Uint32(data[4:8])
	if version < 2 || version > 4 {
		return fmt.Errorf("%w: version %d", ErrUnsupported, version)
	}
	count := int(binary.BigEndian.Uint32(data[8:12]))
	body := data
	if len(body) >= 12+sha1.Size {
		body = body[:len(body)-sha1.Size] // the checksum is not an entry
	}
	_, problem := walkEntries(body, version, count, func(_, at int, path []byte) bool {
		if !bytes.HasPrefix(path, prefix) {
			return bytes.Compare(path, prefix) < 0 // past every path with the prefix: done
		}
		entry := body[at:]
		if binary.BigEndian.Uint16(entry[60:])&flagStageMask != 0 {
			return true
		}
		return fn(path, Stat{
			MtimeSec: binary.BigEndian.Uint32(entry[8:]), MtimeNsec: binary.BigEndian.Uint32(entry[12:]),
			Ino: binary.BigEndian.Uint32(entry[20:]), Size: binary.BigEndian.Uint32(entry[36:]),
		})
	})
	if problem != "" {
		return bad("%s", problem)
	}
	return nil
}
