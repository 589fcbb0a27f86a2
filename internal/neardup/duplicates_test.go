package neardup

import (
	"fmt"
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
// and without the expected bodies (and with half of them: words counted
// and words met later side by side), through Add and Set.
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
		bodies = append(bodies, learning{[]string{"pitfall", "testing"}[rng.IntN(2)], b, KeywordSet(b)})
	}
	all := make([]string, len(bodies))
	for i, b := range bodies {
		all[i] = b.body
	}
	for _, d := range []*Duplicates{{}, New(all...), New(all[:len(all)/2]...)} {
		var list []learning
		found := 0
		for _, b := range bodies {
			want := -1
			for i, l := range list {
				if l.category == b.category && Near(b.words, l.words) {
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

// TestHoldsAtLeastDecidesAsWords: counting a learning's keywords among
// those of the body asked about, against nearDuplicateOverlap, gives
// nearDuplicateWords' answer, for sets of every size up to 200 with
// overlaps around the 80% threshold, either way round.
func TestHoldsAtLeastDecidesAsWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	near, far := 0, 0
	for range 20000 {
		n := 1 + rng.IntN(200)
		m := max(1, n+rng.IntN(n/3+2)-n/6)
		shared := min(n, m) - rng.IntN(min(n, m)/4+1)
		a, b := map[string]bool{}, map[string]bool{}
		var ia, ib []int32
		for i := range n {
			a[fmt.Sprint(i)] = true
			ia = append(ia, int32(i))
		}
		for i := range m {
			id := int32(i) // the first shared ones are a's
			if i >= shared {
				id = int32(1000 + i)
			}
			b[fmt.Sprint(id)] = true
			ib = append(ib, id)
		}
		want := Near(a, b)
		for _, asked := range [][2][]int32{{ia, ib}, {ib, ia}} {
			d := &Duplicates{held: make([]uint32, 2000), asked: 1}
			for _, w := range asked[0] {
				d.held[w] = 1
			}
			if got := d.holdsAtLeast(asked[1], int32(nearDuplicateOverlap(n+m))); got != want {
				t.Fatalf("sizes %d and %d sharing %d: holdsAtLeast says %v, nearDuplicateWords %v", len(asked[0]), len(asked[1]), shared, got, want)
			}
		}
		if want {
			near++
		} else {
			far++
		}
	}
	if near < 1000 || far < 1000 {
		t.Fatalf("%d near duplicates, %d not: the test tests too little of one side", near, far)
	}
}
