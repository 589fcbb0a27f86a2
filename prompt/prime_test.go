package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"lore/internal/loretest"
	"lore/mdstore"
	"lore/strategy"
)

// run builds a run's journal: outcomes in order, one per iteration, an hour
// apart from base; the entries of task get its failures.
type journal struct {
	entries []mdstore.JournalEntry
}

func (j *journal) add(run, task, model, outcome string, f *mdstore.Failure) {
	n := len(j.entries) + 1
	j.entries = append(j.entries, mdstore.JournalEntry{
		RunID: run, Iteration: n, TaskID: task, Model: model, Outcome: outcome, Failure: f,
		DurationSecs: 60, CreatedAt: fmt.Sprintf("2026-03-01T%02d:%02d:00Z", 8+n/60, n%60),
	})
}

// seedScenario builds the store behind one of seed 002's "Prompt Template
// Examples" and the task and loop figures the orchestrator passes.
func seedScenario(t *testing.T, n int) (Input, strategy.Input) {
	t.Helper()
	var j journal
	var in Input
	var loop strategy.Input
	spec := ".ralph/specs/iteration-memory.md"
	switch n {
	case 1: // first attempt, nothing known
		in.Task = Task{ID: "t-f13cf2", Title: "Design and write the Context Injection section",
			Description: "Fill in the Context Injection section of `.ralph/specs/iteration-memory.md`."}
		loop = strategy.Input{TaskID: in.Task.ID, Limit: 20}
	case 2: // second attempt after a failure
		in.Task = Task{ID: "t-76ba69", Title: "Design and write the Migration Path section",
			Description: "Write the phased migration plan for adding iteration memory to Ralph.", Run: "r1"}
		for i := 0; i < 4; i++ {
			j.add("r1", fmt.Sprintf("t-other%d", i), "sonnet", "done", nil)
		}
		j.add("r1", in.Task.ID, "sonnet", "failed", &mdstore.Failure{
			WhatTried:       "Tried to write all four migration phases at once, covering DB schema, sigil parsing, context injection, and strategy replacement",
			WhyFailed:       "Exceeded the iteration's time/token budget; only completed Phase 1 and Phase 2 before running out of output tokens",
			ErrorCategory:   "timeout",
			RelevantFiles:   []string{spec},
			StackTrace:      "Output truncated at 25000 tokens",
			RetrySuggestion: "Focus on Phase 1 and Phase 2 first, then signal task-done. The remaining phases can be covered in a follow-up task or a second pass.",
		})
		loop = strategy.Input{TaskID: in.Task.ID, Run: "r1", Iteration: 6, Limit: 20}
	case 3: // third failure: learnings and the stuck warning
		in.Task = Task{ID: "t-84be01", Title: "Final review and polish of iteration-memory spec",
			Description: "Review the complete iteration-memory.md for consistency, fix any gaps, ensure all sections are complete.", Run: "r1"}
		for i := 0; i < 6; i++ {
			j.add("r1", fmt.Sprintf("t-other%d", i), "sonnet", "done", nil)
		}
		j.add("r1", "t-another", "sonnet", "failed", nil)
		j.add("r1", in.Task.ID, "sonnet", "failed", &mdstore.Failure{WhatTried: "Attempted full review and polish in a single pass",
			WhyFailed: "Made edits that introduced inconsistencies with the Data Model section", ErrorCategory: "logic_error", RelevantFiles: []string{spec}})
		j.add("r1", "t-another", "sonnet", "failed", nil)
		j.add("r1", in.Task.ID, "sonnet", "failed", &mdstore.Failure{WhatTried: "Read the entire spec first, then made targeted fixes",
			WhyFailed: "Missed the cross-references between Sigil Design and Context Injection sections", ErrorCategory: "logic_error", RelevantFiles: []string{spec}})
		j.add("r1", in.Task.ID, "opus", "failed", &mdstore.Failure{WhatTried: "Section-by-section review with cross-reference checking",
			WhyFailed: "Tests failed because the example code snippets had syntax errors", ErrorCategory: "test_failure", RelevantFiles: []string{spec},
			StackTrace:      "cargo test -- --test spec_validation\ntest spec_validation::code_blocks_are_valid ... FAILED",
			RetrySuggestion: "Focus exclusively on validating the code examples. The prose is fine; the issue is in the Rust code snippets in the Sigil Design section. Run `cargo check` on extracted code blocks."})
		in.Learnings = []mdstore.Learning{
			{ID: "l-000001", Category: "success_pattern", Tags: []string{"spec", "sqlite"}, Status: "active", CreatedAt: "2026-02-03",
				Body: "When adding new tables with foreign keys in SQLite, enable PRAGMA foreign_keys = ON at connection time and use ON DELETE CASCADE to maintain referential integrity."},
			{ID: "l-000002", Category: "pitfall", Tags: []string{"spec", "rust"}, Status: "active", CreatedAt: "2026-02-02",
				Body: "Code examples in spec documents must use valid Rust syntax even if they are illustrative — the spec validation test extracts and compiles them."},
			{ID: "l-000003", Category: "testing_strategy", Tags: []string{"spec", "cargo"}, Status: "active", CreatedAt: "2026-02-01",
				Body: "Run `cargo test` after every spec edit, not just at the end. Catches syntax issues in code blocks early."},
			{ID: "l-000004", Category: "pitfall", Tags: []string{"docker"}, Status: "active", CreatedAt: "2026-02-04",
				Body: "Unrelated to this task: no tag matches it."},
			{ID: "l-000005", Category: "tool_usage", Tags: []string{"spec"}, Status: "rejected", CreatedAt: "2026-02-05",
				Body: "Rejected learnings are never shown."},
		}
		loop = strategy.Input{TaskID: in.Task.ID, Run: "r1", Iteration: 12, Limit: 20}
	case 4: // first attempt with learnings only
		in.Task = Task{ID: "t-71b433", Title: "Design and write the Lifecycle section",
			Description: "Write the Memory Growth, Summarization, Pruning, Cross-Run Persistence, and Failure Escalation Lifecycle subsections of the iteration-memory spec.", Run: "r1"}
		for i := 0; i < 6; i++ {
			j.add("r1", fmt.Sprintf("t-other%d", i), "sonnet", "done", nil)
		}
		j.add("r1", "t-another", "sonnet", "failed", nil)
		in.Learnings = []mdstore.Learning{
			{ID: "l-000001", Category: "code_structure", Tags: []string{"iteration-memory", "spec"}, Status: "active", CreatedAt: "2026-02-03",
				Body: "The iteration-memory spec follows a pattern: each section starts with a high-level description, then hook points, data flow diagram, and concrete code examples."},
			{ID: "l-000002", Category: "tool_usage", Tags: []string{"section"}, Status: "active", CreatedAt: "2026-02-02",
				Body: "Use `cargo test --test integration_test_name` to run a specific integration test file without running the entire suite."},
		}
		loop = strategy.Input{TaskID: in.Task.ID, Run: "r1", Iteration: 8, Limit: 20}
	}
	in.Journal = j.entries
	return in, loop
}

