package lifecycle

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"lore/internal/words"
	"lore/mdstore/entry"
)

// recurringWords is how many of a large cluster's most frequent words its
// summary names.
const recurringWords = 5

// largeSummary is the text of a summary whose examples would not all fit
// in summaryMaxLen (bodies are members' texts on one line each): the
// shared tags and the words most of them use, then the most
// representative members' texts — those whose words the others use most,
// the centre of the cluster — in that order while they fit, then the rest by id, as
// many as fit ("And 35 more: l-…, l-…"; past that, how many others, whose
// superseded_by names the summary).
//
//	Common pattern: go, testing. Recurring words: race, flaky, parallel.
//	Examples (7 of 42, the most representative):
//	- …
//	And 35 more: l-…, l-…
func largeSummary(theme []string, members []*entry.Learning, bodies []string) string {
	// Each member's distinct keywords, stop words left out, and in how
	// many members each word is.
	sets := make([][]string, len(members))
	df := map[string]int{}
	for i, body := range bodies {
		seen := map[string]bool{}
		words.EachKeyword(body, func(w string) {
			if !seen[w] && !words.StopWords[w] {
				seen[w] = true
				sets[i] = append(sets[i], w)
				df[w]++
			}
		})
	}
	// The recurring words: in at least half the members, most first, not
	// already a tag.
	tagged := map[string]bool{}
	for _, t := range theme {
		for _, w := range words.Keywords(t) {
			tagged[w] = true
		}
	}
	var recurring []string
	for w, n := range df {
		if 2*n >= len(members) && !tagged[w] {
			recurring = append(recurring, w)
		}
	}
	sort.Slice(recurring, func(i, j int) bool {
		if df[recurring[i]] != df[recurring[j]] {
			return df[recurring[i]] > df[recurring[j]]
		}
		return recurring[i] < recurring[j]
	})
	recurring = recurring[:min(len(recurring), recurringWords)]

	// Representative: the mean share of the other members that use each
	// of its words; ties go to the older.
	score := make([]float64, len(members))
	for i, set := range sets {
		for _, w := range set {
			score[i] += float64(df[w]-1) / float64(len(members)-1)
		}
		if len(set) > 0 {
			score[i] /= float64(len(set))
		}
	}
	order := make([]int, len(members))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score[order[a]] > score[order[b]] })

	head := summaryPrefix + strings.Join(theme, ", ") + "."
	if len(recurring) > 0 {
		head += " Recurring words: " + strings.Join(recurring, ", ") + "."
	}
	// Examples in order of representativeness while they fit with the
	// list of the rest (which each example shortens by an id), or with
	// half the room for it when the whole list would take more.
	rest := 0 // the length of the ids of the rest, joined
	for _, l := range members {
		rest += len(l.ID) + len(", ")
	}
	var chosen []int
	picked := make([]bool, len(members))
	used := len(head)
	for _, i := range order {
		example := len("\n- ") + len(bodies[i])
		after := rest - len(members[i].ID) - len(", ")
		restRoom := min(len("\nAnd 0000 more: ")+after, summaryMaxLen/2)
		if used+len(examplesLine(len(chosen)+1, len(members)))+example+restRoom > summaryMaxLen {
			break // a less representative one that is shorter does not take its place
		}
		chosen, picked[i] = append(chosen, i), true
		used += example
		rest = after
	}
	var b strings.Builder
	b.WriteString(head + examplesLine(len(chosen), len(members)))
	for _, i := range chosen {
		b.WriteString("\n- " + bodies[i])
	}
	b.WriteString(restLine(members, picked, summaryMaxLen-b.Len()))
	return b.String()
}

// summaryTags is a large cluster's summary's tags: the theme, then the
// others in order while they take at most summaryMaxLen bytes, so that
// the union of thousands of members' tags stays within what an entry's
// file may hold.
func summaryTags(theme, all []string) []string {
	out := slices.Clone(theme)
	n := 0
	for _, t := range out {
		n += len(t) + len(", ")
	}
	for _, t := range all {
		if slices.Contains(theme, t) {
			continue
		}
		if n += len(t) + len(", "); n > summaryMaxLen {
			break
		}
		out = append(out, t)
	}
	return out
}

// examplesLine announces n examples of total.
func examplesLine(n, total int) string {
	return fmt.Sprintf("\nExamples (%d of %d, the most representative):", n, total)
}

// restLine lists the members not picked as examples by id, within room
// bytes: "And 35 more: l-…, l-…", and, for those that do not fit, how
// many others there are.
func restLine(members []*entry.Learning, picked []bool, room int) string {
	var ids []string
	for i, l := range members {
		if !picked[i] {
			ids = append(ids, l.ID)
		}
	}
	if len(ids) == 0 {
		return ""
	}
	head := fmt.Sprintf("\nAnd %d more: ", len(ids))
	if all := head + strings.Join(ids, ", "); len(all) <= room {
		return all
	}
	tail := func(others int) string {
		return fmt.Sprintf(" and %d %s (their superseded_by names this summary)", others, words.Plural(others, "other", "others"))
	}
	// The most ids that fit, with the count of the others after them.
	k, n := 0, len(head)
	for j, id := range ids {
		if j > 0 {
			n += len(", ")
		}
		n += len(id)
		if n+len(tail(len(ids)-j-1)) > room {
			break
		}
		k = j + 1
	}
	if k == 0 {
		return fmt.Sprintf("\nAnd %d more, whose superseded_by names this summary.", len(ids))
	}
	return head + strings.Join(ids[:k], ", ") + tail(len(ids)-k)
}
