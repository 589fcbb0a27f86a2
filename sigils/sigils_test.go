package sigils

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSimpleSigils(t *testing.T) {
	cases := []struct {
		name, text string
		get        func(Result) string
		want       string
	}{
		{"task-done", "work\n<task-done>t-abc123</task-done>", func(r Result) string { return r.TaskDone }, "t-abc123"},
		{"task-done whitespace", "<task-done>\n  t-abc123 \n</task-done>", func(r Result) string { return r.TaskDone }, "t-abc123"},
		{"task-done empty", "<task-done></task-done>", func(r Result) string { return r.TaskDone }, ""},
		{"task-done only spaces", "<task-done>   </task-done>", func(r Result) string { return r.TaskDone }, ""},
		{"task-done unclosed", "<task-done>t-1", func(r Result) string { return r.TaskDone }, ""},
		{"task-done first wins", "<task-done>t-1</task-done><task-done>t-2</task-done>", func(r Result) string { return r.TaskDone }, "t-1"},
		{"task-done first valid wins", "<task-done></task-done><task-done>t-2</task-done>", func(r Result) string { return r.TaskDone }, "t-2"},
		{"task-failed", "<task-failed>t-0dfebf</task-failed>", func(r Result) string { return r.TaskFailed }, "t-0dfebf"},
		{"next-model", "<next-model>opus</next-model>", func(r Result) string { return r.NextModel }, "opus"},
		{"next-model multi-line refused", "<next-model>opus\nsonnet</next-model>", func(r Result) string { return r.NextModel }, ""},
		{"journal", "<journal>\nChose HashMap over BTreeMap.\nTests pass.\n</journal>", func(r Result) string { return r.Journal }, "Chose HashMap over BTreeMap.\nTests pass."},
		{"journal unclosed then closed", "<journal>draft <journal>final</journal>", func(r Result) string { return r.Journal }, "final"},
		{"journal not a longer tag", "<journal-entry>x</journal-entry>", func(r Result) string { return r.Journal }, ""},
		{"retry-suggestion", "<retry-suggestion>\nSplit the migration in two.\n</retry-suggestion>", func(r Result) string { return r.RetrySuggestion }, "Split the migration in two."},
		{"retry-suggestion empty", "<retry-suggestion></retry-suggestion>", func(r Result) string { return r.RetrySuggestion }, ""},
		{"difficulty", "<difficulty-estimate>moderate</difficulty-estimate>", func(r Result) string { return r.Difficulty }, "moderate"},
		{"difficulty padded", "<difficulty-estimate> hard </difficulty-estimate>", func(r Result) string { return r.Difficulty }, "hard"},
		{"difficulty invalid", "<difficulty-estimate>super-hard</difficulty-estimate>", func(r Result) string { return r.Difficulty }, ""},
		{"difficulty first valid", "<difficulty-estimate>nope</difficulty-estimate> <difficulty-estimate>easy</difficulty-estimate>", func(r Result) string { return r.Difficulty }, "easy"},
		{"difficulty empty", "<difficulty-estimate></difficulty-estimate>", func(r Result) string { return r.Difficulty }, ""},
	}
	for _, c := range cases {
		if got := c.get(Parse(c.text)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestKnowledge(t *testing.T) {
	text := `Some work.
<knowledge tags="Testing,cargo, Nightly" title="Cargo bench requires nightly">
Running cargo bench requires the nightly toolchain.
</knowledge>
<knowledge title='Single quotes, reversed' tags='db'>WAL mode.</knowledge>
<knowledge tags="x">no title</knowledge>
<knowledge title="no tags">body</knowledge>
<knowledge title="empty tags" tags=" , ">body</knowledge>
<knowledge tags="x" title="empty body">   </knowledge>
<knowledge tags="x" title="unclosed">never closed
<knowledge tags="a" title=broken>unquoted attribute</knowledge>
<knowledge tags="last" title="Last one">still found</knowledge>`
	got := Parse(text).Knowledge
	want := []Knowledge{
		{Title: "Cargo bench requires nightly", Tags: []string{"testing", "cargo", "nightly"}, Body: "Running cargo bench requires the nightly toolchain."},
		{Title: "Single quotes, reversed", Tags: []string{"db"}, Body: "WAL mode."},
		{Title: "Last one", Tags: []string{"last"}, Body: "still found"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

func TestLearnings(t *testing.T) {
	text := `<learning category="success_pattern" tags="Rust, SQLite, foreign keys, migration">
When adding new tables with foreign keys in SQLite, enable PRAGMA foreign_keys = ON.
</learning>

<learning tags="cargo, testing" category="tool_usage">
Use cargo test --test name to run one integration test file.
</learning>
<learning category="brand_new_category" tags="x">Unknown categories are kept.</learning>
<learning category="pitfall">missing tags</learning>
<learning tags="x">missing category</learning>
<learning category="pitfall" tags="x"></learning>`
	got := Parse(text).Learnings
	want := []Learning{
		{Category: "success_pattern", Tags: []string{"Rust", "SQLite", "foreign keys", "migration"}, Body: "When adding new tables with foreign keys in SQLite, enable PRAGMA foreign_keys = ON."},
		{Category: "tool_usage", Tags: []string{"cargo", "testing"}, Body: "Use cargo test --test name to run one integration test file."},
		{Category: "brand_new_category", Tags: []string{"x"}, Body: "Unknown categories are kept."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
}

func TestFailureReport(t *testing.T) {
	text := `I attempted to fix the foreign key constraint issue but encountered an error.

<failure-report>
what_tried: Modified claim_task() to initialize strategy_metrics row before claiming
why_failed: SQLite foreign key constraint failed because the task doesn't exist yet
error_category: dependency_error
relevant_files: src/dag/tasks.rs, src/memory/metrics.rs
severity: high
stack_trace: FOREIGN KEY constraint failed (code 787)
    at Connection::execute (src/dag/db.rs:45)
</failure-report>

<task-failed>t-0dfebf</task-failed>`
	r := Parse(text)
	want := &FailureReport{
		WhatTried:     "Modified claim_task() to initialize strategy_metrics row before claiming",
		WhyFailed:     "SQLite foreign key constraint failed because the task doesn't exist yet",
		ErrorCategory: "dependency_error",
		RelevantFiles: []string{"src/dag/tasks.rs", "src/memory/metrics.rs"},
		StackTrace:    "FOREIGN KEY constraint failed (code 787)\n    at Connection::execute (src/dag/db.rs:45)",
	}
	if !reflect.DeepEqual(r.FailureReport, want) {
		t.Fatalf("got %#v", r.FailureReport)
	}
	if r.TaskFailed != "t-0dfebf" {
		t.Fatalf("task-failed = %q", r.TaskFailed)
	}

	cases := map[string]*FailureReport{
		"<failure-report></failure-report>":                                                               nil,
		"<failure-report>\nwhat_tried: x\n</failure-report>":                                              nil, // why_failed missing
		"<failure-report>\nwhy_failed: y\n</failure-report>":                                              nil,
		"<failure-report>what_tried: x\nwhy_failed: y\n":                                                  nil, // unclosed
		"<failure-report>what_tried: x\nwhy_failed: y</failure-report>":                                   {WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown"},
		"<failure-report>\nwhat_tried:\nwhy_failed: y\n</failure-report>":                                 nil, // empty value
		"<failure-report>a</failure-report><failure-report>what_tried: 1\nwhy_failed: 2</failure-report>": {WhatTried: "1", WhyFailed: "2", ErrorCategory: "unknown"},
	}
	for text, want := range cases {
		if got := Parse(text).FailureReport; !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %#v, want %#v", text, got, want)
		}
	}
}

func TestStackTraceIsCutTo500Characters(t *testing.T) {
	trace := strings.Repeat("é", 600) // two bytes each: a byte cut would split one
	r := Parse("<failure-report>\nwhat_tried: a\nwhy_failed: b\nstack_trace: " + trace + "\n</failure-report>")
	if r.FailureReport == nil || utf8.RuneCountInString(r.FailureReport.StackTrace) != MaxStackTrace || !utf8.ValidString(r.FailureReport.StackTrace) {
		t.Fatalf("stack trace: %d characters", utf8.RuneCountInString(r.FailureReport.StackTrace))
	}
}

func TestEverySigilInOneOutput(t *testing.T) {
	text := "Done.\n<journal>Notes.</journal>\n<knowledge tags=\"a\" title=\"K\">k</knowledge>\n" +
		"<learning category=\"pitfall\" tags=\"b\">l</learning>\n<difficulty-estimate>easy</difficulty-estimate>\n" +
		"<next-model>haiku</next-model>\n<task-done>t-1</task-done>"
	r := Parse(text)
	if r.TaskDone != "t-1" || r.Journal != "Notes." || len(r.Knowledge) != 1 || len(r.Learnings) != 1 || r.Difficulty != "easy" || r.NextModel != "haiku" {
		t.Fatalf("result = %+v", r)
	}
}

func TestPathologicalOutputIsReadInLinearTime(t *testing.T) {
	// Megabytes of unclosed or malformed tags: a quadratic scan would not
	// finish. The speed itself is measured by BenchmarkParsePathological.
	var b strings.Builder
	for i := 0; i < 100000; i++ {
		b.WriteString("<journal> <knowledge title='x tags=\"")
	}
	b.WriteString("<journal>real</journal>")
	r := Parse(b.String())
	if r.Journal != "real" {
		t.Fatalf("journal = %q", r.Journal)
	}
}

func BenchmarkParsePathological(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 100000; i++ {
		sb.WriteString("<journal> <knowledge title='x tags=\"")
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Parse(text)
	}
}

func FuzzParse(f *testing.F) {
	f.Add("<task-done>t-1</task-done>")
	f.Add("<knowledge tags='A,b' title=\"t\">body</knowledge><learning category=c tags=x>y</learning>")
	f.Add("<failure-report>\nwhat_tried: a\nwhy_failed: b\nstack_trace: x\n  y\n</failure-report>")
	f.Add("<journal><journal></journal></journal><difficulty-estimate>hard</difficulty-estimate>")
	f.Fuzz(func(t *testing.T, text string) {
		r := Parse(text) // must not panic
		for _, s := range []string{r.TaskDone, r.TaskFailed, r.NextModel, r.Journal, r.RetrySuggestion} {
			if s != strings.TrimSpace(s) {
				t.Fatalf("untrimmed content %q", s)
			}
		}
		if r.Difficulty != "" && !strings.Contains(" trivial easy moderate hard blocked ", " "+r.Difficulty+" ") {
			t.Fatalf("difficulty %q", r.Difficulty)
		}
		for _, k := range r.Knowledge {
			if k.Title == "" || k.Body == "" || len(k.Tags) == 0 {
				t.Fatalf("incomplete knowledge %+v", k)
			}
			for _, tag := range k.Tags {
				if tag != strings.ToLower(tag) || tag == "" {
					t.Fatalf("tag %q", tag)
				}
			}
		}
		for _, l := range r.Learnings {
			if l.Category == "" || l.Body == "" || len(l.Tags) == 0 {
				t.Fatalf("incomplete learning %+v", l)
			}
		}
		if fr := r.FailureReport; fr != nil {
			if fr.WhatTried == "" || fr.WhyFailed == "" || fr.ErrorCategory == "" || utf8.RuneCountInString(fr.StackTrace) > MaxStackTrace {
				t.Fatalf("failure report %+v", fr)
			}
		}
	})
}
