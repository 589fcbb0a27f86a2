package sigils

import (
	"os"
	"path/filepath"
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
		{"task-done", "work\n<task-done>t-abc123</task-done>", func(r Result) string { return r.Task.ID }, "t-abc123"},
		{"task-done whitespace", "<task-done>\n  t-abc123 \n</task-done>", func(r Result) string { return r.Task.ID }, "t-abc123"},
		{"task-done empty", "<task-done></task-done>", func(r Result) string { return r.Task.ID }, ""},
		{"task-done only spaces", "<task-done>   </task-done>", func(r Result) string { return r.Task.ID }, ""},
		{"task-done unclosed", "<task-done>t-1", func(r Result) string { return r.Task.ID }, ""},
		{"task-done last wins", "<task-done>t-1</task-done><task-done>t-2</task-done>", func(r Result) string { return r.Task.ID }, "t-2"},
		{"task-done last valid wins", "<task-done>t-2</task-done><task-done></task-done>", func(r Result) string { return r.Task.ID }, "t-2"},
		{"task-failed", "<task-failed>t-0dfebf</task-failed>", func(r Result) string { return r.Task.ID }, "t-0dfebf"},
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
		{"difficulty capitalised", "<difficulty-estimate>Hard</difficulty-estimate>", func(r Result) string { return r.Difficulty }, "hard"},
		{"journal first wins", "<journal>a</journal><journal>b</journal>", func(r Result) string { return r.Journal }, "a"},
		{"task-done placeholder", "<task-done>ID</task-done>", func(r Result) string { return r.Task.ID }, ""},
		{"task-done placeholder in brackets", "<task-done><task-id></task-done>", func(r Result) string { return r.Task.ID }, ""},
		{"task-done in inline code", "`<task-done>t-1</task-done>`", func(r Result) string { return r.Task.ID }, ""},
		{"task-done after inline code", "`x` <task-done>t-1</task-done>", func(r Result) string { return r.Task.ID }, "t-1"},
		{"task-done with a stray backtick before", "it's a ` mistake\n\n<task-done>t-1</task-done> and `x`", func(r Result) string { return r.Task.ID }, "t-1"},
		{"task-done in a fence", "```\n<task-done>t-1</task-done>\n```", func(r Result) string { return r.Task.ID }, ""},
		{"task-done in a quoted fence", "> ```\n> <task-done>t-1</task-done>\n> ```", func(r Result) string { return r.Task.ID }, ""},
		{"task-done after an unclosed fence", "```\nsome code\n<task-done>t-1</task-done>", func(r Result) string { return r.Task.ID }, "t-1"},
		{"closing tag in code", "<journal>we read `</journal>` tags</journal>", func(r Result) string { return r.Journal }, "we read `</journal>` tags"},
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
		{Title: "Cargo bench requires nightly", Tags: []string{"testing", "cargo", "nightly"}, Body: "Running cargo bench requires the nightly toolchain.", Line: 2},
		{Title: "Single quotes, reversed", Tags: []string{"db"}, Body: "WAL mode.", Line: 5},
		{Title: "Last one", Tags: []string{"last"}, Body: "still found", Line: 12},
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
		{Category: "success_pattern", Tags: []string{"Rust", "SQLite", "foreign keys", "migration"}, Body: "When adding new tables with foreign keys in SQLite, enable PRAGMA foreign_keys = ON.", Line: 1},
		{Category: "tool_usage", Tags: []string{"cargo", "testing"}, Body: "Use cargo test --test name to run one integration test file.", Line: 5},
		{Category: "brand_new_category", Tags: []string{"x"}, Body: "Unknown categories are kept.", Line: 8},
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
		Line:          3,
	}
	if !reflect.DeepEqual(r.FailureReport, want) {
		t.Fatalf("got %#v", r.FailureReport)
	}
	if r.Task != (Task{Outcome: "failed", ID: "t-0dfebf", Line: 13}) {
		t.Fatalf("task = %+v", r.Task)
	}
}

