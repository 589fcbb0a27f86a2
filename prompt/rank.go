package prompt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"lore/internal/neardup"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// nearDuplicateLookAhead is how many ranked entries past the place where a
// section is first full (its budget has no room for the next entry it
// keeps, or it keeps as many as it shows) are still examined: a newer
// near-duplicate there takes the place of the entry it repeats (see the
// package comment). Copies an agent writes iteration after iteration
// rank next to each other, newest first; one further down is left out,
// and counted with the entries left out.
const nearDuplicateLookAhead = 10

// rank is what orders a section's entries: most relevant to the task
// first — of two whose scores nearly tie (in one nearTieStep), the one
// the full-text search finds more relevant (rel) — then the most tags or
// files shared with the latest iteration's files, then the newest.
type rank struct {
	score float64
	tie   int
	time  moment
	rel   float64 // the entry's full-text relevance (Input.Relevance), 0 for none
}

// nearTieStep is the width of the bands of scores within which full-text
// relevance decides before the score does: an eighth of a rare knowledge
// tag's 2, a quarter of a learning tag's 1. Bands, not a distance between
// two scores, keep the order transitive.
const nearTieStep = 0.25

// compare is -1 when a ranks before b, 1 when after, 0 when rank cannot
// tell them apart.
func (a *rank) compare(b *rank) int {
	if a.score != b.score {
		if ba, bb := math.Floor(a.score/nearTieStep), math.Floor(b.score/nearTieStep); ba != bb {
			return -cmp.Compare(ba, bb)
		}
		if a.rel != b.rel {
			return -cmp.Compare(a.rel, b.rel)
		}
		return -cmp.Compare(a.score, b.score)
	}
	return a.compareTieAndTime(b)
}

// compareTieAndTime is compare of two entries of the same score.
func (a *rank) compareTieAndTime(b *rank) int {
	switch {
	case a.tie != b.tie:
		return -cmp.Compare(a.tie, b.tie)
	case a.time.after(b.time):
		return -1
	case b.time.after(a.time):
		return 1
	}
	return 0
}

// candidate is a knowledge entry or a learning as prime ranks it, made
// from its head (catalog.Head) so that it is read whole only when a
// section examines it: its time, what its tags score for the task
// before relevance is added and the tie-breaker, its place (in Input's
// list, or among a catalog's heads), its path (its key in
// Input.Relevance), and what its kind needs. Its fields are laid out to
// leave no padding: a large store has tens of thousands.
type candidate struct {
	time moment
	tags float64
	// A learning's seed-004 figures (seed004Relevance), and its kind
	// (seed004Kind).
	confidence, successRate float64
	tie, place              int32
	// chars is a knowledge entry's block as its section measures it,
	// less the heading level (knowledgeChars).
	chars        int32
	kind         uint8
	sameTaskType bool
	path         string
	// order is what orders entries that rank cannot tell apart, as
	// Entries orders them, besides their paths: a knowledge entry's title
	// (entry.KnowledgeOrder), a learning's created_at (entry.LearningOrder,
	// and its recency for seed 004).
	order string
}

// ranking is candidates in a section's order: of the candidates in two
// lists (cs), the places of those ranked, best first, counted through
// both lists.
type ranking struct {
	cs     [2][]candidate
	order  []int32
	scores []float64 // each place's score, as it was ranked
}

func (r ranking) len() int            { return len(r.order) }
func (r ranking) at(k int) *candidate { return of(r.cs, int(r.order[k])) }

// freshFirst moves, within each run of entries of the same score, those
// a cited file changed under (stale, by path) after the fresh ones, in
// their order: a stale entry ranks below a fresh one of the same
// relevance.
func (r ranking) freshFirst(o order, rel map[string]float64, stale map[string]bool) ranking {
	if len(stale) == 0 {
		return r
	}
	// From each run's first stale entry to the run's end (the fresh ones
	// before it stay where they are), partitioned stably: the fresh ones
	// first. Only the entries from there on are scored.
	score := func(k int) float64 {
		if r.scores != nil {
			return r.scores[k]
		}
		s, _ := o.score(r.at(k), rel)
		return s
	}
	for k := 0; k < r.len(); k++ {
		if !stale[r.at(k).path] {
			continue
		}
		s, end := score(k), k+1
		for end < r.len() && score(end) == s {
			end++
		}
		run := r.order[k:end]
		var after []int32
		fresh := run[:0]
		for _, e := range run {
			if stale[of(r.cs, int(e)).path] {
				after = append(after, e)
			} else {
				fresh = append(fresh, e)
			}
		}
		copy(run[len(fresh):], after)
		k = end - 1
	}
	return r
}

