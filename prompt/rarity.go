package prompt

import (
	"math"
	"strings"
)

// A tag that many knowledge entries carry says less about an entry than a
// rare one: seed 000's +2 per tag found in the task's title or
// description is the weight of a rare tag (one that at most rareTagCount
// entries carry, or one in rareTagShare of them), and a commoner tag
// weighs less, as an inverse document frequency falls: 2 ×
// ln(1 + N/df) / ln(1 + N/rare), for a tag df of the N entries carry.
// Generic tags (task, ui, feature) on most entries of a real store no
// longer outrank the entry the title is about (issue 37).
const (
	rareTagCount = 3
	rareTagShare = 20 // one entry in 20
)

// tagWeights are the weights of the task's title and description words
// as knowledge tags, by tag; a tag not in it weighs 2.
type tagWeights map[string]float64

// weighTextTags is the weights of the tags of n knowledge entries that
// are words of the task's title or description (each(fn) calls fn with
// each entry's tags); nil when every one weighs 2.
func (kw keywords) weighTextTags(n int, each func(fn func(tags []string))) tagWeights {
	df := map[string]int{}
	each(func(tags []string) {
		for i, tag := range tags {
			if kw.in[strings.ToLower(tag)]&inText == 0 {
				continue
			}
			tag = strings.ToLower(tag)
			repeated := false // a tag written twice on one entry counts once
			for _, before := range tags[:i] {
				repeated = repeated || strings.EqualFold(before, tag)
			}
			if !repeated {
				df[tag]++
			}
		}
	})
	rare := max(rareTagCount, n/rareTagShare)
	var w tagWeights
	for tag, d := range df {
		if d <= rare {
			continue
		}
		if w == nil {
			w = tagWeights{}
		}
		w[tag] = 2 * math.Log1p(float64(n)/float64(d)) / math.Log1p(float64(n)/float64(rare))
	}
	return w
}

// of is the weight of tag (lowercased), a word of the task's text.
func (w tagWeights) of(tag string) float64 {
	if x, ok := w[tag]; ok {
		return x
	}
	return 2
}