// TestFailureReportFields: how agents write a report, field by field.
func TestFailureReportFields(t *testing.T) {
	cases := []struct {
		name, content string
		want          FailureReport
	}{
		{"minimal", "what_tried: x\nwhy_failed: y", FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}}},
		{"why_failed missing keeps the rest", "what_tried: x\nrelevant_files: a.go\nstack_trace: boom",
			FailureReport{WhatTried: "x", ErrorCategory: "unknown", RelevantFiles: []string{"a.go"}, StackTrace: "boom"}},
		{"empty value", "what_tried:\nwhy_failed: y", FailureReport{WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}}},
		{"a known key ends the trace", "stack_trace: line 1\n  line 2\nerror_category: build_error\nwhat_tried: x\nwhy_failed: y",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "build_error", RelevantFiles: []string{}, StackTrace: "line 1\n  line 2"}},
		{"an unknown snake_case key ends the trace and is ignored", "what_tried: x\nwhy_failed: y\nstack_trace: a\nroot_cause: flaky\nb",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}, StackTrace: "a"}},
		{"trace lines that look like keys but are not", "what_tried: x\nwhy_failed: y\nstack_trace:\nError: ENOENT\npanic: boom\nmain.go:12: undefined: foo\n\ngoroutine 1 [running]:\nFAIL: TestX\nerror: could not compile\nhint: see git help\nbash: line 1: jq: command not found\nmigrate: 0042_events.up.sql failed\nnote: run with `RUST_BACKTRACE=1`",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}, StackTrace: "Error: ENOENT\npanic: boom\nmain.go:12: undefined: foo\n\ngoroutine 1 [running]:\nFAIL: TestX\nerror: could not compile\nhint: see git help\nbash: line 1: jq: command not found\nmigrate: 0042_events.up.sql failed\nnote: run with `RUST_BACKTRACE=1`"}},
		{"an unknown word key ends the trace", "what_tried: x\nwhy_failed: y\nstack_trace: a\nnotes: not the trace",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}, StackTrace: "a"}},
		{"a fenced trace", "what_tried: x\nwhy_failed: y\nstack_trace:\n```\nwhat_tried: inside the fence\n```\nerror_category: timeout",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "timeout", RelevantFiles: []string{}, StackTrace: "what_tried: inside the fence"}},
		{"a YAML block marker", "what_tried: x\nwhy_failed: y\nstack_trace: |\n  a\n  b",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}, StackTrace: "a\n  b"}},
		{"files in brackets", "what_tried: x\nwhy_failed: y\nrelevant_files: [a.go, b.go]",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{"a.go", "b.go"}}},
		{"files as JSON", "what_tried: x\nwhy_failed: y\nrelevant_files: [\"a.go\", \"b.go\"]",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{"a.go", "b.go"}}},
		{"files one per line", "what_tried: x\nwhy_failed: y\nrelevant_files:\n- a.go\n- `b.go`\n\nnot a file",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{"a.go", "b.go"}}},
		{"bullets, bold and loose keys", "- **What tried**: x\n* why-failed: y\n- Error category: timeout",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "timeout", RelevantFiles: []string{}}},
		{"a value on two lines", "what_tried: ran the\n  migration twice\nwhy_failed: y",
			FailureReport{WhatTried: "ran the migration twice", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}}},
		{"an unknown word key ends a list", "what_tried: x\nwhy_failed: y\nrelevant_files: a.go\nseverity: high",
			FailureReport{WhatTried: "x", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{"a.go"}}},
		{"the first of a repeated key", "what_tried: 1\nwhat_tried: 2\nwhy_failed: y",
			FailureReport{WhatTried: "1", WhyFailed: "y", ErrorCategory: "unknown", RelevantFiles: []string{}}},
	}
	for _, c := range cases {
		if got := parseFailureReport(c.content); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.name, got, c.want)
		}
	}
}