// TestSeedExamples reproduces seed 002's four prompt examples: the
// Previous Attempts, Learnings and Loop Status that prime writes for each
// store are the seed's text, character for character.
func TestSeedExamples(t *testing.T) {
	for n := 1; n <= 4; n++ {
		t.Run(fmt.Sprintf("example%d", n), func(t *testing.T) {
			in, loop := seedScenario(t, n)
			in.Loop = strategy.Compute(in.Journal, loop)
			ctx := Prime(in, Options{Budgets: mdstore.DefaultBudgets()})
			var parts []string
			for _, s := range ctx.Sections {
				switch s.Name {
				case SectionAttempts, SectionLearnings, SectionLoopStatus:
					parts = append(parts, strings.TrimRight(s.Markdown, "\n")+"\n")
				}
			}
			got := strings.Join(parts, "\n")
			want, err := os.ReadFile(filepath.Join("testdata", fmt.Sprintf("seed002-example%d.md", n)))
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("prime differs from seed 002's example %d\n--- got\n%s\n--- want\n%s", n, got, want)
			}
			loretest.Golden(t, fmt.Sprintf("testdata/prime-example%d.md", n), ctx.Markdown())
		})
	}
}

// TestPrimeBudgets: whatever the budget, the sections stay within it,
// entries are whole, UTF-8 is intact, and what was left out is said.
func TestPrimeBudgets(t *testing.T) {
	in, loop := seedScenario(t, 3)
	in.Loop = strategy.Compute(in.Journal, loop)
	in.Memories = []mdstore.Memory{
		{ID: "mem-1", Type: mdstore.Pattern, Content: "Grüße aus Köln: 日本語のテキスト " + strings.Repeat("é", 40), Tags: []string{"i18n"}, Created: "2026-01-02"},
		{ID: "mem-2", Type: mdstore.Fix, Content: "Short fix.", Created: "2026-01-01"},
	}
	full := Prime(in, Options{Budgets: mdstore.DefaultBudgets()})
	if full.Omitted != "" {
		t.Fatalf("default budgets left something out: %s", full.Omitted)
	}
	fullSize := 0
	for _, s := range full.Sections {
		fullSize += runeLen(s.Markdown)
	}
	for _, tokens := range []int{1, 10, 50, 100, 200, 300, 400, 500, 700, 1000, 5000} {
		b := mdstore.DefaultBudgets()
		b.Total = tokens
		ctx := Prime(in, Options{Budgets: b})
		used := 0
		for _, s := range ctx.Sections {
			used += runeLen(s.Markdown)
			if !utf8.ValidString(s.Markdown) {
				t.Errorf("budget %d: %s is not valid UTF-8", tokens, s.Name)
			}
			if s.Shown == 0 {
				t.Errorf("budget %d: section %s shown with nothing in it", tokens, s.Name)
			}
		}
		if used > tokens*CharsPerToken {
			t.Errorf("budget %d tokens: sections use %d characters", tokens, used)
		}
		if used < fullSize && ctx.Omitted == "" {
			t.Errorf("budget %d: content left out without saying so", tokens)
		}
		// Whole entries: every block shown is one of the full prime's.
		for _, s := range ctx.Sections {
			for _, line := range strings.Split(s.Markdown, "\n") {
				if !strings.Contains(full.Markdown(), line) && !strings.Contains(line, "Earlier attempts truncated") {
					t.Errorf("budget %d: %q is not from the full prime", tokens, line)
				}
			}
		}
	}
	// Exact fit: a budget of exactly the full size leaves nothing out.
	b := mdstore.DefaultBudgets()
	b.Total = (fullSize + CharsPerToken - 1) / CharsPerToken
	if ctx := Prime(in, Options{Budgets: b}); ctx.Omitted != "" || ctx.Markdown() != full.Markdown() {
		t.Errorf("an exact-fit budget (%d tokens) changed the prime: %s", b.Total, ctx.Omitted)
	}
}