// of is the candidate at place i of two lists.
func of(cs [2][]candidate, i int) *candidate {
	if i < len(cs[0]) {
		return &cs[0][i]
	}
	return &cs[1][i-len(cs[0])]
}

// seed004Kind is a learning's seed-004 kind as a candidate keeps it: 1
// and its place in entry.LearningKinds, 0 for none (a learning of seed
// 002's), and one more for any other (which no file that parses has).
func seed004Kind(kind string) uint8 {
	if kind == "" {
		return 0
	}
	if i := slices.Index(entry.LearningKinds, kind); i >= 0 {
		return uint8(1 + i)
	}
	return uint8(1 + len(entry.LearningKinds))
}

// knowledgeCandidate is the candidate of the knowledge entry of head h at
// place, for task t: with a task, seed 000's score of its tags (+2 per rare
// tag found in the title or description, less for a common one
// (weighTextTags), +2 per tag matching the feature, +1
// per tag found in the words of the task's files) and the tie-breaker of
// its tags found in the latest iteration's files; its time (updated, else
// created) and its length.
func (kw keywords) knowledgeCandidate(place int, h *catalog.Head, t Task) candidate {
	c := candidate{place: int32(place), path: h.Path, order: h.Title, chars: int32(knowledgeChars(h))}
	c.time = momentOf(knowledgeTime(h.UpdatedAt, h.CreatedAt))
	if t.Given() {
		for _, tag := range h.Tags {
			tag = strings.ToLower(tag)
			in := kw.in[tag]
			if in&inText != 0 {
				c.tags += kw.textTags.of(tag, 2)
			}
			if kw.feature != "" && tag == kw.feature {
				c.tags += 2
			}
			if in&inFiles != 0 {
				c.tags++
			}
			if in&inRecent != 0 {
				c.tie++
			}
		}
	}
	return c
}

// learningCandidate is the candidate of the learning of head h at place,
// for task t: with a task, its tags that are the task's keywords, +1 each
// for a rare one, less for a common one (weighLearningTags);
// the tie-breaker of its tags found in the latest iteration's files, its
// time and its seed-004 figures. False when t does not show learnings of
// its status.
func (kw keywords) learningCandidate(place int, h *catalog.Head, t Task) (candidate, bool) {
	if !entry.Wanted(t.Statuses, h.State()) {
		return candidate{}, false
	}
	c := candidate{place: int32(place), path: h.Path, order: h.CreatedAt, kind: seed004Kind(h.Kind),
		sameTaskType: h.TaskType != "" && strings.EqualFold(h.TaskType, kw.taskType), confidence: h.Confidence, successRate: h.SuccessRate}
	c.time = momentOf(h.CreatedAt)
	given := t.Given()
	for _, tag := range h.Tags {
		in := kw.in[strings.ToLower(tag)]
		if in&inRecent != 0 {
			c.tie++
		}
		if given && in&inAll != 0 {
			c.tags += kw.learningTags.of(strings.ToLower(tag), 1)
		}
	}
	return c, true
}

// candidatesOf is the candidates of Input's knowledge entries and
// learnings, made from their heads.
func (kw keywords) candidatesOf(ks []entry.Knowledge, ls []entry.Learning, t Task) (knowledge, learnings []candidate) {
	knowledge = make([]candidate, len(ks))
	if t.Given() {
		kw.textTags = kw.weighTextTags(len(ks), func(fn func(tags []string)) {
			for i := range ks {
				fn(ks[i].Tags)
			}
		})
	}
	for i := range ks {
		h := catalog.KnowledgeHead(&ks[i])
		knowledge[i] = kw.knowledgeCandidate(i, &h, t)
	}
	if t.Given() {
		kw.learningTags = kw.weighLearningTags(len(ls), func(fn func(tags []string)) {
			for i := range ls {
				fn(ls[i].Tags)
			}
		})
	}
	for i := range ls {
		h := catalog.LearningHead(&ls[i])
		if c, ok := kw.learningCandidate(i, &h, t); ok {
			learnings = append(learnings, c)
		}
	}
	return knowledge, learnings
}

func knowledgeTime(updated, created string) string {
	if updated != "" {
		return updated
	}
	return created
}

