package prompt

import (
	"fmt"
	"strings"
	"testing"

	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// longRun is a run of 19 iterations, each with notes of several lines;
// iteration 6 built the embed prompt.
func longRun() []entry.JournalEntry {
	var run []entry.JournalEntry
	for n := 1; n <= 19; n++ {
		notes := fmt.Sprintf("Iteration %d worked on the settings page.\nIt changed the form layout.\nAnd the styles of its buttons.\nTests pass.", n)
		if n == 6 {
			notes = "Built the embed prompt: the template the agent gets, with its placeholders.\nIt lives in prompt/embed.tmpl."
		}
		run = append(run, entry.JournalEntry{RunID: "r1", Iteration: n, TaskID: fmt.Sprintf("t-%d", n), Model: "sonnet", Outcome: "done",
			DurationSecs: 60, Notes: notes, CreatedAt: fmt.Sprintf("2026-03-01T10:%02d:00Z", n)})
	}
	return run
}

// TestLongRunJournal: in a long run, the newest iteration is shown in
// full, the four before it by their outcome and first lines, and an older
// iteration about the task (the embed prompt, for an embed task at
// iteration 20) still shows (issue 37).
func TestLongRunJournal(t *testing.T) {
	in := Input{Task: Task{ID: "t-20", Title: "Embed the prompt in the binary", Run: "r1"}, Journal: longRun()}
	ctx := Prime(in, Options{Budgets: config.DefaultBudgets()})
	var md string
	for _, s := range ctx.Sections {
		if s.Name == SectionJournal {
			md = s.Markdown
		}
	}
	newest := md[strings.Index(md, "### Iteration 19"):]
	if !strings.Contains(newest, "- **Model**: sonnet") || !strings.Contains(newest, "Tests pass.") {
		t.Errorf("the newest iteration is not in full:\n%s", md)
	}
	recent := md[strings.Index(md, "### Iteration 15"):strings.Index(md, "### Iteration 19")]
	if strings.Contains(recent, "**Model**") || strings.Contains(recent, "Tests pass.") || !strings.Contains(recent, "Iteration 15 worked on the settings page.") ||
		!strings.Contains(recent, "`lore show r1/0015` for the rest") {
		t.Errorf("the recent iterations are not shortened to their outcome and first lines:\n%s", md)
	}
	if !strings.Contains(md, "_Earlier in this run:_\n\n### Iteration 6 [done]") || !strings.Contains(md, "Built the embed prompt") {
		t.Errorf("iteration 6, which built the embed prompt, is not shown:\n%s", md)
	}
	if strings.Contains(md, "### Iteration 7 ") {
		t.Errorf("an older iteration with nothing to do with the task is shown:\n%s", md)
	}
}
