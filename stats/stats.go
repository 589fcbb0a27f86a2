// Package stats describes a store as a whole for lore stats: how many
// entries of each kind, type, category, status and seed-004 kind; seed
// 004's confidence and success rates; the store's size on disk and in
// prime's tokens; what each run added; the entries no prime has used;
// and the runs' success rate.
package stats

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"lore/mdstore"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/usagelog"
)

// Report is lore stats' answer.
type Report struct {
	Memories  Group `json:"memories"`  // by type
	Knowledge int   `json:"knowledge"` // entries
	// Learnings by status ("superseded" for those another replaced,
	// whatever their status); those of the statuses asked for (active
	// by default) by category, seed 004's kind and task type, with their
	// mean confidence and success rate.
	Learnings        int      `json:"learnings"`
	LearningStatus   Counts   `json:"learning_status"`
	LearningCategory Counts   `json:"learning_category"`
	LearningKind     Counts   `json:"learning_kind,omitempty"`
	TaskTypes        Counts   `json:"task_type,omitempty"`
	AvgConfidence    *float64 `json:"avg_confidence,omitempty"`
	AvgSuccessRate   *float64 `json:"avg_success_rate,omitempty"`
	Journal          int      `json:"journal"` // iterations
	Skills           int      `json:"skills"`
	// Bytes is the size of the store's files on disk; Tokens what their
	// entries would cost in a prime, at prompt.CharsPerToken.
	Bytes  int64 `json:"bytes"`
	Tokens int   `json:"tokens"`
	// NeverUsed counts the entries prime could show that no prime or show
	// has put before an agent in this clone (usage.log).
	NeverUsed Counts `json:"never_used"`
	// Runs are the journal's runs, oldest first: their iterations, how
	// many ended done, and the entries created while they ran.
	Runs []Run `json:"runs"`
	// SuccessRate is the share of iterations that ended done.
	SuccessRate *float64 `json:"success_rate,omitempty"`
}

// Group is a total and its parts.
type Group struct {
	Total int    `json:"total"`
	By    Counts `json:"by_type,omitempty"`
}

// Counts counts by name.
type Counts map[string]int

// Run is one run of the journal.
type Run struct {
	ID         string    `json:"id"`
	Iterations int       `json:"iterations"`
	Done       int       `json:"done"`
	Added      int       `json:"added"` // knowledge and learnings created while it ran
	First      time.Time `json:"first"`
	Last       time.Time `json:"last"`
}

// Of describes store s, with the usage log of its clone; statuses are
// the learnings whose categories, kinds and means it counts (none: the
// active ones, as prime shows them).
func Of(s *mdstore.Store, statuses []string) (Report, []entry.Warning, error) {
	var r Report
	memories, warnings, err := s.Memories()
	if err != nil {
		return r, nil, err
	}
	entries, ws, err := s.Entries()
	if err != nil {
		return r, nil, err
	}
	warnings = append(warnings, ws...)
	skills, ws, err := s.Skills()
	if err != nil {
		return r, nil, err
	}
	warnings = append(warnings, ws...)
	used := map[string]bool{}
	if log, err := usagelog.Open(s.StateDir()).Read(); err == nil {
		for _, st := range log {
			used[st.Key] = true
		}
	}
	r.NeverUsed = Counts{}
	chars := 0
	never := func(kind entry.Kind, id string) {
		if !used[prompt.Key(kind, id)] {
			r.NeverUsed[string(kind)]++
		}
	}

	r.Memories = Group{Total: len(memories), By: Counts{}}
	for _, m := range memories {
		r.Memories.By[string(m.Type)]++
		chars += len(m.Content)
		never(entry.KindMemory, m.ID)
	}
	r.Knowledge = len(entries.Knowledge)
	for _, k := range entries.Knowledge {
		chars += len(k.Title) + len(k.Body)
		never(entry.KindKnowledge, k.Slug)
	}
	r.Learnings = len(entries.Learnings)
	r.LearningStatus, r.LearningCategory, r.LearningKind, r.TaskTypes = Counts{}, Counts{}, Counts{}, Counts{}
	var conf, rate []float64
	for i := range entries.Learnings {
		l := &entries.Learnings[i]
		switch {
		case l.SupersededBy != "":
			r.LearningStatus["superseded"]++
		default:
			r.LearningStatus[l.Status]++
		}
		if l.Shown() {
			chars += len(l.Body)
			never(entry.KindLearning, l.ID)
		}
		if !entry.Wanted(statuses, l.State()) {
			continue
		}
		r.LearningCategory[l.Category]++
		if l.Kind != "" {
			r.LearningKind[l.Kind]++
		}
		if l.TaskType != "" {
			r.TaskTypes[l.TaskType]++
		}
		if l.Confidence != nil {
			conf = append(conf, *l.Confidence)
		}
		if l.SuccessRate != nil {
			rate = append(rate, *l.SuccessRate)
		}
	}
	r.AvgConfidence, r.AvgSuccessRate = mean(conf), mean(rate)
	r.Journal = len(entries.Journal)
	r.Skills = len(skills)
	for _, sk := range skills {
		chars += len(sk.Name) + len(sk.Description)
	}
	r.Tokens = (chars + prompt.CharsPerToken - 1) / prompt.CharsPerToken
	r.Bytes = diskSize(filepath.Join(s.Root(), entry.Dir))
	r.Runs, r.SuccessRate = runs(entries)
	return r, warnings, nil
}

// runs groups the journal by run, oldest first, and counts the
// knowledge and learnings created between each run's first and last
// iteration.
func runs(e catalog.Entries) ([]Run, *float64) {
	byID := map[string]*Run{}
	var order []*Run
	done, total := 0, 0
	for _, j := range e.Journal {
		r := byID[j.RunID]
		if r == nil {
			r = &Run{ID: j.RunID}
			byID[j.RunID] = r
			order = append(order, r)
		}
		r.Iterations++
		total++
		if j.Outcome == "done" {
			r.Done++
			done++
		}
		if t := entry.ParseTimestamp(j.CreatedAt); !t.IsZero() {
			if r.First.IsZero() || t.Before(r.First) {
				r.First = t
			}
			if t.After(r.Last) {
				r.Last = t
			}
		}
	}
	added := func(created string) {
		t := entry.ParseTimestamp(created)
		if t.IsZero() {
			return
		}
		for _, r := range order {
			if !r.First.IsZero() && !t.Before(r.First) && !t.After(r.Last) {
				r.Added++
				return
			}
		}
	}
	for _, k := range e.Knowledge {
		added(k.CreatedAt)
	}
	for _, l := range e.Learnings {
		added(l.CreatedAt)
	}
	out := make([]Run, len(order))
	for i, r := range order {
		out[i] = *r
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].First.Before(out[j].First) })
	if total == 0 {
		return out, nil
	}
	rate := float64(done) / float64(total)
	return out, &rate
}

func mean(v []float64) *float64 {
	if len(v) == 0 {
		return nil
	}
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	m := sum / float64(len(v))
	return &m
}

// diskSize sums the sizes of the regular files under dir, links not
// followed.
func diskSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	if _, err := os.Lstat(dir); err != nil {
		return 0
	}
	return n
}
