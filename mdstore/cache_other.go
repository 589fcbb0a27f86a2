//go:build !linux

package mdstore

import "os"

type stamper struct{}

func newStamper() *stamper { return &stamper{} }
func (*stamper) close()    {}

func (*stamper) stamp(path string) (fileStamp, error) {
	info, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{mtime: info.ModTime().UnixNano(), ctime: info.ModTime().UnixNano(), size: info.Size()}, nil
}

func mapCacheFile(path string) ([]byte, error) { return os.ReadFile(path) }

func cacheString(b []byte) string { return string(b) }
