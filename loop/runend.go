package loop

import (
	"fmt"
	"time"

	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
	"lore/prompt"
	"lore/usagelog"
)

// RunEnd is what the end of a run did: seed 004's extraction and
// promotion (with learnings.auto_promote) and seed 002's pruning.
type RunEnd struct {
	Extracted []lifecycle.Extracted
	Promoted  []lifecycle.Promotion
	Pruned    []lifecycle.PrunedEntry
}

// EndRun does what the end of run does, each step its own commit: with
// learnings.auto_promote, run's learnings extracted (objective names its
// task type; "" guesses it) and every staged learning validated; then a
// prune with config.yaml's thresholds. lore ingest --run-end and lore run
// --run-end call it.
func EndRun(s *mdstore.Store, run, objective string, r Reporter) (*RunEnd, error) {
	end := &RunEnd{}
	if s.Config().AutoPromote {
		extraction, err := lifecycle.PlanExtraction(s, run, objective)
		xr, err := apply(s, extraction, err)
		if err != nil {
			return end, fmt.Errorf("extracting the run's learnings failed: %w", err)
		}
		end.Extracted = extraction.Learnings
		ReportWrite(r, xr, "Extraction from", run)
		promotion, err := lifecycle.PlanPromotion(s, nil)
		pr, err := apply(s, promotion, err)
		if err != nil {
			return end, fmt.Errorf("promoting the staged learnings failed: %w", err)
		}
		end.Promoted = promotion.Promotions
		ReportWrite(r, pr, "Promotion of learnings", "")
	}
	plan, err := PlanPrune(s, PruneRequest{}, r)
	pr, err := apply(s, plan, err)
	if err != nil {
		return end, fmt.Errorf("pruning at the run's end failed: %w", err)
	}
	end.Pruned = plan.Entries
	ReportWrite(r, pr, "Prune", "")
	return end, nil
}

// PruneRequest says how to prune beyond config.yaml's prune block.
type PruneRequest struct {
	// OlderThan, when set, is one age for every rule.
	OlderThan time.Duration
	// Hard removes a done task's failed iterations rather than their
	// failure reports.
	Hard bool
}

// PlanPrune plans a prune of s with config.yaml's thresholds, judging
// which learnings are used from the clone's usage log; it says when the
// log has not watched long enough to judge any unused.
func PlanPrune(s *mdstore.Store, req PruneRequest, r Reporter) (*lifecycle.PrunePlan, error) {
	last := map[string]time.Time{}
	log := usagelog.Open(s.StateDir())
	stats, _ := log.Read()
	for _, st := range stats {
		last[st.Key] = st.Last
	}
	opts := lifecycle.PruneOptions{
		Now: s.Now(), Config: s.Config().Prune, OlderThan: req.OlderThan, Hard: req.Hard, UsageSince: log.Since(stats),
		LastUsed: func(kind entry.Kind, id string) (time.Time, bool) {
			t, ok := last[prompt.Key(kind, id)]
			return t, ok
		},
	}
	if !opts.UsageWatched() {
		began := "has recorded nothing yet"
		if !opts.UsageSince.IsZero() {
			began = "began on " + opts.UsageSince.Format(time.DateOnly)
		}
		r.Notice(fmt.Sprintf("learnings are not judged unused yet: this clone's usage log %s, and says what is not used only after %d days (prune.recent_use_days)",
			began, opts.Config.RecentUseDays))
	}
	return lifecycle.PlanPrune(s, opts)
}

// apply applies a plan of mdstore/lifecycle's that was made without
// error (err, which it returns otherwise).
func apply[P interface {
	Apply(*mdstore.Store) (*mdstore.WriteResult, error)
}](s *mdstore.Store, plan P, err error) (*mdstore.WriteResult, error) {
	if err != nil {
		return nil, err
	}
	return plan.Apply(s)
}
