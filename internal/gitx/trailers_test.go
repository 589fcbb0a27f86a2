package gitx

import (
	"slices"
	"testing"
)

func TestParseTrailers(t *testing.T) {
	msg := "lore: revert r/0002\n\n- mem-1: removed\nNote: not a trailer paragraph? yes it is not\n\nLore-Id: r/0002\nReverts: aaa\nReverts: bbb\n"
	tr := ParseTrailers(msg)
	if tr.Last("Lore-Id") != "r/0002" || !slices.Equal(tr["Reverts"], []string{"aaa", "bbb"}) || tr.Last("Note") != "" {
		t.Errorf("trailers: %v", tr)
	}
	for _, m := range []string{"lore: add x", "lore: add x\n\nSome body: with a colon\nand a plain line\n"} {
		if tr := ParseTrailers(m); len(tr) != 0 {
			t.Errorf("%q: trailers %v, want none", m, tr)
		}
	}
}
