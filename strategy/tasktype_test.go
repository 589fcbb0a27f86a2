package strategy

import "testing"

// Seed 004's task-type table, on the objectives its text gives (Task Type
// Detection and Examples 6), first match wins, "general" for none.
func TestTaskTypeFollowsSeed004(t *testing.T) {
	t.Parallel()
	for objective, want := range map[string]string{
		"Fix failing authentication tests":    "test-fix",
		"Implement user registration feature": "feature",
		"Refactor auth module for clarity":    "refactor",
		"Optimize database queries":           "performance",
		"Fix database connection tests":       "test-fix",
		"Fix API endpoint tests":              "test-fix",
		"Fix the crash on login":              "bug-fix",
		"Write the README for the CLI":        "documentation",
		"Design the storage architecture":     "architecture",
		"Rename a variable":                   "general",
	} {
		if got := TaskType(objective); got != want {
			t.Errorf("%q: %s, want %s", objective, got, want)
		}
	}
}
