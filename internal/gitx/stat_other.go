//go:build !linux

package gitx

import (
	"fmt"
	"os"
)

func fillStat(e *indexEntry, path string) error {
	info, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("gitx: stat %s: %w", path, err)
	}
	return fillPortableStat(e, info)
}
