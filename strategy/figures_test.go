package strategy

import (
	"reflect"
	"testing"
	"time"

	"lore/mdstore/entry"
)

func TestTaskFigures(t *testing.T) {
	at := func(m int) string { return time.Date(2026, 2, 17, 12, m, 0, 0, time.UTC).Format(time.RFC3339) }
	entries := []entry.JournalEntry{
		{RunID: "r1", Iteration: 1, TaskID: "t-a", Outcome: "failed", Model: "sonnet", CreatedAt: at(1), Difficulty: "moderate"},
		{RunID: "r1", Iteration: 2, TaskID: "t-a", Outcome: "blocked", Model: "sonnet", CreatedAt: at(2)},
		{RunID: "r1", Iteration: 3, TaskID: "t-a", Outcome: "interrupted", Model: "opus", CreatedAt: at(3)},
		{RunID: "r1", Iteration: 4, TaskID: "t-a", Outcome: "retried", Model: "opus", CreatedAt: at(4), Difficulty: "hard"},
		{RunID: "r1", Iteration: 5, TaskID: "t-b", Outcome: "done", Model: "haiku", CreatedAt: at(5)},
		{RunID: "r2", Iteration: 1, TaskID: "t-b", Outcome: "failed", Model: "haiku", CreatedAt: at(6)},
		{RunID: "r2", Iteration: 2, TaskID: "t-b", Outcome: "done", Model: "sonnet", CreatedAt: at(7)},
		{RunID: "r2", Iteration: 3, Outcome: "blocked", CreatedAt: at(8)}, // no task: not counted
	}
	got := TaskFigures(entries, nil)
	want := map[string]TaskStats{
		"t-a": {TaskID: "t-a", Attempts: 4, ConsecutiveFailures: 3, LastAttemptAt: at(4), Stuck: true, Difficulty: "hard", LastOutcome: "retried"},
		"t-b": {TaskID: "t-b", Attempts: 3, ConsecutiveFailures: 0, LastAttemptAt: at(7), LastSuccessAt: at(7), SucceededWith: "sonnet", LastOutcome: "done"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

// TestAgentErrorsAreNoAttempts: iterations in which the agent did not run
// to the end (issue 37: a rate-limit storm, three crashes) count neither
// as attempts nor as failures — no stuck warning, no escalation — and
// neither reset the failures; they are counted in a row, per task and per
// run, until an attempt that ran to the end.
func TestAgentErrorsAreNoAttempts(t *testing.T) {
	at := func(m int) string { return time.Date(2026, 2, 17, 12, m, 0, 0, time.UTC).Format(time.RFC3339) }
	agentError := func(i int, why string) entry.JournalEntry {
		return entry.JournalEntry{RunID: "r1", Iteration: i, TaskID: "t-a", Outcome: "failed", CreatedAt: at(i),
			Failure: &entry.Failure{WhyFailed: why, ErrorCategory: entry.AgentErrorCategory}}
	}
	entries := []entry.JournalEntry{
		{RunID: "r1", Iteration: 1, TaskID: "t-a", Outcome: "failed", CreatedAt: at(1), Failure: &entry.Failure{WhyFailed: "tests fail", ErrorCategory: "test_failure"}},
		agentError(2, "Agent error (overload): API Error: 529"),
		agentError(3, "Agent error (overload): API Error: 529"),
		agentError(4, "Agent error: the output is empty"),
	}
	st := TaskFigures(entries, nil)["t-a"]
	if st.Attempts != 1 || st.ConsecutiveFailures != 1 || st.Stuck || st.AgentErrors != 3 || st.LastAgentError != "Agent error: the output is empty" {
		t.Fatalf("%+v", st)
	}
	run := RunOf(entries, "r1")
	if run.Total != 1 || run.Failures != 1 || run.AgentErrors != 3 || run.AgentErrorsInARow != 3 {
		t.Fatalf("%+v", run)
	}
	if c := Select(CostOptimized, st, run, "", nil); c.Model != "sonnet" {
		t.Fatalf("escalated: %+v", c)
	}
	// An attempt that ran to the end ends the agent errors in a row.
	entries = append(entries, entry.JournalEntry{RunID: "r1", Iteration: 5, TaskID: "t-a", Outcome: "failed", CreatedAt: at(5)})
	st, run = TaskFigures(entries, nil)["t-a"], RunOf(entries, "r1")
	if st.Attempts != 2 || st.ConsecutiveFailures != 2 || st.AgentErrors != 0 || run.AgentErrorsInARow != 0 || run.AgentErrors != 3 {
		t.Fatalf("%+v %+v", st, run)
	}
}
