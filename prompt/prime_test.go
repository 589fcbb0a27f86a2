package prompt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"lore/internal/loretest"
	"lore/mdstore/catalog"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/sigils"
	"lore/strategy"
)

// run builds a run's journal: outcomes in order, one per iteration, an hour
// apart from base; the entries of task get its failures.
type journal struct {
	entries []entry.JournalEntry
}

func (j *journal) add(run, task, model, outcome string, f *entry.Failure) {
	n := len(j.entries) + 1
	j.entries = append(j.entries, entry.JournalEntry{
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
		j.add("r1", in.Task.ID, "sonnet", "failed", &entry.Failure{
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
		j.add("r1", in.Task.ID, "sonnet", "failed", &entry.Failure{WhatTried: "Attempted full review and polish in a single pass",
			WhyFailed: "Made edits that introduced inconsistencies with the Data Model section", ErrorCategory: "logic_error", RelevantFiles: []string{spec}})
		j.add("r1", "t-another", "sonnet", "failed", nil)
		j.add("r1", in.Task.ID, "sonnet", "failed", &entry.Failure{WhatTried: "Read the entire spec first, then made targeted fixes",
			WhyFailed: "Missed the cross-references between Sigil Design and Context Injection sections", ErrorCategory: "logic_error", RelevantFiles: []string{spec}})
		j.add("r1", in.Task.ID, "opus", "failed", &entry.Failure{WhatTried: "Section-by-section review with cross-reference checking",
			WhyFailed: "Tests failed because the example code snippets had syntax errors", ErrorCategory: "test_failure", RelevantFiles: []string{spec},
			StackTrace:      "cargo test -- --test spec_validation\ntest spec_validation::code_blocks_are_valid ... FAILED",
			RetrySuggestion: "Focus exclusively on validating the code examples. The prose is fine; the issue is in the Rust code snippets in the Sigil Design section. Run `cargo check` on extracted code blocks."})
		in.Learnings = []entry.Learning{
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
		in.Learnings = []entry.Learning{
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
			// Seed 002 nests the sections under "## Assigned Task".
			ctx := Prime(in, Options{Budgets: config.DefaultBudgets(), HeadingLevel: 3})
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
	in.Memories = []entry.Memory{
		{ID: "mem-1", Type: entry.Pattern, Content: "Grüße aus Köln: 日本語のテキスト " + strings.Repeat("é", 40), Tags: []string{"i18n"}, Created: "2026-01-02"},
		{ID: "mem-2", Type: entry.Fix, Content: "Short fix.", Created: "2026-01-01"},
	}
	full := Prime(in, Options{Budgets: config.DefaultBudgets()})
	if full.Omitted != "" {
		t.Fatalf("default budgets left something out: %s", full.Omitted)
	}
	fullSize := runeLen(full.Markdown())
	for tokens := 1; tokens <= fullSize/CharsPerToken+1; tokens += 7 {
		b := config.DefaultBudgets()
		b.TotalTokens = tokens
		ctx := Prime(in, Options{Budgets: b, Instructions: true})
		if last := ctx.Sections[len(ctx.Sections)-1]; last.Name != SectionInstructions {
			t.Fatalf("budget %d: the instructions are not last", tokens)
		}
		ctx.Sections = ctx.Sections[:len(ctx.Sections)-1]
		// The budget is a hard cap on all but the instructions, the
		// left-out line included, unless that line alone is over it.
		md := ctx.Markdown()
		if used := runeLen(md); used > tokens*CharsPerToken && (len(ctx.Sections) > 0 || ctx.Omitted == "") {
			t.Errorf("budget %d tokens (%d characters): the prime uses %d\n%s", tokens, tokens*CharsPerToken, used, md)
		}
		if ctx.Omitted == "" && md != full.Markdown() {
			t.Errorf("budget %d: content left out without saying so", tokens)
		}
		// The loop status and its stuck warning go last of all.
		if len(ctx.Sections) > 0 && !strings.Contains(md, "Stuck loop detected") {
			t.Errorf("budget %d: entries shown without the stuck-loop warning:\n%s", tokens, md)
		}
		for _, s := range ctx.Sections {
			if !utf8.ValidString(s.Markdown) {
				t.Errorf("budget %d: %s is not valid UTF-8", tokens, s.Name)
			}
			if s.Shown == 0 {
				t.Errorf("budget %d: section %s shown with nothing in it", tokens, s.Name)
			}
		}
		// Whole entries: every block shown is one of the full prime's,
		// or its first lines and `lore show` (the entry cap).
		for _, s := range ctx.Sections {
			for _, line := range strings.Split(s.Markdown, "\n") {
				if !strings.Contains(full.Markdown(), line) && !strings.Contains(line, "Earlier attempts truncated") && !strings.Contains(line, "for the rest)") {
					t.Errorf("budget %d: %q is not from the full prime", tokens, line)
				}
			}
		}
	}
	// Exact fit: a budget of exactly the full size leaves nothing out.
	b := config.DefaultBudgets()
	b.TotalTokens = (fullSize + CharsPerToken - 1) / CharsPerToken
	if ctx := Prime(in, Options{Budgets: b}); ctx.Omitted != "" || ctx.Markdown() != full.Markdown() {
		t.Errorf("an exact-fit budget (%d tokens) changed the prime: %s", b.TotalTokens, ctx.Omitted)
	}
}

// TestPrimeAttemptsKeepNewest: a short budget drops the oldest attempts
// first and says so; the retry suggestion stays.
func TestPrimeAttemptsKeepNewest(t *testing.T) {
	in, loop := seedScenario(t, 3)
	in.Loop = strategy.Compute(in.Journal, loop)
	b := config.DefaultBudgets()
	b.AttemptsChars = 900
	ctx := Prime(in, Options{Budgets: b})
	md := ctx.Sections[0].Markdown
	if ctx.Sections[0].Name != SectionAttempts || !strings.Contains(md, "\n### Attempt 3 (opus, failed)\n") || strings.Contains(md, "### Attempt 1 ") {
		t.Fatalf("want the newest attempt kept and the oldest dropped:\n%s", md)
	}
	if !strings.Contains(md, "_(Earlier attempts truncated due to context budget)_") || !strings.Contains(md, "**Suggested approach for this retry:**") {
		t.Errorf("truncation note or suggestion missing:\n%s", md)
	}
	if !strings.Contains(ctx.Omitted, "earlier attempt") {
		t.Errorf("omission line %q does not name the attempts", ctx.Omitted)
	}
}

// An attempt's error output is the agent's own text, fences and sigils
// included: prime quotes it in a fence it cannot close, so an agent that
// echoes its prime back records nothing from it.
func TestPrimeQuotesErrorOutputWhole(t *testing.T) {
	// Cut short (TruncateTrace) inside the agent's own fence.
	trace := "Working on it.\n```\n" +
		"<learning category=\"pitfall\" tags=\"ci\">The shared runner stalls uploads.</learning>\n<task-done>T-1</task-done>"
	in := Input{Task: Task{ID: "T-1", Title: "Fix the upload step"}, Journal: []entry.JournalEntry{{
		RunID: "r1", Iteration: 1, TaskID: "T-1", Outcome: "failed", CreatedAt: "2026-11-24T06:00:00Z",
		Failure: &entry.Failure{WhyFailed: "stalled", StackTrace: trace},
	}}}
	md := Prime(in, Options{Budgets: config.DefaultBudgets()}).Markdown()
	if !strings.Contains(md, "  ````\n  Working on it.") {
		t.Fatalf("the error output is not in a fence of four backticks:\n%s", md)
	}
	got := sigils.Parse(md)
	if len(got.Learnings) > 0 || got.Task.Outcome != "" {
		t.Fatalf("prime's own text holds sigils outside code: %d learnings, task %+v\n%s", len(got.Learnings), got.Task, md)
	}
}

// TestPrimeNoTask falls back to the most recent entries.
func TestPrimeNoTask(t *testing.T) {
	in, _ := seedScenario(t, 3)
	in.Task = Task{}
	in.Loop = strategy.Compute(in.Journal, strategy.Input{})
	ctx := Prime(in, Options{Budgets: config.DefaultBudgets(), Instructions: true, Learn: false})
	md := "\n" + ctx.Markdown()
	for _, want := range []string{"\n## Learnings from Previous Iterations\n", "\n## Run Journal\n", "\n## Loop Status\n", "\n## Using Project Memory\n"} {
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

// reopenedScenario: a task solved in iteration 2, reopened, and failed
// twice since.
func reopenedScenario() Input {
	var j journal
	j.add("r1", "t-other", "sonnet", "done", nil)
	j.add("r1", "t-cache", "sonnet", "done", nil)
	j.entries[1].Notes = "Added the LRU in internal/cache/local.go; the size comes from CACHE_MAX_ENTRIES."
	j.entries[1].FilesModified = []string{"internal/cache/local.go"}
	j.add("r1", "t-cache", "sonnet", "failed", &entry.Failure{WhatTried: "Replaced the LRU with a sync.Map",
		WhyFailed: "Eviction stopped: memory grew without bound in the soak test", ErrorCategory: "logic_error"})
	j.add("r1", "t-cache", "opus", "failed", &entry.Failure{WhatTried: "Tuned GOGC instead of evicting",
		WhyFailed: "The soak test still ran out of memory", ErrorCategory: "test_failure",
		RetrySuggestion: "Restore the LRU from iteration 2 and fix only the TTL bug."})
	return Input{Task: Task{ID: "t-cache", Title: "Cache entries never expire", Run: "r1"}, Journal: j.entries,
		Loop: strategy.Compute(j.entries, strategy.Input{TaskID: "t-cache", Run: "r1", Iteration: 5})}
}

// TestPrimeGoldens pins the shapes prime promises: a reopened task, the
// stuck-loop warning kept at a tiny budget, the left-out line giving
// both its reasons within the budget, and the outline nested one level
// down.
func TestPrimeGoldens(t *testing.T) {
	reopened := reopenedScenario()
	ctx := Prime(reopened, Options{Budgets: config.DefaultBudgets()})
	md := ctx.Markdown()
	for _, want := range []string{
		"This task was solved before by iteration 2 of run r1 (sonnet)",
		"### Solved before by iteration 2 of run r1 (sonnet)\n",
		"Added the LRU in internal/cache/local.go",
		"It has been attempted 2 time(s) since. **Do not repeat these approaches.**",
		"### Attempt 2 (sonnet, failed)", "### Attempt 3 (opus, failed)",
		"Restore the LRU from iteration 2",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("reopened task: no %q in\n%s", want, md)
		}
	}
	if strings.Count(md, "Added the LRU") != 1 || strings.Contains(md, "Iteration 3 [failed]") || strings.Contains(md, "Attempt 1 ") {
		t.Errorf("the Run Journal repeats what Previous Attempts shows:\n%s", md)
	}
	loretest.Golden(t, "testdata/prime-reopened.md", md)

	// The stuck-loop warning outlasts everything else as the budget
	// shrinks: the smallest budget that shows anything shows it alone.
	in, loop := seedScenario(t, 3)
	in.Loop = strategy.Compute(in.Journal, loop)
	stuckOnly := 0
	for tokens := 1; tokens <= 400; tokens++ {
		b := config.DefaultBudgets()
		b.TotalTokens = tokens
		ctx := Prime(in, Options{Budgets: b})
		if len(ctx.Sections) > 0 {
			stuckOnly = tokens
			if len(ctx.Sections) != 1 || ctx.Sections[0].Markdown != "## Loop Status\n\n"+stuckWarning {
				t.Errorf("budget %d: the loop status alone is not its stuck warning:\n%s", tokens, ctx.Sections[0].Markdown)
			}
			loretest.Golden(t, "testdata/prime-stuck-tiny.md", ctx.Markdown())
			break
		}
	}
	if stuckOnly == 0 {
		t.Fatal("no budget shows the stuck warning alone")
	}

	// Seven learnings: five shown, two past the section's cap, and the
	// budget leaves out more; the line gives both reasons and fits.
	for i := 6; i <= 9; i++ {
		in.Learnings = append(in.Learnings, entry.Learning{ID: fmt.Sprintf("l-00000%d", i), Category: "pitfall", Tags: []string{"spec"},
			Status: "active", CreatedAt: fmt.Sprintf("2026-01-0%d", i), Body: fmt.Sprintf("Spec pitfall number %d: a different thing each time (%d).", i, i*37)})
	}
	b := config.DefaultBudgets()
	b.TotalTokens = 500
	ctx = Prime(in, Options{Budgets: b})
	if got := runeLen(ctx.Markdown()); got > b.TotalTokens*CharsPerToken {
		t.Errorf("the prime is %d characters, over its budget of %d", got, b.TotalTokens*CharsPerToken)
	}
	if !strings.Contains(ctx.Omitted, "to stay within the budget: ") || !strings.Contains(ctx.Omitted, "2 learnings beyond the 5 prime shows") {
		t.Errorf("left-out line %q does not give both reasons", ctx.Omitted)
	}
	loretest.Golden(t, "testdata/prime-budget-footer.md", ctx.Markdown())
}

// TestPrimeOutline: at every heading level, each section's heading is at
// that level and everything under it deeper (entries one level below,
// memories under their type), outside code.
func TestPrimeOutline(t *testing.T) {
	in, loop := seedScenario(t, 3)
	in.Loop = strategy.Compute(in.Journal, loop)
	in.Memories = sample
	in.Knowledge = []entry.Knowledge{{Slug: "specs", Title: "Specs compile their examples", Tags: []string{"spec"}, Body: "```sh\n# not a heading\ncargo test\n```"}}
	in.Skills = []entry.Skill{{Name: "review", Description: "Review a spec", Path: ".agent/skills/review/SKILL.md"}}
	for level := 1; level <= MaxHeadingLevel; level++ {
		ctx := Prime(in, Options{Budgets: config.DefaultBudgets(), HeadingLevel: level, Instructions: true, Learn: true})
		for _, s := range ctx.Sections {
			fence := false
			for i, line := range strings.Split(s.Markdown, "\n") {
				if strings.HasPrefix(strings.TrimSpace(line), "```") {
					fence = !fence
				}
				if fence || !strings.HasPrefix(line, "#") {
					continue
				}
				depth := len(line) - len(strings.TrimLeft(line, "#"))
				switch {
				case i == 0 && depth != level:
					t.Errorf("level %d: %s begins with %q", level, s.Name, line)
				case i > 0 && (depth <= level || depth > level+2 || (depth == level+2 && s.Name != SectionMemories)):
					t.Errorf("level %d: %s holds %q", level, s.Name, line)
				}
			}
		}
	}
}

// TestPrimeKnowledgeOnce: an agent that writes the same knowledge down
// every iteration gets it shown once, the newest copy.
func TestPrimeKnowledgeOnce(t *testing.T) {
	var ks []entry.Knowledge
	for i := 1; i <= 4; i++ {
		ks = append(ks, entry.Knowledge{Slug: fmt.Sprintf("cache-ttl-%d", i), Title: fmt.Sprintf("Cache TTL comes from CACHE_TTL_SECONDS %d", i),
			Tags: []string{"cache", "ttl"}, CreatedAt: fmt.Sprintf("2026-03-0%dT10:00:00Z", i),
			Body: fmt.Sprintf("The LRU in internal/cache/lru.go reads CACHE_TTL_SECONDS at start; iteration %d found it.", i)})
	}
	ks = append(ks, entry.Knowledge{Slug: "cache-keys", Title: "Cache keys", Tags: []string{"cache"}, CreatedAt: "2026-03-01T09:00:00Z",
		Body: "Keys are the tenant id, a colon and the invoice number."})
	ctx := Prime(Input{Task: Task{Title: "Cache entries never expire"}, Knowledge: ks}, Options{Budgets: config.DefaultBudgets()})
	var got []string
	for _, s := range ctx.Sections {
		if s.Name == SectionKnowledge {
			got = s.Entries
		}
	}
	if want := []string{"knowledge:cache-ttl-4", "knowledge:cache-keys"}; !slices.Equal(got, want) {
		t.Errorf("knowledge shown %q, want %q", got, want)
	}
}

// Seed 004's learnings that match a task are ordered by its relevance
// formula on top of the task's score: confidence, the task type (from the
// task's title: "Fix failing auth tests" is test-fix), success rate and
// recency. A learning without a kind gets nothing from it.
func TestSeed004LearningsRankByTheirRelevance(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f := func(v float64) *float64 { return &v }
	ls := []entry.Learning{
		{ID: "l-000001", Category: "pitfall", Tags: []string{"auth"}, CreatedAt: "2026-02-28T12:00:00Z", Status: "active",
			Body: "Plain learning about auth tokens.", Path: ".agent/learnings/l-000001.md"},
		{ID: "l-000002", Category: "strategy", Kind: "strategy", TaskType: "feature", Confidence: f(0.3), SuccessRate: f(0.5),
			Tags: []string{"auth"}, CreatedAt: "2025-06-01T12:00:00Z", Status: "active",
			Body: "Build the auth feature behind a flag.", Path: ".agent/learnings/l-000002.md"},
		{ID: "l-000003", Category: "strategy", Kind: "strategy", TaskType: "test-fix", Confidence: f(0.9), SuccessRate: f(0.9),
			Tags: []string{"auth"}, CreatedAt: "2026-02-20T12:00:00Z", Status: "active",
			Body: "Reset the auth fixtures between tests.", Path: ".agent/learnings/l-000003.md"},
	}
	in := Input{Task: Task{Title: "Fix failing auth tests"}, Learnings: ls, Now: now}
	ctx := Prime(in, Options{Budgets: config.DefaultBudgets()})
	var md string
	for _, s := range ctx.Sections {
		if s.Name == SectionLearnings {
			md = s.Markdown
		}
	}
	first, second, third := strings.Index(md, "Reset the auth fixtures"), strings.Index(md, "Build the auth feature"), strings.Index(md, "Plain learning")
	if first < 0 || second < 0 || third < 0 || !(first < second && second < third) {
		t.Fatalf("want the test-fix strategy, then the other strategy, then the plain learning:\n%s", md)
	}
	seed004Relevance := func(l *entry.Learning) float64 {
		h := catalog.LearningHead(l)
		c, _ := keywords{taskType: "test-fix"}.learningCandidate(0, &h, Task{})
		return c.seed004Relevance(now)
	}
	if r := seed004Relevance(&ls[2]); r < 0.9 || r > 1 {
		t.Errorf("the test-fix strategy's relevance is %.3f, want 0.36+0.3+0.18+~0.09", r)
	}
	if r := seed004Relevance(&ls[0]); r != 0 {
		t.Errorf("a learning without a kind got %.3f", r)
	}
}

// TestKindsTakeTurns: seed 004's kinds share the places their learnings
// hold, best of each kind first; a learning without a kind stays put.
func TestKindsTakeTurns(t *testing.T) {
	l := func(id, kind string) entry.Learning { return entry.Learning{ID: id, Kind: kind} }
	ranked := []entry.Learning{l("c1", "convention"), l("p1", ""), l("c2", "convention"), l("c3", "convention"), l("a1", "antipattern"), l("s1", "strategy"), l("a2", "antipattern")}
	var got []string
	for _, x := range kindsTakeTurns(ranked) {
		got = append(got, x.ID)
	}
	if want := "c1 p1 a1 s1 c2 a2 c3"; strings.Join(got, " ") != want {
		t.Errorf("got %s, want %s", strings.Join(got, " "), want)
	}
}

// TestMomentsCompareAsTheirTexts: two UTC times of lore's form compare as
// their texts do, and any other pair as the times they parse to: other
// zones, fractions of a second, dates, years from 1 to 9999, and texts of
// lore's form that are no time (the 30th of February, hour 24).
func TestMomentsCompareAsTheirTexts(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	forms := []func(time.Time) string{
		func(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05Z") },
		func(at time.Time) string { return at.In(time.FixedZone("", 3600)).Format(time.RFC3339) },
		func(at time.Time) string { return at.UTC().Format("2006-01-02") },
		func(at time.Time) string { return at.Add(time.Duration(rng.IntN(1e9))).Format(time.RFC3339Nano) },
	}
	// Lore's form against a date: February 29th of leap years and of
	// years that are not, the 30th of February, hour 24.
	for _, c := range []struct {
		a, b  string
		after bool
	}{
		{"2000-02-29T12:00:00Z", "2000-02-29", true}, {"1900-02-29T12:00:00Z", "1900-02-28", false},
		{"2100-02-29T12:00:00Z", "0001-01-01", false}, {"2024-02-29T12:00:00Z", "2024-02-29", true},
		{"2026-02-30T00:00:00Z", "0002-01-01", false}, {"2026-12-31T24:00:00Z", "2026-12-31", false},
		{"0001-01-01T00:00:01Z", "0001-01-01", true}, {"9999-12-31T23:59:59Z", "9999-12-31T23:59:58+00:00", true},
	} {
		if got := newer(c.a, c.b); got != c.after {
			t.Errorf("%s after %s: %v", c.a, c.b, got)
		}
	}
	for range 40000 {
		at := func(when time.Time) string {
			if rng.IntN(10) == 0 { // lore's form, with any digits
				return fmt.Sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", rng.IntN(10000), rng.IntN(14), rng.IntN(33), rng.IntN(26), rng.IntN(61), rng.IntN(61))
			}
			return forms[rng.IntN(len(forms))](when)
		}
		year := 1990 + rng.IntN(60)
		if rng.IntN(4) == 0 {
			year = 1 + rng.IntN(9999)
		}
		when := time.Date(year, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, time.UTC)
		other := when.Add(time.Duration(rng.IntN(5*24*3600)-5*12*3600) * time.Second) // within two and a half days
		if rng.IntN(2) == 0 {
			other = time.Date(1990+rng.IntN(60), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60), 0, time.UTC)
		}
		a, b := at(when), at(other)
		want := entry.ParseTimestamp(a).After(entry.ParseTimestamp(b))
		if utcSeconds(a) && utcSeconds(b) {
			want = a > b
		}
		if got := momentOf(a).after(momentOf(b)); got != want || newer(a, b) != want {
			t.Fatalf("%s after %s: moment says %v, newer %v, want %v", a, b, got, newer(a, b), want)
		}
	}
}

// TestPrimeAgentErrors: three iterations in which the agent did not run
// to the end (issue 37) are no previous attempts — nothing to "not
// repeat" — and no stuck loop or escalation; Loop Status says how many
// in a row, what the last one said, and to check the agent.
func TestPrimeAgentErrors(t *testing.T) {
	const why = `Agent error (overload): API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	var journal []entry.JournalEntry
	for i := 1; i <= 3; i++ {
		journal = append(journal, entry.JournalEntry{RunID: "r1", Iteration: i, TaskID: "T-1", Outcome: "failed",
			CreatedAt: fmt.Sprintf("2026-11-24T06:0%d:00Z", i), Failure: &entry.Failure{WhyFailed: why, ErrorCategory: entry.AgentErrorCategory}})
	}
	in := Input{Task: Task{ID: "T-1", Title: "Fix the upload step", Run: "r1"}, Journal: journal}
	in.Loop = strategy.Compute(journal, strategy.Input{TaskID: "T-1", Run: "r1"})
	md := Prime(in, Options{Budgets: config.DefaultBudgets()}).Markdown()
	for _, bad := range []string{"Previous Attempts", "Do not repeat", "Stuck loop", "escalated"} {
		if strings.Contains(md, bad) {
			t.Errorf("prime says %q of agent errors:\n%s", bad, md)
		}
	}
	want := "- **Agent errors:** the agent has not run to the end 3 time(s) in a row: check the agent (last: " + why + ")\n"
	if !strings.Contains(md, want) || !strings.Contains(md, "attempt #1, 0 consecutive failure(s)") {
		t.Errorf("Loop Status does not say what the agent errors are:\n%s", md)
	}
}