// order is how a section ranks its candidates: the score of each given
// the relevance (false leaves it out), and the order of those rank cannot
// tell apart, the order Entries gives them.
type order struct {
	score   func(c *candidate, rel map[string]float64) (float64, bool)
	entries func(a, b *candidate) int
}

// knowledgeOrder orders knowledge entries for a task by the score of
// their tags (knowledgeCandidate) plus twice their full-text relevance;
// entries scoring nothing are left out. Tags found in the files the
// latest iteration modified (seed 000's "recent files") break ties, then
// the newest come first. Without a task, the most recently written come
// first.
func knowledgeOrder(t Task) order {
	return order{func(c *candidate, rel map[string]float64) (float64, bool) {
		if !t.Given() {
			return 0, true
		}
		s := c.tags + 2*rel[c.path]
		return s, s > 0
	}, func(a, b *candidate) int {
		return entry.KnowledgeOrder(&entry.Knowledge{Title: a.order, Path: a.path}, &entry.Knowledge{Title: b.order, Path: b.path})
	}}
}

// learningsOrder orders the learnings of the statuses shown for a task:
// most tags matching the task's keywords plus full-text relevance (plus
// seed 004's relevance for one of its learnings, as of now) first, then
// most tags found in the latest iteration's files, then the most recent;
// learnings scoring nothing are left out. Without a task, the most
// recent.
func learningsOrder(t Task, now time.Time) order {
	return order{func(c *candidate, rel map[string]float64) (float64, bool) {
		if !t.Given() {
			return 0, true
		}
		s := c.tags + rel[c.path]
		if s == 0 {
			return 0, false
		}
		return s + c.seed004Relevance(now), true
	}, func(a, b *candidate) int {
		return entry.LearningOrder(&entry.Learning{CreatedAt: a.order, Path: a.path}, &entry.Learning{CreatedAt: b.order, Path: b.path})
	}}
}

// rankKey is a candidate's place in the lists it is ranked from, and its
// rank.
type rankKey = scored[int32]

// compare orders two keys of candidates of cs.
func (o order) compare(cs [2][]candidate, a, b *rankKey) int {
	if c := a.compare(&b.rank); c != 0 {
		return c
	}
	return o.entries(of(cs, int(a.entry)), of(cs, int(b.entry)))
}

// sorted is the keys of the candidates of cs whose places are in places
// (every one when nil) that o admits given rel, sorted. It sorts small
// keys, not the candidates (large to move, and scattered).
func (o order) sorted(cs [2][]candidate, rel map[string]float64, places []int32) []rankKey {
	keys := make([]rankKey, 0, len(places))
	add := func(i int32) {
		c := of(cs, int(i))
		if s, ok := o.score(c, rel); ok {
			keys = append(keys, rankKey{i, rank{s, int(c.tie), c.time, rel[c.path]}})
		}
	}
	if places == nil {
		keys = slices.Grow(keys, len(cs[0])+len(cs[1]))
		for i := range len(cs[0]) + len(cs[1]) {
			add(int32(i))
		}
	}
	for _, i := range places {
		add(i)
	}
	slices.SortFunc(keys, func(a, b rankKey) int { return o.compare(cs, &a, &b) })
	return keys
}

// candidates are a section's candidates as prime ranks them: in two
// lists, a shortlist's and those relevance alone brings in (cs), and when
// from a shortlist, its list's keys sorted as they rank without relevance
// (presorted: Shortlist sorts them while the search index is asked) and
// the places in it of those relevance lifts.
type candidates struct {
	cs        [2][]candidate
	presorted []rankKey
	lifted    []int32
}

// rank ranks cands given rel: with presorted keys, only the candidates
// relevance lifts (and cs[1]) are sorted, and merged in.
func (o order) rank(cands candidates, rel map[string]float64) ranking {
	cs := cands.cs
	if cands.presorted == nil {
		return rankingOf(cs, o.sorted(cs, rel, nil))
	}
	lifted := slices.Clone(cands.lifted)
	for i := range cs[1] {
		lifted = append(lifted, int32(len(cs[0])+i))
	}
	if len(lifted) == 0 {
		return rankingOf(cs, cands.presorted)
	}
	moved := make([]bool, len(cs[0]))
	for _, i := range cands.lifted {
		moved[i] = true
	}
	liftedKeys := o.sorted(cs, rel, lifted)
	// An entry relevance does not lift has none: its score is the
	// presorted one.
	r := ranking{cs: cs, order: make([]int32, 0, len(cands.presorted)+len(liftedKeys))}
	r.scores = make([]float64, 0, cap(r.order))
	add := func(k *rankKey) {
		r.order, r.scores = append(r.order, k.entry), append(r.scores, k.score)
	}
	for _, k := range cands.presorted {
		if moved[k.entry] {
			continue
		}
		for len(liftedKeys) > 0 && o.compare(cs, &liftedKeys[0], &k) < 0 {
			add(&liftedKeys[0])
			liftedKeys = liftedKeys[1:]
		}
		add(&k)
	}
	for i := range liftedKeys {
		add(&liftedKeys[i])
	}
	return r
}

