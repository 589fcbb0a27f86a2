package strategy

import (
	"regexp"
	"sync"
)

// taskPatterns is seed 004's task-type table, in its order: the first
// that matches the run's objective names its task type ("general" when
// none does). These tables are compiled when first asked for, not at
// every lore command's start-up (16 expressions: ~0.3 ms and 500
// allocations).
var taskPatterns = sync.OnceValue(func() []taskPattern {
	return []taskPattern{
		{"test-fix", regexp.MustCompile(`(?i)test|spec|jest|vitest|failing`)},
		{"feature", regexp.MustCompile(`(?i)implement|add feature|new feature|build`)},
		{"refactor", regexp.MustCompile(`(?i)refactor|reorganize|restructure|clean`)},
		{"bug-fix", regexp.MustCompile(`(?i)fix|bug|error|crash|issue`)},
		{"documentation", regexp.MustCompile(`(?i)document|readme|guide|docs`)},
		{"architecture", regexp.MustCompile(`(?i)architecture|design|structure`)},
		{"performance", regexp.MustCompile(`(?i)optimize|performance|speed|slow`)},
	}
})

// taskPattern is an expression, and the task type a match names.
type taskPattern struct {
	name string
	re   *regexp.Regexp
}

// GeneralTaskType is the task type of an objective no pattern matches.
const GeneralTaskType = "general"

// TaskType classifies an objective with seed 004's table.
func TaskType(objective string) string {
	for _, p := range taskPatterns() {
		if p.re.MatchString(objective) {
			return p.name
		}
	}
	return GeneralTaskType
}
