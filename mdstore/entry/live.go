package entry

import "lore/internal/neardup"

// LiveLearnings are the learnings a new one may duplicate — the active
// and staged ones — oldest first, filed for seed 002's near-duplicate
// check (Duplicates).
type LiveLearnings struct {
	Learnings []Learning
	dups      *neardup.Duplicates
}

// IsLive reports whether a learning may be duplicated: active or staged.
func IsLive(l *Learning) bool { return l.Status == "active" || l.Status == "staged" }

// NewLiveLearnings files the live learnings of ls; asked are the bodies
// that will be asked about, whose words order the filing.
func NewLiveLearnings(ls []Learning, asked []string) *LiveLearnings {
	live := &LiveLearnings{}
	for i := range ls {
		if IsLive(&ls[i]) {
			live.Learnings = append(live.Learnings, ls[i])
		}
	}
	SortLearnings(live.Learnings) // the Duplicates answer the first filed
	bodies := append([]string{}, asked...)
	for _, l := range live.Learnings {
		bodies = append(bodies, l.Body)
	}
	live.dups = neardup.New(bodies...)
	for _, l := range live.Learnings {
		live.dups.Add(l.Category, l.Body)
	}
	return live
}

// DuplicateOf is the oldest live learning that one of this category and
// body nearly duplicates (seed 002: the same category, more than 80% of
// the words shared), and whether there is one.
func (l *LiveLearnings) DuplicateOf(category, body string) (Learning, bool) {
	if i := l.dups.Of(category, body); i >= 0 {
		return l.Learnings[i], true
	}
	return Learning{}, false
}
