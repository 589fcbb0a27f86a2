package prompt

import (
	"fmt"
	"strings"
)

// AssignedTask is what an orchestrator puts before the prime to say what
// the iteration is to do, as in seed 002's prompt examples: "Assigned
// Task" with the task's id, title, feature and files, and its
// description under a heading of its own, at the level of the prime's
// sections (Options.HeadingLevel). It is "" when nothing is known of the
// task.
func AssignedTask(t Task, level int) string {
	if !t.Given() {
		return ""
	}
	o := outlineAt(level)
	var b strings.Builder
	b.WriteString(o.section("Assigned Task") + "\n")
	for _, f := range [][2]string{{"ID", t.ID}, {"Title", t.Title}, {"Feature", t.Feature}, {"Files", strings.Join(t.Files, ", ")}} {
		if v := strings.Join(strings.Fields(f[1]), " "); v != "" {
			fmt.Fprintf(&b, "**%s:** %s\n", f[0], v)
		}
	}
	if d := strings.TrimSpace(t.Description); d != "" {
		b.WriteString("\n" + o.heading(1, "Description") + d + "\n")
	}
	return b.String() + "\n"
}
