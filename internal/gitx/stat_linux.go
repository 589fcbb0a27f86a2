package gitx

import (
	"fmt"
	"os"
	"syscall"
)

// fillStat copies the stat data git keeps in an index entry from the file
// at path, so that git sees the file as unchanged without hashing it.
func fillStat(e *indexEntry, path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("gitx: stat %s: %w", path, err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fillPortableStat(e, info)
	}
	e.ctimeSec, e.ctimeNsec = uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec)
	e.mtimeSec, e.mtimeNsec = uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec)
	e.dev, e.ino = uint32(st.Dev), uint32(st.Ino)
	e.uid, e.gid = st.Uid, st.Gid
	e.size = uint32(st.Size)
	return nil
}