// TestWhichFailureReportCounts: the first complete one; an incomplete one
// when there is no complete one, and every other is reported.
func TestWhichFailureReportCounts(t *testing.T) {
	cases := []struct {
		text        string
		whatTried   string // of the report that counts; "-" for none
		skippedHere []int  // lines of skipped failure reports
	}{
		{"<failure-report></failure-report>", "-", []int{1}},
		{"<failure-report>\nwhat_tried: x\n</failure-report>", "x", []int{1}},
		{"<failure-report>what_tried: x\nwhy_failed: y\n", "-", []int{1}}, // never closed
		{"<failure-report>a</failure-report>\n<failure-report>what_tried: 1\nwhy_failed: 2</failure-report>", "1", []int{1}},
		{"<failure-report>what_tried: 0</failure-report>\n<failure-report>what_tried: 1\nwhy_failed: 2</failure-report>", "1", []int{1}},
		{"<failure-report>what_tried: 1\nwhy_failed: 2</failure-report>\n<failure-report>what_tried: 3\nwhy_failed: 4</failure-report>", "1", []int{3}},
	}
	for _, c := range cases {
		r := Parse(c.text)
		got := "-"
		if r.FailureReport != nil {
			got = r.FailureReport.WhatTried
		}
		var lines []int
		for _, s := range r.Skipped {
			if s.Sigil == "failure-report" {
				lines = append(lines, s.Line)
			}
		}
		if got != c.whatTried || !reflect.DeepEqual(lines, c.skippedHere) {
			t.Errorf("%q: report %q, skipped at %v; want %q, %v (%+v)", c.text, got, lines, c.whatTried, c.skippedHere, r.Skipped)
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
	if r.Task.ID != "t-1" || r.Journal != "Notes." || len(r.Knowledge) != 1 || len(r.Learnings) != 1 || r.Difficulty != "easy" || r.NextModel != "haiku" {
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

// BenchmarkParseOutput reads a megabyte of agent output: the outputs of
// testdata (prose, lists, fences, inline code, sigils), one after another.
func BenchmarkParseOutput(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				b.Fatal(err)
			}
			sb.Write(data)
			sb.WriteString("\n")
		}
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Parse(text)
	}
}

// BenchmarkParseBackticks reads a megabyte of backtick runs and fences
// that do not pair, then a sigil (without one the code is not looked
// for): the code finder's worst case.
func BenchmarkParseBackticks(b *testing.B) {
	text := strings.Repeat("a `` b ``` c ` d\n```go\n~~~\n", 1<<20/28) + "<task-done>t-1</task-done>"
	b.SetBytes(int64(len(text)))
	for i := 0; i < b.N; i++ {
		Parse(text)
	}
}

func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add("<task-done>t-1</task-done>")
	f.Add("<knowledge tags='A,b' title=\"t\">body</knowledge><learning category=c tags=x>y</learning>")
	f.Add("<failure-report>\nwhat_tried: a\nwhy_failed: b\nstack_trace: x\n  y\n</failure-report>")
	f.Add("<journal><journal></journal></journal><difficulty-estimate>hard</difficulty-estimate>")
	f.Fuzz(func(t *testing.T, text string) {
		r := Parse(text) // must not panic
		for _, s := range []string{r.Task.ID, r.NextModel, r.Journal, r.RetrySuggestion} {
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
			if fr.empty() || fr.ErrorCategory == "" || utf8.RuneCountInString(fr.StackTrace) > MaxStackTrace {
				t.Fatalf("failure report %+v", fr)
			}
		}
	})
}

