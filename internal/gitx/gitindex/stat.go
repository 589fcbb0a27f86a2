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

// Matches reports whether st, a file's stamp, is the stat git recorded,
// as far as git keeps it (inode and size cut to 32 bits): git has seen
// the file as it is.
func (g Stat) Matches(st fsx.Stamp) bool {
	return st.Mtime != 0 && st.Mtime/1e9 == int64(g.MtimeSec) && st.Mtime%1e9 == int64(g.MtimeNsec) &&
		uint32(st.Ino) == g.Ino && uint32(st.Size) == g.Size
}

// WrittenSince calls fn, as EachStat does, with the entries under prefix
// that git wrote at or after last (Unix nanoseconds), less
// fsx.CoarseRacyWindow for coarse timestamps — every entry when last is 0
// — and those whose stat git did not take when it wrote them (git stash
// pop leaves it zero).
//
// git writes a file it checks out (a pull, a checkout, a stash, a reset)
// by removing it and creating it again, and the file system tends to
// give the new file the inode number just freed, so its directory's
// listing shows the same inode; but git then records the file's new stat
// in its index. A cache of what files hold, kept by their stat, asks this
// when the index file changed since it last looked.
func WrittenSince(indexPath, prefix string, last int64, fn func(path []byte, st Stat) bool) error {
	since := int64(0)
	if last != 0 {
		since = last - int64(fsx.CoarseRacyWindow)
	}
	return EachStat(indexPath, prefix, func(p []byte, g Stat) bool {
		if at := int64(g.MtimeSec)*1e9 + int64(g.MtimeNsec); at < since && at != 0 {
			return true
		}
		return fn(p, g)
	})
}
