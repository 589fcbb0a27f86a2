package strategy

import (
	"testing"

	"lore/mdstore/entry"
)

func TestSelect(t *testing.T) {
	calm := Run{Total: 10, Successes: 9, Failures: 0}
	rough := Run{Total: 10, Successes: 6, Failures: 3}
	cases := []struct {
		kind     Kind
		failures int
		run      Run
		hint     string
		want     Choice
	}{
		{CostOptimized, 0, rough, "", Choice{Sonnet, "default, cost-optimized strategy"}},
		{CostOptimized, 1, rough, "", Choice{Sonnet, "default, cost-optimized strategy"}},
		{CostOptimized, 2, rough, "", Choice{Opus, "escalated after 2 consecutive failures"}},
		{CostOptimized, 0, calm, "", Choice{Haiku, "recent success rate 90% with no failures, cost-optimized strategy"}},
		{CostOptimized, 0, Run{Total: 5, Successes: 4}, "", Choice{Sonnet, "default, cost-optimized strategy"}}, // 80% is not over 80%
		{CostOptimized, 3, calm, "sonnet", Choice{Sonnet, "hinted by previous iteration"}},
		{Escalate, 0, rough, "", Choice{Haiku, "default, escalate strategy"}},
		{Escalate, 1, rough, "", Choice{Sonnet, "escalated after 1 failure"}},
		{Escalate, 4, rough, "", Choice{Opus, "escalated after 4 failures"}},
		{Fixed, 4, rough, "", Choice{Sonnet, "fixed strategy"}},
	}
	for _, c := range cases {
		got := Select(c.kind, TaskStats{ConsecutiveFailures: c.failures}, c.run, c.hint, nil)
		if got != c.want {
			t.Errorf("Select(%s, %d failures, %+v, hint %q) = %+v, want %+v", c.kind, c.failures, c.run, c.hint, got, c.want)
		}
	}
}

func TestComputeStatus(t *testing.T) {
	entries := []entry.JournalEntry{
		{RunID: "r1", Iteration: 1, TaskID: "a", Outcome: "done", CreatedAt: "2026-03-01T08:00:00Z"},
		{RunID: "r1", Iteration: 2, TaskID: "b", Outcome: "failed", CreatedAt: "2026-03-01T08:10:00Z"},
		{RunID: "r1", Iteration: 3, TaskID: "b", Outcome: "failed", CreatedAt: "2026-03-01T08:20:00Z"},
		{RunID: "r1", Iteration: 4, TaskID: "b", Outcome: "blocked", NextModel: "opus", CreatedAt: "2026-03-01T08:30:00Z"},
		{RunID: "r0", Iteration: 1, TaskID: "b", Outcome: "done", CreatedAt: "2026-02-01T08:00:00Z"},
	}
	st := Compute(entries, Input{TaskID: "b", Run: "r1", Limit: 20})
	if st.Attempt != 5 || st.Task.ConsecutiveFailures != 3 || !st.Stuck || st.Iteration != 5 {
		t.Errorf("status %+v: want attempt 5, 3 failures, stuck, iteration 5", st)
	}
	if st.Run != (Run{ID: "r1", Total: 4, Successes: 1, Failures: 3}) {
		t.Errorf("run figures %+v", st.Run)
	}
	if st.Model != (Choice{Opus, "hinted by previous iteration"}) {
		t.Errorf("model %+v: the <next-model> of the last attempt wins", st.Model)
	}
	// Without a run id, the run is the two hours before the latest entry.
	if r := RunOf(entries, ""); r.Total != 4 {
		t.Errorf("window run %+v, want the 4 entries of the last two hours", r)
	}
	if st := Compute(entries, Input{TaskID: "b", Model: "haiku"}); st.Model.Reason != "chosen by the orchestrator" {
		t.Errorf("an orchestrator's model is reported as such: %+v", st.Model)
	}
}

// Two branches that continued run r1 each recorded iterations 2 and 3;
// merged, the run has five entries but its next iteration is 4, as lore
// journal add numbers it, and the task's figures follow the attempts in
// the order they happened, across both branches.
func TestComputeStatusOfARunTwoBranchesContinued(t *testing.T) {
	entries := []entry.JournalEntry{
		{RunID: "r1", Iteration: 1, TaskID: "a", Outcome: "done", CreatedAt: "2026-03-01T08:00:00Z", Path: ".agent/journal/r1/0001.md"},
		{RunID: "r1", Iteration: 2, TaskID: "b", Outcome: "failed", CreatedAt: "2026-03-01T08:10:00Z", Path: ".agent/journal/r1/0002-aaaaaa.md"},
		{RunID: "r1", Iteration: 2, TaskID: "b", Outcome: "failed", CreatedAt: "2026-03-01T08:12:00Z", Path: ".agent/journal/r1/0002-bbbbbb.md"},
		{RunID: "r1", Iteration: 3, TaskID: "b", Outcome: "done", CreatedAt: "2026-03-01T08:20:00Z", Path: ".agent/journal/r1/0003-aaaaaa.md"},
		{RunID: "r1", Iteration: 3, TaskID: "b", Outcome: "failed", CreatedAt: "2026-03-01T08:25:00Z", Path: ".agent/journal/r1/0003-bbbbbb.md"},
	}
	st := Compute(entries, Input{TaskID: "b", Run: "r1"})
	if st.Iteration != 4 || st.Run.Total != 5 || st.Task.Attempts != 4 || st.Task.ConsecutiveFailures != 1 || st.Stuck {
		t.Errorf("status %+v: want iteration 4 of 5 entries, 4 attempts, 1 failure since the success", st)
	}
}

