package fresh

// dirent is one entry of a directory listing: its name (valid only
// during the call it is handed to), its inode (0 when unknown) and whether
// it is a directory, a symbolic link or a regular file (none of the three:
// a FIFO, a socket, a device).
type dirent struct {
	name                  []byte
	ino                   uint64
	dir, symlink, regular bool
}
