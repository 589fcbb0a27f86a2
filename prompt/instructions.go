package prompt

import (
	"strings"

	"lore/mdstore"
)

// Instructions is the fixed block that teaches an agent to use lore (seed
// 001's skill, with lore's commands) and the sigils lore ingest reads (seeds
// 000 and 002), naming the models <next-model> accepts (config.yaml's
// models; nil for the default ones). It is outside the budget. Without
// learn, the parts on writing new memory are left out and only reading
// remains; without memories (memories.inject: none), so is lore add.
func Instructions(learn, memories bool, models []string) string {
	if len(models) == 0 {
		models = mdstore.DefaultModels()
	}
	sigils := strings.Replace(instructionsSigils, "{models}", strings.Join(models, ", "), 1)
	switch {
	case !learn:
		return instructionsHead + instructionsRead
	case !memories:
		return instructionsHead + instructionsRead + sigils
	}
	return instructionsHead + instructionsRead + instructionsWrite + sigils
}

const instructionsHead = `## Using Project Memory

This project keeps what earlier iterations learned in ` + "`.agent/`" + `, managed by lore and
committed to git.
`

const instructionsRead = `
### Reading Memory

The sections above are chosen for this task within a budget. For more:

` + "```bash" + `
lore search "authentication"              # every kind, typo-tolerant, best first
lore search --kind learning --tags sqlite
lore show <id>                            # one memory in full
` + "```" + `
`

const instructionsWrite = `
### Storing New Memory

When you discover something worth remembering:

` + "```bash" + `
lore add "<one concept, specific>" -t pattern|decision|fix|context --tags a,b
` + "```" + `

- **Patterns**: how this codebase does things
- **Decisions**: why an architectural choice was made ("chose X because Y")
- **Fixes**: the solution to a problem that may recur
- **Context**: project-specific knowledge

Use tags that already exist where you can, and one concept per memory.
`

var instructionsSigils = `
### Reporting the Iteration

End your output with these tags; lore records them for the next iteration:

- ` + "`<task-done>ID</task-done>`" + ` or ` + "`<task-failed>ID</task-failed>`" + `: how the task ended.
- ` + "`<journal>what you did and why</journal>`" + `: notes for the run journal.
- ` + "`<knowledge tags=\"a,b\" title=\"Short title\">what is true of this project</knowledge>`" + ` (repeatable).
- ` + "`<learning category=\"pitfall\" tags=\"a,b\">an insight for other tasks</learning>`" + ` (repeatable;
  categories: ` + strings.Join(mdstore.LearningCategories, ", ") + `).
- ` + "`<failure-report>key: value lines</failure-report>`" + ` when the task failed, one ` + "`key: value`" + ` per line:
  what_tried, why_failed (both required), error_category, relevant_files, stack_trace.
- ` + "`<retry-suggestion>what the next attempt should do</retry-suggestion>`" + `.
- ` + "`<difficulty-estimate>trivial|easy|moderate|hard|blocked</difficulty-estimate>`" + `.
- ` + "`<next-model>MODEL</next-model>`" + `: the model the next iteration should use ({models}).

Tags inside code (backticks, fenced blocks) and these examples themselves are not read.
`
