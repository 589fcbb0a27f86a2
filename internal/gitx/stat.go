package gitx

import (
	"fmt"

	"lore/internal/fsx"
)

// fillStat copies the stat data git keeps in an index entry from the file
// at path, so that git sees the file as unchanged without hashing it.
// Where the system does not say (an inode, a change time), git compares
// against what is recorded and re-reads the file when they differ, which
// costs a hash but is never wrong.
func fillStat(e *indexEntry, path string) error {
	st, err := fsx.Lstat(path)
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	e.ctimeSec, e.ctimeNsec = uint32(st.Ctime/1e9), uint32(st.Ctime%1e9)
	e.mtimeSec, e.mtimeNsec = uint32(st.Mtime/1e9), uint32(st.Mtime%1e9)
	e.dev, e.ino = st.Dev, uint32(st.Ino)
	e.uid, e.gid = st.UID, st.GID
	e.size = uint32(st.Size)
	return nil
}