// The strategies choose only among config.yaml's models: the tiers map
// onto the list by position, a hint counts as its family, and a hint that
// is none of the models is ignored.
func TestSelectAmongConfiguredModels(t *testing.T) {
	rough := Run{Total: 10, Successes: 6, Failures: 3}
	calm := Run{Total: 10, Successes: 9}
	openai := []string{"gpt-4o-mini", "gpt-4o"}
	five := []string{"m1", "m2", "m3", "m4", "m5"}
	cases := []struct {
		kind     Kind
		failures int
		run      Run
		hint     string
		models   []string
		want     Choice
	}{
		{CostOptimized, 0, rough, "claude-opus-4-1", nil, Choice{Opus, "hinted by previous iteration"}},
		{CostOptimized, 0, rough, "us.anthropic.claude-3-7-sonnet-20250219-v1:0", nil, Choice{Sonnet, "hinted by previous iteration"}},
		{CostOptimized, 2, rough, "gpt-5", nil, Choice{Opus, "escalated after 2 consecutive failures"}}, // not a model: ignored
		{CostOptimized, 0, rough, "", openai, Choice{"gpt-4o", "default, cost-optimized strategy"}},
		{CostOptimized, 0, calm, "", openai, Choice{"gpt-4o-mini", "recent success rate 90% with no failures, cost-optimized strategy"}},
		{CostOptimized, 2, rough, "", openai, Choice{"gpt-4o", "escalated after 2 consecutive failures"}},
		{CostOptimized, 0, rough, "opus", openai, Choice{"gpt-4o", "default, cost-optimized strategy"}}, // opus is not in the list
		{CostOptimized, 0, rough, "gpt-4o-mini-2024-07-18", openai, Choice{"gpt-4o-mini", "hinted by previous iteration"}},
		{Escalate, 0, rough, "", openai, Choice{"gpt-4o-mini", "default, escalate strategy"}},
		{Escalate, 1, rough, "", openai, Choice{"gpt-4o", "escalated after 1 failure"}},
		{Escalate, 3, rough, "", openai, Choice{"gpt-4o", "escalated after 3 failures"}},
		{Fixed, 0, rough, "", openai, Choice{"gpt-4o", "fixed strategy"}},
		{Escalate, 0, rough, "", five, Choice{"m1", "default, escalate strategy"}},
		{Escalate, 1, rough, "", five, Choice{"m3", "escalated after 1 failure"}},
		{Escalate, 2, rough, "", five, Choice{"m5", "escalated after 2 failures"}},
		{Escalate, 2, rough, "", []string{"only"}, Choice{"only", "escalated after 2 failures"}},
	}
	for _, c := range cases {
		got := Select(c.kind, TaskStats{ConsecutiveFailures: c.failures}, c.run, c.hint, c.models)
		if got != c.want {
			t.Errorf("Select(%s, %d failures, %+v, hint %q, %v) = %+v, want %+v", c.kind, c.failures, c.run, c.hint, c.models, got, c.want)
		}
	}
}

// The journal's models are counted as their families: a transcript's full
// model id, and the agent's <next-model> as written.
func TestComputeWithFullModelIDs(t *testing.T) {
	entries := []entry.JournalEntry{
		{RunID: "r1", Iteration: 1, TaskID: "a", Outcome: "done", Model: "claude-sonnet-4-5-20250929", CreatedAt: "2026-03-01T08:00:00Z"},
		{RunID: "r1", Iteration: 2, TaskID: "a", Outcome: "failed", Model: "claude-3-5-haiku-20241022", NextModel: "claude-opus-4-1", CreatedAt: "2026-03-01T08:10:00Z"},
		{RunID: "r1", Iteration: 3, TaskID: "b", Outcome: "failed", NextModel: "gpt-5", CreatedAt: "2026-03-01T08:20:00Z"}, // from before the check
	}
	st := Compute(entries, Input{TaskID: "a", Run: "r1"})
	if st.Task.SucceededWith != Sonnet || st.Model != (Choice{Opus, "hinted by previous iteration"}) {
		t.Errorf("succeeded with %q, model %+v: want sonnet, and opus as hinted", st.Task.SucceededWith, st.Model)
	}
	if st := Compute(entries, Input{TaskID: "b", Run: "r1"}); st.Model != (Choice{Sonnet, "default, cost-optimized strategy"}) {
		t.Errorf("an unknown <next-model> in the journal is ignored: %+v", st.Model)
	}
	openai := []string{"gpt-4o-mini", "gpt-4o"}
	st = Compute(entries, Input{TaskID: "a", Run: "r1", Models: openai})
	if st.Task.SucceededWith != "claude-sonnet-4-5-20250929" || st.Model != (Choice{"gpt-4o", "default, cost-optimized strategy"}) {
		t.Errorf("with %v: succeeded with %q, model %+v", openai, st.Task.SucceededWith, st.Model)
	}
}
