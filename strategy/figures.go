package strategy

import (
	"lore/mdstore/entry"
)

// StuckThreshold is how many consecutive failures make a task stuck
// (seed 002).
const StuckThreshold = 3

// TaskStats are the per-task figures seed 002 keeps in its
// strategy_metrics table, derived from the journal instead of stored.
type TaskStats struct {
	TaskID              string `json:"task_id"`
	Attempts            int    `json:"attempts"`
	ConsecutiveFailures int    `json:"consecutive_failures"`
	LastAttemptAt       string `json:"last_attempt_at,omitempty"`
	LastSuccessAt       string `json:"last_success_at,omitempty"`
	Stuck               bool   `json:"stuck"`
	Difficulty          string `json:"difficulty,omitempty"`     // the latest estimate
	SucceededWith       string `json:"succeeded_with,omitempty"` // the model of the latest success, as its family
	LastOutcome         string `json:"last_outcome,omitempty"`
	// AgentErrors are the task's latest iterations, in a row, in which
	// the agent did not run to the end (entry.JournalEntry.AgentError):
	// no attempts, they are neither counted as attempts or failures nor
	// reset the failures; LastAgentError is the last one's why_failed.
	AgentErrors    int    `json:"agent_errors"`
	LastAgentError string `json:"last_agent_error,omitempty"`
}

// FailedOutcome reports whether an outcome counts as a failed attempt.
// done resets the count; interrupted (the person stopped the iteration)
// neither counts nor resets.
func FailedOutcome(outcome string) bool {
	return outcome == "failed" || outcome == "retried" || outcome == "blocked"
}

// Failed reports whether an iteration is a failed attempt at its task:
// a failed outcome that is not an agent error (the agent did not run to
// the end: a crash, a rate limit, an empty output), which is no attempt.
func Failed(e entry.JournalEntry) bool {
	return FailedOutcome(e.Outcome) && !e.AgentError()
}

// TaskFigures computes the figures of every task in the journal, in the
// order the attempts happened (creation time, then run and iteration).
// A model is counted as its family among models (config.yaml's; nil: the
// default ones), or as written when it is none of them.
func TaskFigures(entries []entry.JournalEntry, models []string) map[string]TaskStats {
	ordered := append([]entry.JournalEntry(nil), entries...)
	entry.SortChronological(ordered)
	stats := map[string]TaskStats{}
	for _, e := range ordered {
		if e.TaskID == "" {
			continue
		}
		s := stats[e.TaskID]
		s.TaskID = e.TaskID
		if e.AgentError() {
			s.AgentErrors++
			s.LastAgentError = e.Failure.WhyFailed
			stats[e.TaskID] = s
			continue
		}
		s.AgentErrors, s.LastAgentError = 0, ""
		s.Attempts++
		s.LastAttemptAt = e.CreatedAt
		s.LastOutcome = e.Outcome
		switch {
		case e.Outcome == "done":
			s.ConsecutiveFailures = 0
			s.LastSuccessAt = e.CreatedAt
			s.SucceededWith, _ = family(e.Model, models)
		case Failed(e):
			s.ConsecutiveFailures++
		}
		if e.Difficulty != "" {
			s.Difficulty = e.Difficulty
		}
		s.Stuck = s.ConsecutiveFailures >= StuckThreshold
		stats[e.TaskID] = s
	}
	return stats
}
