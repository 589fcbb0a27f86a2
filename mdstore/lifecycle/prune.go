package lifecycle

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"
)

// Pruning (seed 002's table, on files): what no iteration needs any more
// leaves what prime and search show, as one commit, and stays in git's
// history (lore restore brings it back).
//
//   - a learning older than prune.unused_learning_days (90) that no prime
//     or show has put before an agent in prune.recent_use_days (30), or
//     ever, is given the status pruned;
//   - a learning superseded and older than prune.superseded_after_days
//     (30) is given the status pruned;
//   - a failed iteration of a task that is done, older than
//     prune.failures_after_days (7), loses its failure report (the
//     iteration stays; with Hard its file is removed).

// PruneOptions say what to prune from.
type PruneOptions struct {
	Now time.Time
	// Config is the thresholds; OlderThan, when set, replaces each age in
	// it.
	Config    config.PruneConfig
	OlderThan time.Duration
	// LastUsed says when an entry was last put before an agent (the usage
	// log); ok false when never.
	LastUsed func(kind entry.Kind, id string) (last time.Time, ok bool)
	// UsageSince is when the usage log began (zero: it has recorded
	// nothing). Learnings are judged unused only once the log has watched
	// for prune.recent_use_days: a fresh clone, or a CI checkout, has seen
	// nothing used and must not prune what its team uses.
	UsageSince time.Time
	// Hard removes a failed iteration's file rather than its report.
	Hard bool
}

// UsageWatched says whether the usage log has watched long enough
// (Config.RecentUseDays since UsageSince) to say which learnings are not
// used.
func (o PruneOptions) UsageWatched() bool {
	return !o.UsageSince.IsZero() && o.Now.Sub(o.UsageSince) >= time.Duration(o.Config.RecentUseDays)*24*time.Hour
}

// PrunedEntry is one entry a prune changed, and why.
type PrunedEntry struct {
	Kind   entry.Kind `json:"kind"`
	ID     string     `json:"id"`
	Path   string     `json:"path"`
	Action string     `json:"action"` // "status pruned", "failure report trimmed", "removed"
	Why    string     `json:"why"`
}

// PrunePlan is what a prune takes out: each entry, what is done to it,
// and why.
type PrunePlan struct {
	Entries []PrunedEntry
}

// PlanPrune decides what to prune, as opts say, from the entries the
// store holds; it changes nothing (lore prune --dry-run prints the plan).
func PlanPrune(s *mdstore.Store, opts PruneOptions) (*PrunePlan, error) {
	cfg := opts.Config
	days := func(n int) time.Duration {
		if opts.OlderThan > 0 {
			return opts.OlderThan
		}
		return time.Duration(n) * 24 * time.Hour
	}
	older := func(created string, d time.Duration) bool {
		t := entry.ParseTimestamp(created)
		return !t.IsZero() && opts.Now.Sub(t) > d
	}
	entries, _, err := s.Entries()
	if err != nil {
		return nil, err
	}
	var out []PrunedEntry
	watched := opts.UsageWatched()
	for i := range entries.Learnings {
		l := &entries.Learnings[i]
		if l.Status == "pruned" {
			continue
		}
		switch {
		case l.SupersededBy != "" && older(l.CreatedAt, days(cfg.SupersededAfterDays)):
			out = append(out, PrunedEntry{entry.KindLearning, l.ID, l.Path, "status pruned", "superseded by " + l.SupersededBy})
		case l.Shown() && older(l.CreatedAt, days(cfg.UnusedLearningDays)) && watched:
			last, used := time.Time{}, false
			if opts.LastUsed != nil {
				last, used = opts.LastUsed(entry.KindLearning, l.ID)
			}
			recent := time.Duration(cfg.RecentUseDays) * 24 * time.Hour
			switch {
			case !used:
				out = append(out, PrunedEntry{entry.KindLearning, l.ID, l.Path, "status pruned", "never used"})
			case opts.Now.Sub(last) > recent:
				out = append(out, PrunedEntry{entry.KindLearning, l.ID, l.Path, "status pruned", "last used " + last.UTC().Format(time.DateOnly)})
			}
		}
	}
	done := map[string]bool{}
	for _, j := range entries.Journal {
		if j.Outcome == "done" && j.TaskID != "" {
			done[j.TaskID] = true
		}
	}
	for _, j := range entries.Journal {
		if j.Outcome == "done" || !done[j.TaskID] || !older(j.CreatedAt, days(cfg.FailuresAfterDays)) {
			continue
		}
		why := "task " + j.TaskID + " is done"
		switch {
		case opts.Hard:
			out = append(out, PrunedEntry{entry.KindJournal, j.Key(), j.Path, "removed", why})
		case j.Failure != nil:
			out = append(out, PrunedEntry{entry.KindJournal, j.Key(), j.Path, "failure report trimmed", why})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return &PrunePlan{Entries: out}, nil
}

// Apply prunes the plan's entries as one commit whose body lists each;
// the result is nil when the plan is empty. An entry changed or removed
// since the plan was made is left as it is (a fields edit of a file that
// is gone changes nothing).
func (plan *PrunePlan) Apply(s *mdstore.Store) (*mdstore.WriteResult, error) {
	out := plan.Entries
	if len(out) == 0 {
		return nil, nil
	}
	return s.Write(func(tx *mdstore.Tx) error {
		var body []string
		for _, p := range out {
			switch p.Action {
			case "status pruned":
				tx.Apply(mdstore.Edit{Path: p.Path, Op: mdstore.OpFields, Fields: []entry.FrontmatterField{{Key: "status", Value: "pruned"}, {Key: "status_reason", Value: yamlfm.Quote("pruned: " + p.Why)}}})
			case "failure report trimmed":
				tx.Apply(mdstore.Edit{Path: p.Path, Op: mdstore.OpFields, Fields: []entry.FrontmatterField{{Key: "failure", Value: ""}}})
			case "removed":
				tx.Apply(mdstore.Edit{Path: p.Path, Op: mdstore.OpRemove})
			}
			body = append(body, fmt.Sprintf("- %s %s: %s (%s)", p.Kind, p.ID, p.Action, p.Why))
		}
		tx.SetMessage(mdstore.CommitMessage(fmt.Sprintf("lore: prune %d %s", len(out), words.Plural(len(out), "entry", "entries")), strings.Join(body, "\n"), "Lore-Kind", "prune"))
		return nil
	})
}
