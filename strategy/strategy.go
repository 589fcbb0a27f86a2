// Package strategy is the loop intelligence of seed 002, derived from the
// journal instead of stored: how a task and the run are doing (Status)
// and which model the next iteration should use, and why (Select).
//
// # Models
//
// The strategies choose among the models the orchestrator has:
// config.yaml's "models", cheapest first (mdstore.Config.Models; haiku,
// sonnet, opus by default). Seed 002 speaks of three tiers, which map
// onto that list by position (TiersOf): haiku is the cheapest, the first;
// opus the strongest, the last; sonnet the middle one, the one at half
// the list's length. So [gpt-4o-mini, gpt-4o] has gpt-4o-mini as the
// cheapest and gpt-4o as both the middle and the strongest, and a list of
// one model always chooses it. A model read from the journal — an
// iteration's model, the agent's <next-model> — counts as its family
// (mdstore.ModelFamily: claude-sonnet-4-5-20250929 is sonnet); a hint
// that is none of the configured models is ignored, so Select never
// recommends a model the orchestrator does not have.
package strategy

import (
	"fmt"
	"math"
	"time"

	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// Kind names a model selection strategy.
type Kind string

// The strategies of seed 002.
const (
	CostOptimized Kind = "cost-optimized" // sonnet; opus after 2 failures; haiku when all goes well
	Escalate      Kind = "escalate"       // haiku → sonnet → opus with each failure
	Fixed         Kind = "fixed"          // always the same model
)

// Kinds lists the strategies.
var Kinds = []Kind{CostOptimized, Escalate, Fixed}

// ParseKind reads a strategy name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown strategy %q (want cost-optimized, escalate or fixed)", s)
}

// The default models, cheapest first (mdstore.DefaultModels): the tiers
// seed 002's strategies are written in.
const (
	Haiku  = "haiku"
	Sonnet = "sonnet"
	Opus   = "opus"
)

// EscalateAfter is how many consecutive failures make the cost-optimized
// strategy move to the strongest model (seed 002).
const EscalateAfter = 2

// CheapAbove is the recent success rate above which, with no failure, the
// cost-optimized strategy picks the cheapest model.
const CheapAbove = 0.8

// RunWindow bounds "the current run" when no run id is known: the
// iterations of the last two hours before the latest one (seed 002).
const RunWindow = 2 * time.Hour

// Run is how the iterations of the current run went.
type Run struct {
	ID        string `json:"run_id,omitempty"`
	Total     int    `json:"iterations"` // the attempts: agent errors and unreported iterations left out
	Successes int    `json:"successes"`
	Failures  int    `json:"failures"`
	// AgentErrors are the iterations in which the agent did not run to
	// the end (entry.JournalEntry.AgentError); AgentErrorsInARow the
	// latest of them in a row, and LastAgentError the last one's
	// why_failed.
	AgentErrors       int    `json:"agent_errors"`
	AgentErrorsInARow int    `json:"agent_errors_in_a_row"`
	LastAgentError    string `json:"last_agent_error,omitempty"`
	// Unreported are the iterations whose agent said nothing of how its
	// task went (no sigil, no progress entry): neither successes nor
	// failures.
	Unreported int `json:"unreported,omitempty"`
}

// SuccessPercent is the share of iterations that succeeded, rounded.
func (r Run) SuccessPercent() int {
	if r.Total == 0 {
		return 0
	}
	return int(math.Round(100 * float64(r.Successes) / float64(r.Total)))
}

// RunOf counts the iterations of run id; with id "", those of the RunWindow
// before the latest entry.
func RunOf(entries []entry.JournalEntry, id string) Run {
	r := Run{ID: id}
	var latest time.Time
	if id == "" {
		for _, e := range entries {
			if t := entry.ParseTimestamp(e.CreatedAt); t.After(latest) {
				latest = t
			}
		}
	}
	var in []entry.JournalEntry
	for _, e := range entries {
		if id != "" && e.RunID != id {
			continue
		}
		if id == "" && (latest.IsZero() || entry.ParseTimestamp(e.CreatedAt).Before(latest.Add(-RunWindow))) {
			continue
		}
		in = append(in, e)
	}
	entry.SortChronological(in)
	for _, e := range in {
		if e.AgentError() {
			r.AgentErrors++
			r.AgentErrorsInARow++
			r.LastAgentError = e.Failure.WhyFailed
			continue
		}
		r.AgentErrorsInARow, r.LastAgentError = 0, ""
		if e.Outcome == "unreported" {
			r.Unreported++
			continue
		}
		r.Total++
		switch {
		case e.Outcome == "done":
			r.Successes++
		case Failed(e):
			r.Failures++
		}
	}
	return r
}

// Tiers are the three models the strategies speak of, taken from a list
// of models, cheapest first.
type Tiers struct {
	Cheapest  string // haiku's place
	Middle    string // sonnet's place
	Strongest string // opus's place
}

// TiersOf maps the tiers onto models, cheapest first (nil or empty: the
// default models): the cheapest is the first, the strongest the last,
// the middle one the one at len(models)/2.
func TiersOf(models []string) Tiers {
	if len(models) == 0 {
		models = config.DefaultModels()
	}
	return Tiers{Cheapest: models[0], Middle: models[len(models)/2], Strongest: models[len(models)-1]}
}

