package index_test

import (
	"testing"

	"lore/index"
	"lore/index/indextest"
)

func TestScanConformance(t *testing.T) {
	indextest.Run(t, func(t *testing.T) index.Index { return index.NewScan() })
}
