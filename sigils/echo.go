package sigils

import (
	"strings"
)

// Examples are the sigils as lore's instructions show them to the agent
// (prompt.Instructions), each with a placeholder for its content. An
// output that holds one is quoting the instructions — the agent repeating
// its prompt, or its CLI echoing it — not reporting: the sigil is
// ignored, wherever it is and however the Markdown around it was
// rendered.
var Examples = map[string]string{
	"task-done":           "ID",
	"task-failed":         "ID",
	"journal":             "what you did and why",
	"knowledge":           "what is true of this project",
	"learning":            "an insight for other tasks",
	"failure-report":      "key: value lines",
	"retry-suggestion":    "what the next attempt should do",
	"difficulty-estimate": "trivial|easy|moderate|hard|blocked",
	"next-model":          "MODEL",
}

// echoOf says why el is an echo of the instructions, or "".
func echoOf(el element) string {
	if example, ok := Examples[el.name]; ok && strings.Join(strings.Fields(el.content), " ") == example {
		return "an echo of lore's instructions, not a report"
	}
	return ""
}

// placeholderIDs are task ids that stand for one: an agent that writes
// one is copying an instruction or a template, and no entry is ever
// recorded under it. Compared with only letters and digits, lowercased.
var placeholderIDs = map[string]bool{
	"id": true, "taskid": true, "task": true, "yourtaskid": true, "thetaskid": true, "currenttaskid": true,
	"tid": true, "xxx": true, "todo": true, "tbd": true, "placeholder": true, "na": true, "none": true, "null": true,
}

// taskIDProblem says why a task sigil's content cannot be a task id, or "".
func taskIDProblem(id string) string {
	if strings.ContainsAny(id, "<>{}$") || strings.Contains(id, "...") || strings.Contains(id, "…") {
		return "a placeholder, not a task id"
	}
	var b strings.Builder
	for _, r := range strings.ToLower(id) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	if placeholderIDs[b.String()] {
		return "a placeholder, not a task id"
	}
	return ""
}
