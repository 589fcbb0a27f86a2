package prompt

import (
	"math"
	"strings"
)

// A tag that many entries of a kind carry says less about an entry than a
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

// tagWeights are the weights of the task's keywords as tags of one kind
// of entry, by tag; a tag not in it weighs the kind's full weight.
type tagWeights map[string]float64

// weighTextTags is the weights of the tags of n knowledge entries that
// are words of the task's title or description (each(fn) calls fn with
// each entry's tags); nil when every one weighs 2.
func (kw keywords) weighTextTags(n int, each func(fn func(tags []string))) tagWeights {
	return kw.weighTags(n, inText, 2, each)
}

// weighLearningTags is the weights of the tags of n learnings that are
// any of the task's keywords (seed 000's +1 each): a tag most learnings
// carry adds less than a rare one, as for knowledge; nil when every one
// weighs 1.
func (kw keywords) weighLearningTags(n int, each func(fn func(tags []string))) tagWeights {
	return kw.weighTags(n, inAll, 1, each)
}

// weighTags weighs the tags in the keyword sets of set of n entries:
// full for a rare one, less as an inverse document frequency falls.
func (kw keywords) weighTags(n int, set keywordSets, full float64, each func(fn func(tags []string))) tagWeights {
	df := map[string]int{}
	each(func(tags []string) {
		for i, tag := range tags {
			if kw.in[strings.ToLower(tag)]&set == 0 {
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
	w := tagWeights{}
	for tag, d := range df {
		if d > rare {
			w[tag] = full * math.Log1p(float64(n)/float64(d)) / math.Log1p(float64(n)/float64(rare))
		}
	}
	if len(w) == 0 {
		return nil
	}
	return w
}

// of is the weight of tag (lowercased), one of the task's keywords, whose
// full weight is full.
func (w tagWeights) of(tag string, full float64) float64 {
	if x, ok := w[tag]; ok {
		return x
	}
	return full
}