// TestRealOutputs reads agent outputs written the way agents write them
// (testdata/*.txt): what counts, what is skipped and what is ignored, each
// at its line.
func TestRealOutputs(t *testing.T) {
	type at struct {
		sigil string
		line  int
	}
	cases := []struct {
		file      string
		task      Task
		knowledge []string // titles
		learnings int
		journal   string // its start
		report    string // what_tried of the failure report; "" for none
		skipped   []at
		ignored   []at
		check     func(t *testing.T, r Result)
	}{
		{file: "echoed-prime", task: Task{"done", "t-42", 31}, journal: "Added retryTransport",
			ignored: []at{{"task-done", 11}, {"task-failed", 11}, {"journal", 12}, {"knowledge", 13}, {"learning", 14},
				{"task-done", 17}, {"task-failed", 17}, {"journal", 18}, {"knowledge", 21}, {"learning", 22},
				{"failure-report", 23}, {"next-model", 24}, {"difficulty-estimate", 25}}},
		{file: "code-fences", task: Task{"done", "t-9", 31}, knowledge: []string{"Sigils in code are not sigils"}, journal: "Made the parser skip code.",
			ignored: []at{{"task-failed", 1}, {"task-failed", 5}, {"failure-report", 6}, {"knowledge", 10}, {"learning", 17}, {"task-done", 21}, {"journal", 24}}},
		{file: "both-task-sigils", task: Task{"done", "t-17", 9}, journal: "Regenerated the schema fixture",
			check: func(t *testing.T, r Result) {
				if len(r.Overruled) != 1 || r.Overruled[0].Line != 3 {
					t.Fatalf("overruled %+v", r.Overruled)
				}
				if why := r.Overruled[0].Reason; !strings.Contains(why, "<task-done>t-17</task-done> at line 9") {
					t.Errorf("the warning does not name both: %q", why)
				}
			}},
		{file: "long-journal", task: Task{"done", "t-23", 86}, journal: "Split the store's write path in three steps:\n\n1. plan",
			check: func(t *testing.T, r Result) {
				if !strings.Contains(r.Journal, "\n```go\nfunc (s *Store) write(") || !strings.HasSuffix(r.Journal, "found nothing new.") {
					t.Errorf("the note lost its lines or its fence")
				}
				if r.Difficulty != "moderate" {
					t.Errorf("difficulty %q", r.Difficulty)
				}
			}},
		{file: "failure-report-habits", task: Task{"failed", "t-31", 21}, learnings: 1, report: "Ran the new migration 0042 against a copy of the CI database and rewrote the foreign key as deferrable.",
			check: func(t *testing.T, r Result) {
				fr := r.FailureReport
				if !reflect.DeepEqual(fr.RelevantFiles, []string{"db/migrations/0042_orders.sql", "db/schema.go"}) || fr.ErrorCategory != "dependency_error" ||
					!strings.HasPrefix(fr.StackTrace, "ERROR:  cannot alter") || !strings.HasSuffix(fr.StackTrace, "exit status 1") || strings.Contains(fr.StackTrace, "root_cause") {
					t.Errorf("report %#v", fr)
				}
				if r.RetrySuggestion == "" {
					t.Errorf("no retry suggestion")
				}
			}},
		{file: "unknown-model", task: Task{"failed", "t-55", 16}, report: "Traced the inference bug through types/infer.go",
			skipped: []at{{"difficulty-estimate", 15}},
			check: func(t *testing.T, r Result) {
				if r.NextModel != "gpt-5-ultra" { // judged by mdstore, which knows the models
					t.Errorf("next model %q", r.NextModel)
				}
				if fr := r.FailureReport; fr.StackTrace != "infer_test.go:88: got int, want T\n    infer_test.go:97: got []int, want []T" || len(fr.RelevantFiles) != 2 || fr.ErrorCategory != "logic_error" {
					t.Errorf("report %#v", fr)
				}
			}},
		{file: "malformed", task: Task{"done", "t-1", 15}, journal: "first note", report: "ran the tests",
			skipped: []at{{"knowledge", 2}, {"knowledge", 3}, {"knowledge", 4}, {"learning", 5}, {"learning", 6}, {"knowledge", 7},
				{"failure-report", 8}, {"journal", 12}, {"retry-suggestion", 13}, {"learning", 16}},
			ignored: []at{{"task-done", 14}},
			check: func(t *testing.T, r Result) {
				want := []string{"no title", "no tags", "no body", "no tags", "no category", "its attributes do not parse",
					"no why_failed", "only the first <journal> counts (line 11)", "empty", "never closed"}
				for i, s := range r.Skipped {
					if !strings.HasPrefix(s.Reason, want[i]) {
						t.Errorf("skipped at line %d: %q, want %q", s.Line, s.Reason, want[i])
					}
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", c.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			r := Parse(string(data))
			if r.Task != c.task {
				t.Errorf("task %+v, want %+v", r.Task, c.task)
			}
			var titles []string
			for _, k := range r.Knowledge {
				titles = append(titles, k.Title)
			}
			if !reflect.DeepEqual(titles, c.knowledge) || len(r.Learnings) != c.learnings {
				t.Errorf("knowledge %q, %d learnings", titles, len(r.Learnings))
			}
			if !strings.HasPrefix(r.Journal, c.journal) || (c.journal == "") != (r.Journal == "") {
				t.Errorf("journal %q", r.Journal)
			}
			if got := ""; r.FailureReport != nil && r.FailureReport.WhatTried != c.report || r.FailureReport == nil && c.report != got {
				t.Errorf("failure report %#v", r.FailureReport)
			}
			list := func(skips []Skip) []at {
				var out []at
				for _, s := range skips {
					out = append(out, at{s.Sigil, s.Line})
				}
				return out
			}
			if got := list(r.Skipped); !reflect.DeepEqual(got, c.skipped) {
				t.Errorf("skipped %v, want %v\n%+v", got, c.skipped, r.Skipped)
			}
			if got := list(r.Ignored); !reflect.DeepEqual(got, c.ignored) {
				t.Errorf("ignored %v, want %v\n%+v", got, c.ignored, r.Ignored)
			}
			if c.check != nil {
				c.check(t, r)
			}
		})
	}
}
