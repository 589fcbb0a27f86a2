package fsx

import "golang.org/x/sys/unix"

// SyncFileSystem makes every file written to the file system holding dir
// durable with one syncfs(2), cheaper than an fsync of each of thousands
// of files. ok is false when it could not (then sync each file).
func SyncFileSystem(dir string) (ok bool) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Syncfs(fd) == nil
}
