//go:build !unix

package fsx

import (
	"io"
	"os"
)

// ReadRegular reads the file at path if it is a regular file of at most
// limit bytes; otherwise it returns a *SkipError and reads nothing. Here
// the type is checked with an lstat before the open and on the open file
// after it.
func ReadRegular(path string, limit int64) ([]byte, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := skipFor(path, info.Mode(), false); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := skipFor(path, info.Mode(), false); err != nil {
		return nil, err
	}
	if info.Size() > limit {
		return nil, &SkipError{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &SkipError{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	return data, nil
}

// OpenRegular opens the file at path for reading if it is a regular file;
// otherwise it returns a *SkipError. Here the type is checked with an
// lstat before the open and on the open file after it.
func OpenRegular(path string) (*os.File, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := skipFor(path, info.Mode(), false); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if info, err = f.Stat(); err == nil {
		err = skipFor(path, info.Mode(), false)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadDir lists the directory at path, sorted by name, as os.ReadDir does,
// but a symbolic link as the last element of path is not followed: it is a
// *SkipError, as is a path that is not a directory.
func ReadDir(path string) ([]os.DirEntry, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := skipFor(path, info.Mode(), true); err != nil {
		return nil, err
	}
	return os.ReadDir(path)
}
