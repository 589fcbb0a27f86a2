package gitx

import "os"

// fillPortableStat fills the stat fields every platform has. git compares
// the rest against zero and re-reads the file when they differ, which costs
// a hash but is never wrong.
func fillPortableStat(e *indexEntry, info os.FileInfo) error {
	t := info.ModTime()
	e.mtimeSec, e.mtimeNsec = uint32(t.Unix()), uint32(t.Nanosecond())
	e.ctimeSec, e.ctimeNsec = e.mtimeSec, e.mtimeNsec
	e.size = uint32(info.Size())
	return nil
}
