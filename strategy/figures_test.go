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