// TestPrimeAttemptsKeepNewest: a short budget drops the oldest attempts
// first and says so; the retry suggestion stays.
func TestPrimeAttemptsKeepNewest(t *testing.T) {
	in, loop := seedScenario(t, 3)
	in.Loop = strategy.Compute(in.Journal, loop)
	b := mdstore.DefaultBudgets()
	b.Attempts = 900
	ctx := Prime(in, Options{Budgets: b})
	md := ctx.Sections[0].Markdown
	if ctx.Sections[0].Name != SectionAttempts || !strings.Contains(md, "#### Attempt 3 (opus, failed)") || strings.Contains(md, "#### Attempt 1 ") {
		t.Fatalf("want the newest attempt kept and the oldest dropped:\n%s", md)
	}
	if !strings.Contains(md, "_(Earlier attempts truncated due to context budget)_") || !strings.Contains(md, "**Suggested approach for this retry:**") {
		t.Errorf("truncation note or suggestion missing:\n%s", md)
	}
	if !strings.Contains(ctx.Omitted, "earlier attempt") {
		t.Errorf("omission line %q does not name the attempts", ctx.Omitted)
	}
}

// TestPrimeNoTask falls back to the most recent entries.
func TestPrimeNoTask(t *testing.T) {
	in, _ := seedScenario(t, 3)
	in.Task = Task{}
	in.Loop = strategy.Compute(in.Journal, strategy.Input{})
	ctx := Prime(in, Options{Budgets: mdstore.DefaultBudgets(), Instructions: true, Learn: false})
	md := ctx.Markdown()
	for _, want := range []string{"### Learnings from Previous Iterations", "## Run Journal", "### Loop Status", "## Using Project Memory"} {
		if !strings.Contains(md, want) {
			t.Errorf("no-task prime lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "Previous Attempts") || strings.Contains(md, "lore add") || strings.Contains(md, "Rejected learnings") {
		t.Errorf("no-task prime with learn off shows attempts, write instructions or rejected learnings:\n%s", md)
	}
}

func TestNewer(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"2026-01-02T00:00:00Z", "2026-01-01T23:59:59Z", true},
		{"2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", false},
		{"2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z", false},
		{"2026-01-01T01:00:00+02:00", "2026-01-01T00:00:00Z", false}, // 23:00 UTC the day before
		{"2026-01-02", "2026-01-01T12:00:00Z", true},
		{"", "2026-01-01T00:00:00Z", false},
	} {
		if got := newer(c.a, c.b); got != c.want {
			t.Errorf("newer(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}
