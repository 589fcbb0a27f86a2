package fsx

// Dirent is one entry of a directory listing (ListDir): its name (valid
// only during the call it is handed to), its inode (0 when unknown) and
// whether it is a directory, a symbolic link or a regular file (none of
// the three: a FIFO, a socket, a device).
type Dirent struct {
	Name                  []byte
	Ino                   uint64
	Dir, Symlink, Regular bool
}
