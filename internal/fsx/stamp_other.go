//go:build !linux

package fsx

import "os"

// Lstat stamps the file at path itself (a symbolic link is not followed).
// Without inodes and change times here, a stamp is the modification time
// and size.
func Lstat(path string) (Stamp, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return Stamp{}, err
	}
	return fromInfo(info), nil
}

// Fstat stamps an open file.
func Fstat(f *os.File) (Stamp, error) {
	info, err := f.Stat()
	if err != nil {
		return Stamp{}, err
	}
	return fromInfo(info), nil
}

func fromInfo(info os.FileInfo) Stamp {
	t := info.ModTime().UnixNano()
	return Stamp{Mtime: t, Ctime: t, Size: info.Size(), Dir: info.IsDir()}
}

// Stamper stamps files one after another; symbolic links are not
// followed, as Lstat does.
type Stamper struct{}

// NewStamper returns a Stamper.
func NewStamper() *Stamper { return &Stamper{} }

// Stamp stamps the file at path.
func (*Stamper) Stamp(path string) (Stamp, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return Stamp{}, err
	}
	return fromInfo(info), nil
}

// Close does nothing here.
func (*Stamper) Close() {}
