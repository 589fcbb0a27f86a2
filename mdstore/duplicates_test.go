package mdstore

import "testing"

func TestDuplicatesFindsTheSameLearningInOtherWords(t *testing.T) {
	var d Duplicates
	d.Add("pitfall", "The index lock must be taken before the objects are written.")
	d.Add("tool_usage", "Run gofmt and go vet before every commit of the Go code.")
	d.Add("pitfall", "Flaky tests come from shared temp directories.")
	cases := []struct {
		category, body string
		want           int
	}{
		{"pitfall", "the INDEX lock must be taken before the objects are written", 0}, // case and punctuation
		{"pitfall", "The index lock must be taken before objects are written.", 0},    // "the" twice, one word less
		{"success_pattern", "The index lock must be taken before the objects are written.", -1},
		{"pitfall", "The index lock must be taken after the objects are written.", -1}, // a word changed: 8 shared of 10
		{"tool_usage", "Run gofmt and go vet before every commit.", -1},                // too few words shared
		{"pitfall", "", -1},
	}
	for _, c := range cases {
		if got := d.Of(c.category, c.body); got != c.want {
			t.Errorf("Of(%q, %q) = %d, want %d", c.category, c.body, got, c.want)
		}
	}
	d.Set(2, "pitfall", "The index lock must be taken before the objects are written!")
	if got := d.Of("pitfall", "The index lock must be taken before the objects are written."); got != 0 {
		t.Errorf("after Set, the first of two duplicates is %d, want 0", got)
	}
	if d.Len() != 3 {
		t.Errorf("Len = %d", d.Len())
	}
}
