package prompt

import "testing"

// TestAssignedTask: the task block of seed 002's first prompt example.
func TestAssignedTask(t *testing.T) {
	task := Task{ID: "t-f13cf2", Title: "Design and write the Context Injection section",
		Description: "Fill in the Context Injection section of `.ralph/specs/iteration-memory.md`.\n"}
	want := "## Assigned Task\n\n**ID:** t-f13cf2\n**Title:** Design and write the Context Injection section\n\n" +
		"### Description\nFill in the Context Injection section of `.ralph/specs/iteration-memory.md`.\n\n"
	if got := AssignedTask(task, 2); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := AssignedTask(Task{ID: "T-1", Files: []string{"a.go", "b.go"}}, 3); got != "### Assigned Task\n\n**ID:** T-1\n**Files:** a.go, b.go\n\n" {
		t.Errorf("got:\n%s", got)
	}
	if got := AssignedTask(Task{}, 2); got != "" {
		t.Errorf("no task: %q", got)
	}
}