// family is the configured model that name is (mdstore.ModelFamily);
// a name that is none of them is returned as written, with ok false.
func family(name string, models []string) (string, bool) {
	if len(models) == 0 {
		models = config.DefaultModels()
	}
	if f, ok := config.ModelFamily(name, models); ok {
		return f, true
	}
	return name, false
}

// Choice is a model and the reason it was chosen, in seed 002's words.
type Choice struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// Select picks the model for the next attempt at a task among models
// (config.yaml's, cheapest first; nil: the default ones). A hint (the
// agent's <next-model>, or one given by the orchestrator) that is one of
// them wins, as its family; one that is not is ignored. Otherwise the
// strategy chooses a tier (TiersOf); Fixed is always the middle one.
func Select(k Kind, task TaskStats, run Run, hint string, models []string) Choice {
	if m, ok := family(hint, models); ok {
		return Choice{m, "hinted by previous iteration"}
	}
	tiers := TiersOf(models)
	failures := task.ConsecutiveFailures
	switch k {
	case Escalate:
		switch {
		case failures == 0:
			return Choice{tiers.Cheapest, "default, escalate strategy"}
		case failures == 1:
			return Choice{tiers.Middle, "escalated after 1 failure"}
		default:
			return Choice{tiers.Strongest, fmt.Sprintf("escalated after %d failures", failures)}
		}
	case Fixed:
		return Choice{tiers.Middle, "fixed strategy"}
	}
	switch {
	case failures >= EscalateAfter:
		return Choice{tiers.Strongest, fmt.Sprintf("escalated after %d consecutive failures", failures)}
	case failures == 0 && run.Total > 0 && run.Failures == 0 && float64(run.Successes)/float64(run.Total) > CheapAbove:
		return Choice{tiers.Cheapest, fmt.Sprintf("recent success rate %d%% with no failures, cost-optimized strategy", run.SuccessPercent())}
	}
	return Choice{tiers.Middle, "default, cost-optimized strategy"}
}

// Status is the Loop Status of seed 002: where the loop is, how the task
// and the run are doing, and the model for the next attempt.
type Status struct {
	Iteration int       `json:"iteration"`
	Limit     int       `json:"limit"` // 0: unlimited
	Task      TaskStats `json:"task"`
	Attempt   int       `json:"attempt"` // the number of the coming attempt
	Run       Run       `json:"run"`
	Model     Choice    `json:"model"`
	Stuck     bool      `json:"stuck"`
}

// Input is what Compute needs beyond the journal.
type Input struct {
	TaskID    string
	Run       string // the run id; "" for the last RunWindow
	Iteration int    // 0: the run's next one
	Limit     int
	Strategy  Kind   // "" is CostOptimized
	Hint      string // a model asked for by the orchestrator
	Model     string // the model the orchestrator will use ("" to choose)
	// Models are the models to choose among, cheapest first:
	// config.yaml's (mdstore.Config.Models); nil means the default ones.
	Models []string
}

// Compute derives the loop status from the journal.
func Compute(entries []entry.JournalEntry, in Input) Status {
	st := Status{Limit: in.Limit, Run: RunOf(entries, in.Run)}
	attempts := Attempts(entries, in.TaskID)
	if in.TaskID != "" {
		st.Task = TaskFigures(attempts, in.Models)[in.TaskID]
		st.Task.TaskID = in.TaskID
	}
	st.Attempt = st.Task.Attempts + 1
	st.Stuck = st.Task.Stuck
	st.Iteration = in.Iteration
	if st.Iteration == 0 {
		st.Iteration = nextIteration(entries, in.Run, st.Run)
	}
	hint := in.Hint
	if hint == "" && len(attempts) > 0 {
		// The agent's <next-model> in the task's last attempt; Select
		// ignores one that is not a configured model (an entry from
		// before the check, or a name config.yaml no longer lists).
		hint = attempts[len(attempts)-1].NextModel
	}
	switch {
	case in.Model != "":
		st.Model = Choice{in.Model, "chosen by the orchestrator"}
	default:
		st.Model = Select(in.Strategy, st.Task, st.Run, hint, in.Models)
	}
	return st
}

// nextIteration is the number of a run's next iteration: one after its
// highest (two branches that continued the run each recorded theirs, so
// there may be more entries than numbers), as lore journal add numbers
// it; without a run id, one after the iterations of the RunWindow.
func nextIteration(entries []entry.JournalEntry, id string, run Run) int {
	if id == "" {
		return run.Total + run.AgentErrors + 1
	}
	highest := 0
	for _, e := range entries {
		if e.RunID == id {
			highest = max(highest, e.Iteration)
		}
	}
	return highest + 1
}

// Attempts returns the journal entries of a task, oldest first.
func Attempts(entries []entry.JournalEntry, taskID string) []entry.JournalEntry {
	if taskID == "" {
		return nil
	}
	var out []entry.JournalEntry
	for _, e := range entries {
		if e.TaskID == taskID {
			out = append(out, e)
		}
	}
	entry.SortChronological(out)
	return out
}