// rankingOf is the ranking of cs in the order of keys.
func rankingOf(cs [2][]candidate, keys []rankKey) ranking {
	r := ranking{cs: cs, order: make([]int32, len(keys)), scores: make([]float64, len(keys))}
	for k, key := range keys {
		r.order[k], r.scores[k] = key.entry, key.score
	}
	return r
}

// seed004Relevance is seed 004's relevance of one of its learnings (one
// with a kind) to the task: confidence × 0.4 + a task-type match × 0.3 +
// success rate × 0.2 + recency × 0.1, recency falling from 1 to 0 over 90
// days (none without now). It adds to the task's score a learning
// already has: it orders the learnings that match, and brings in none.
func (c *candidate) seed004Relevance(now time.Time) float64 {
	if c.kind == 0 {
		return 0
	}
	r := c.confidence * 0.4
	if c.sameTaskType {
		r += 0.3
	}
	r += c.successRate * 0.2
	if created := entry.ParseTimestamp(c.order); !now.IsZero() && !created.IsZero() {
		r += max(0, 1-now.Sub(created).Hours()/(90*24)) * 0.1
	}
	return r
}

// examination is what a section's walk down its ranking found: the
// entries it kept (places in the ranking, in order, near-duplicates
// merged) and how many it examined.
type examination struct {
	kept     []int
	examined int
}

// leftOut is how many of n ranked entries a section showing shown of the
// kept ones leaves out: the kept ones not shown and those not examined.
func (x examination) leftOut(n, shown int) int { return len(x.kept) - shown + n - x.examined }

// examineKnowledge walks the ranked knowledge for a section of limit
// characters beside fixed ones (its heading): with a task, near-duplicates
// merged among the entries examined. It returns the walk and the places
// (in x.kept) of the entries shown.
func (pl *plan) examineKnowledge(limit, fixed, most int) (x examination, shown []int) {
	ranked, o := &pl.knowledge, int(pl.o)
	// An entry's block is at most the entry cap (capKnowledge), its
	// stale line included.
	size := func(k int) int {
		n := o + int(ranked.at(k).chars)
		if pl.flagged(ranked.at(k).path) {
			n += markRoom // the line itself is made only for an entry shown
		}
		return min(n, most)
	}
	merge := pl.in.Task.Given()
	dups := neardup.New()
	used, zone := fixed, -1 // zone: where the look-ahead ends, once the section is full
	lens := func() []int {
		out := make([]int, len(x.kept))
		for i, k := range x.kept {
			out[i] = size(k)
		}
		return out
	}
	for i := range ranked.len() {
		if zone >= 0 && i >= zone && used+min(o+int(ranked.at(i).chars), most) > limit {
			continue // past the look-ahead, no room even without a mark: not examined (nor flagged)
		}
		n := size(i)
		if zone >= 0 && i >= zone && used+n > limit {
			continue // past the look-ahead, no room: not examined
		}
		dup, text := -1, ""
		if merge {
			k := pl.read.knowledge(int(ranked.at(i).place))
			if k == nil {
				continue // unreadable: passed over
			}
			text = k.Title + "\n" + k.Body
			pl.compared++
			dup = dups.Of("", text)
		}
		x.examined++
		switch {
		case dup < 0:
			x.kept = append(x.kept, i)
			if merge {
				dups.Add("", text)
			}
			if used+n <= limit {
				used += n
			} else if zone < 0 {
				zone = i + 1 + nearDuplicateLookAhead
			}
		case ranked.at(i).time.after(ranked.at(x.kept[dup]).time):
			x.kept[dup] = i
			dups.Set(dup, "", text)
			used = fixed
			for _, k := range fit(lens(), fixed, limit) {
				used += size(x.kept[k])
			}
		}
	}
	return x, fit(lens(), fixed, limit)
}

