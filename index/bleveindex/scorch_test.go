package bleveindex

import (
	"testing"
	"time"

	"lore/index"
	"lore/index/indextest"
)

func TestScorchConformance(t *testing.T) {
	indextest.Run(t, func(t *testing.T) index.Index {
		x, err := openScorch(t.TempDir(), true, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x
	})
}
