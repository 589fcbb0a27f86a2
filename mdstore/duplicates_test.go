package mdstore

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDuplicatesFindsTheSameLearningInOtherWords(t *testing.T) {
	t.Parallel()
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

// TestDuplicatesAnswersAsComparingWithEveryLearning: the filed lists give
// the answer a comparison with every learning of the list gives, for
// random learnings over a small vocabulary (many near duplicates), with
// and without the expected bodies, through Add and Set.
func TestDuplicatesAnswersAsComparingWithEveryLearning(t *testing.T) {
	t.Parallel()
	vocabulary := strings.Fields("lock index commit merge rebase stash branch tag tree blob object pack ref head fsync rename")
	rng := rand.New(rand.NewPCG(7, 11))
	body := func() string {
		n := 3 + rng.IntN(12)
		words := make([]string, n)
		for i := range words {
			words[i] = vocabulary[rng.IntN(len(vocabulary))]
		}
		return strings.Join(words, " ")
	}
	type learning struct {
		category, body string
		words          map[string]bool
	}
	var bodies []learning
	for range 1500 {
		b := body()
		bodies = append(bodies, learning{[]string{"pitfall", "testing"}[rng.IntN(2)], b, keywordSet(b)})
	}
	all := make([]string, len(bodies))
	for i, b := range bodies {
		all[i] = b.body
	}
	for _, d := range []*Duplicates{{}, NewDuplicates(all...)} {
		var list []learning
		found := 0
		for _, b := range bodies {
			want := -1
			for i, l := range list {
				if l.category == b.category && nearDuplicateWords(b.words, l.words) {
					want = i
					break
				}
			}
			if got := d.Of(b.category, b.body); got != want {
				t.Fatalf("Of(%q, %q) = %d, want %d", b.category, b.body, got, want)
			}
			switch {
			case want < 0:
				list = append(list, b)
				d.Add(b.category, b.body)
			case rng.IntN(2) == 0: // a newer duplicate replaces the older
				list[want] = b
				d.Set(want, b.category, b.body)
			default:
				found++
			}
		}
		if found == 0 {
			t.Fatal("no near duplicates among the random learnings: the test tests nothing")
		}
	}
}