// examineLearnings walks the ranked learnings for their section, which
// shows at most MaxLearnings: near-duplicates merged among the learnings
// examined, and seed 004's kinds taking turns (kindsTakeTurns). It returns
// the walk and the learnings kept, in the order shown.
func (pl *plan) examineLearnings() (examination, []entry.Learning) {
	var x examination
	ranked := &pl.learnings
	dups := neardup.New()
	var kept []entry.Learning
	var ofKind [1 << 8]int // how many of each kind (seed004Kind) were met
	zone := -1
	for i := range ranked.len() {
		kind := ranked.at(i).kind
		ofKind[kind]++
		if zone >= 0 && i >= zone && (kind == 0 || ofKind[kind] > MaxLearnings) {
			continue
		}
		l := pl.read.learning(int(ranked.at(i).place))
		if l == nil {
			continue // unreadable: passed over
		}
		x.examined++
		pl.compared++
		switch dup := dups.Of(l.Category, l.Body); {
		case dup < 0:
			x.kept, kept = append(x.kept, i), append(kept, *l)
			dups.Add(l.Category, l.Body)
			if len(kept) == MaxLearnings && zone < 0 {
				zone = i + 1 + nearDuplicateLookAhead
			}
		case ranked.at(i).time.after(ranked.at(x.kept[dup]).time):
			x.kept[dup], kept[dup] = i, *l
			dups.Set(dup, l.Category, l.Body)
		}
	}
	return x, kindsTakeTurns(kept)
}

// kindsTakeTurns reorders the seed-004 learnings of ranked (those with a
// kind) in the places they hold: the best of each kind first, in the
// order the kinds' best come, then each kind's second best, and so on.
// Seed 004 retrieves strategies, anti-patterns, estimates and conventions
// each for itself; without turns, one kind's many high-confidence
// learnings (conventions) would fill the few lines prime shows and leave
// out the one anti-pattern. Learnings without a kind keep their places.
func kindsTakeTurns(ranked []entry.Learning) []entry.Learning {
	var places []int
	turn := map[string]int{} // how many of each kind have been placed
	type placed struct {
		round, first int
		l            entry.Learning
	}
	firstOf := map[string]int{}
	var seed []placed
	for i, l := range ranked {
		if l.Kind == "" {
			continue
		}
		if _, ok := firstOf[l.Kind]; !ok {
			firstOf[l.Kind] = len(firstOf)
		}
		places = append(places, i)
		seed = append(seed, placed{turn[l.Kind], firstOf[l.Kind], l})
		turn[l.Kind]++
	}
	if len(firstOf) < 2 {
		return ranked
	}
	slices.SortStableFunc(seed, func(a, b placed) int {
		if a.round != b.round {
			return cmp.Compare(a.round, b.round)
		}
		return cmp.Compare(a.first, b.first)
	})
	for k, i := range places {
		ranked[i] = seed[k].l
	}
	return ranked
}

// knowledgeSection renders the knowledge that fits in limit characters:
// only the blocks shown are written.
func (pl *plan) knowledgeSection(limit, most int) part {
	o := pl.o
	head := o.knowledgeHead()
	x, shown := pl.examineKnowledge(limit, runeLen(head), most)
	leftOut := x.leftOut(pl.knowledge.len(), len(shown))
	if len(shown) == 0 {
		return part{omitted: leftOut}
	}
	var b strings.Builder
	b.WriteString(head)
	var keys []string
	for _, k := range shown {
		if e := pl.read.knowledge(int(pl.knowledge.at(x.kept[k]).place)); e != nil {
			mark := pl.mark(e.Path)
			b.WriteString("\n" + o.knowledgeBlock(o.capKnowledge(*e, most-runeLen(mark))) + mark)
			keys = append(keys, Key(entry.KindKnowledge, e.Slug))
		}
	}
	return part{md: b.String(), shown: len(keys), omitted: leftOut, keys: keys}
}

// learningsSection shows at most MaxLearnings learnings (seed 002), each
// no longer than the entry cap; the rest are left out by that cap, not
// the budget.
func (o outline) learningsSection(ls []entry.Learning, capped, limit, most int) part {
	ls = ls[:min(len(ls), MaxLearnings)]
	lines := learningLines(ls)
	for i, line := range lines {
		lines[i] = capLine(line, ls[i].ID, most)
	}
	p := fitSection(o.learningsHead(), lines, limit, func(i int) string { return Key(entry.KindLearning, ls[i].ID) })
	if capped > 0 {
		p.capped = capped
		p.capNote = fmt.Sprintf("%s beyond the %d prime shows", plural(capped, sectionNouns[SectionLearnings]), MaxLearnings)
	}
	return p
}
