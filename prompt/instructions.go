package prompt

import (
	"strings"

	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// Instructions is the fixed block that teaches an agent to use lore (seed
// 001's skill, with lore's commands) and the sigils lore ingest reads (seeds
// 000 and 002), naming the models <next-model> accepts (config.yaml's
// models; nil for the default ones). It is outside the budget. Without
// learn, the parts on writing new memory (lore add, <journal>,
// <knowledge>, <learning>) are left out: reading remains, and so do the
// sigils that tell the loop how the task went. Without memories
// (memories.inject: none), lore add is left out.
func Instructions(learn, memories bool, models []string) string {
	return instructions(DefaultHeadingLevel, learn, memories, models)
}

// instructions is Instructions with its heading at the sections' level
// and its parts one below.
func instructions(o outline, learn, memories bool, models []string) string {
	if len(models) == 0 {
		models = config.DefaultModels()
	}
	var b strings.Builder
	b.WriteString(o.section("Using Project Memory") + instructionsHead)
	b.WriteString("\n" + o.entry("Reading Memory") + instructionsRead)
	if learn && memories {
		b.WriteString("\n" + o.entry("Storing New Memory") + instructionsWrite)
	}
	b.WriteString("\n" + o.entry("Reporting the Iteration") + instructionsReport)
	b.WriteString(instructionsTask)
	if learn {
		b.WriteString(instructionsLearn)
	}
	b.WriteString(strings.Replace(instructionsLoop, "{models}", strings.Join(models, ", "), 1))
	b.WriteString(instructionsEnd)
	return b.String()
}

const instructionsHead = `
This project keeps what earlier iterations learned in ` + "`.agent/`" + `, managed by lore and
committed to git.
`

const instructionsRead = `
The sections above are chosen for this task within a budget. For more:

` + "```bash" + `
lore search "authentication"              # every kind, typo-tolerant, best first
lore search --kind learning --tags sqlite
lore show <id>                            # any entry in full (mem-…, l-…, a slug, run/NNNN)
` + "```" + `
`

const instructionsWrite = `
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

const instructionsReport = `
End your output with these tags; lore records them for the next iteration:

`

const instructionsTask = "- `<task-done>ID</task-done>` or `<task-failed>ID</task-failed>`: how the task ended.\n"

var instructionsLearn = "- `<journal>what you did and why</journal>`: notes for the run journal.\n" +
	"- `<knowledge tags=\"a,b\" title=\"Short title\">what is true of this project</knowledge>` (repeatable).\n" +
	"- `<learning category=\"pitfall\" tags=\"a,b\">an insight for other tasks</learning>` (repeatable;\n" +
	"  categories: " + strings.Join(entry.LearningCategories, ", ") + ").\n"

const instructionsLoop = "- `<failure-report>key: value lines</failure-report>` when the task failed, one `key: value` per line:\n" +
	"  what_tried, why_failed (both required), error_category, relevant_files, stack_trace.\n" +
	"- `<retry-suggestion>what the next attempt should do</retry-suggestion>`.\n" +
	"- `<difficulty-estimate>trivial|easy|moderate|hard|blocked</difficulty-estimate>`.\n" +
	"- `<next-model>MODEL</next-model>`: the model the next iteration should use ({models}).\n"

const instructionsEnd = `
Tags inside code (backticks, fenced blocks) and these examples themselves are not read.
`
