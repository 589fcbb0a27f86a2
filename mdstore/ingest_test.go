package mdstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"lore/mdstore/entry"
	"lore/sigils"
)

func TestIngestRecordsOneIterationInOneCommit(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	res, wr, err := s.Ingest(IngestInput{Output: fullOutput, RunID: "run-0a1b2c3d", Iteration: 3, Model: "opus", DurationSecs: 42, Files: []string{"src/db.rs"}})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Journal
	if e.Outcome != "done" || e.TaskID != "t-abc123" || e.Difficulty != "moderate" || e.NextModel != "sonnet" || e.Failure != nil ||
		e.Notes != "Chose to create iteration_outcomes before failure_reports.\nTests pass." || len(res.Knowledge) != 1 || len(res.Learnings) != 2 {
		t.Fatalf("result: %+v", res)
	}
	if got := git("rev-list", "--count", "HEAD"); got != "2" || wr.Commit == "" {
		t.Fatalf("%s commits", got)
	}
	if !strings.HasPrefix(e.Key(), "run-0a1b2c3d/0003-") || e.Path != entry.JournalDir+"/"+e.Key()+".md" {
		t.Fatalf("key %s, path %s", e.Key(), e.Path)
	}
	if got := git("show", "--name-only", "--format=%s%n%(trailers:only)", "HEAD"); !strings.Contains(got, "lore: ingest "+e.Key()+" (done t-abc123)") ||
		!strings.Contains(got, "Run-Id: run-0a1b2c3d") || !strings.Contains(got, "Iteration: 3") || !strings.Contains(got, "Task-Id: t-abc123") ||
		!strings.Contains(got, e.Path) || !strings.Contains(got, ".agent/knowledge/cargo-bench-requires-nightly.md") ||
		strings.Count(got, ".agent/learnings/l-") != 2 {
		t.Fatalf("commit:\n%s", got)
	}
	// The same iteration again: nothing new, no commit.
	again, wr, err := s.Ingest(IngestInput{Output: fullOutput, RunID: "run-0a1b2c3d", Iteration: 3, Model: "opus", DurationSecs: 42, Files: []string{"src/db.rs"}})
	if err != nil {
		t.Fatal(err)
	}
	if wr.Commit != "" || !again.JournalReplaced || again.Knowledge[0].Action != "unchanged" || again.Learnings[0].Action != "duplicate" || again.Learnings[1].Action != "duplicate" {
		t.Fatalf("second ingest: %+v %+v", again, wr)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

func TestIngestFailedWithoutReportGetsTheMinimalOne(t *testing.T) {
	t.Parallel()
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	out := "I could not get the migration to run.\n<retry-suggestion>Split it in two.</retry-suggestion>\n<task-failed>t-0dfebf</task-failed>"
	res, _, err := s.Ingest(IngestInput{Output: out, RunID: "run-1", Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Journal.Failure
	if res.Journal.Outcome != "failed" || f == nil || f.WhyFailed != MinimalFailureReason || f.ErrorCategory != "unknown" || f.WhatTried != "" ||
		f.RetrySuggestion != "Split it in two." || !strings.HasPrefix(f.StackTrace, "I could not get the migration to run.") {
		t.Fatalf("%+v %+v", res.Journal, f)
	}
	// Sigils but no task sigil: blocked, with the minimal report too.
	res, _, err = s.Ingest(IngestInput{Output: "I ran out of turns.\n<journal>Half the migration.</journal>", RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Journal.Outcome != "blocked" || res.Journal.Iteration != 2 || res.Journal.Failure == nil {
		t.Fatalf("%+v", res.Journal)
	}
	// No sigil at all (an agent that speaks none): unreported, what it
	// said is the notes, and no failure.
	res, _, err = s.Ingest(IngestInput{Output: "I ran out of turns.\n", RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	if j := res.Journal; j.Outcome != "unreported" || j.Iteration != 3 || j.Failure != nil || j.Notes != "I ran out of turns." || res.NoOutcome == "" {
		t.Fatalf("%+v %+v", res.Journal, res)
	}
}

// TestIngestHowTheAgentEnded: what lore run saw of the agent's process.
// A bad end without a task sigil, an empty output or a known crash
// message is an agent error that says how the agent ended; with a task
// sigil and no crash message, the sigil counts. An interruption wins.
func TestIngestHowTheAgentEnded(t *testing.T) {
	t.Parallel()
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	for _, tc := range []struct {
		in      IngestInput
		outcome string
		why     string // "": no failure report
		warning string
	}{
		{IngestInput{Output: "fatal: no such file", ProcessEnd: "exited with status 7"}, "failed", "Agent error: the agent exited with status 7", ""},
		{IngestInput{Output: "", ProcessEnd: "exited with status 1"}, "failed", "Agent error: the agent exited with status 1: the output is empty", ""},
		{IngestInput{Output: ""}, "failed", "Agent error: the output is empty", ""},
		{IngestInput{Output: "API Error: 529 {\"type\":\"error\"}\n<task-failed>T-1</task-failed>"}, "failed", "Agent error (overload): API Error: 529 {\"type\":\"error\"}", ""},
		{IngestInput{Output: "<task-failed>T-1</task-failed>", ProcessEnd: "exited with status 1"}, "failed", MinimalFailureReason + ": the agent exited with status 1", ""},
		{IngestInput{Output: "<task-done>T-1</task-done>", ProcessEnd: "exited with status 1"}, "done", "", ""},
		{IngestInput{Output: "<failure-report>\nwhat_tried: a\nwhy_failed: b\n</failure-report>\n<task-failed>T-1</task-failed>", ProcessEnd: "exited with status 1"}, "failed", "b", ""},
		{IngestInput{Output: "half done", ProcessEnd: "was interrupted with SIGINT (Ctrl-C)", Interrupted: true}, "interrupted", "Interrupted: the agent was interrupted with SIGINT (Ctrl-C)", ""},
		{IngestInput{Output: "<task-done>T-1</task-done>", ProcessEnd: "was interrupted with SIGINT (Ctrl-C)", Interrupted: true}, "interrupted",
			"Interrupted: the agent was interrupted with SIGINT (Ctrl-C)", "<task-done> at line 1 ignored: the iteration was interrupted"},
	} {
		tc.in.RunID, tc.in.TaskID = "run-2", "T-1"
		res, _, err := s.Ingest(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		j := res.Journal
		why := ""
		if j.Failure != nil {
			why = j.Failure.WhyFailed
		}
		if j.Outcome != tc.outcome || why != tc.why || strings.Join(res.Warnings, "; ") != tc.warning {
			t.Errorf("%q, %q: %s, %q, warnings %q", tc.in.Output, tc.in.ProcessEnd, j.Outcome, why, res.Warnings)
		}
	}
}

func TestIngestWithoutRunStartsOne(t *testing.T) {
	t.Parallel()
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	res, _, err := s.Ingest(IngestInput{Output: "<task-done>t-1</task-done>"})
	if err != nil || !res.RunStarted || !entry.ValidRunID(res.Journal.RunID) || res.Journal.Iteration != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	run, _ := s.CurrentRun()
	res2, _, err := s.Ingest(IngestInput{Output: "<task-done>t-2</task-done>"})
	if err != nil || res2.RunStarted || res2.Journal.RunID != run || res2.Journal.Iteration != 2 {
		t.Fatalf("%+v %v", res2, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "lore", "current-run")); err != nil {
		t.Fatal("the current run is not kept under the git dir")
	}
}

func TestIngestSkipsBadSigilsAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	out := `<knowledge tags="a|b" title="Bad tags">body</knowledge>
<knowledge tags="ok" title="Good">body</knowledge>
<knowledge tags="ok" title="good">same title, later body</knowledge>
<learning category="Not A Word!" tags="x">body</learning>
<task-done>t-1</task-done>`
	res, _, err := s.Ingest(IngestInput{Output: out, RunID: "run-1", Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Knowledge) != 1 || len(res.Skipped) != 3 || len(res.Learnings) != 0 {
		t.Fatalf("%+v", res)
	}
	for i, want := range []sigils.Skip{{Sigil: "knowledge", Line: 1, Reason: "tag 1"}, {Sigil: "knowledge", Line: 3, Reason: "merged into \"Good\" at line 2"},
		{Sigil: "learning", Line: 4, Reason: "a category is one lowercase word"}} {
		if got := res.Skipped[i]; got.Sigil != want.Sigil || got.Line != want.Line || !strings.HasPrefix(got.Reason, want.Reason) {
			t.Errorf("skipped %d: %+v, want %+v", i, got, want)
		}
	}
	k, err := s.KnowledgeEntry("good")
	if err != nil || k.Body != "same title, later body" {
		t.Fatalf("%+v %v", k, err)
	}
}

// TestLongNotesAreCut: a note past MaxJournalNotes is cut at a line, a
// fence the cut leaves open is closed, and ingest says so.
func TestLongNotesAreCut(t *testing.T) {
	t.Parallel()
	long := "Steps:\n\n```sh\n" + strings.Repeat("go test ./... -run TestWritePath -count=1\n", 80) + "```\nDone."
	got := entry.TruncateNotes(long, entry.MaxJournalNotes)
	if !strings.HasSuffix(got, "-count=1\n```\n[truncated]") || utf8.RuneCountInString(got) > entry.MaxJournalNotes+20 {
		t.Fatalf("cut to %d characters, ending %q", utf8.RuneCountInString(got), got[len(got)-40:])
	}
	if got := entry.TruncateNotes(strings.Repeat("word ", 500), 100); !strings.HasSuffix(got, "word [truncated]") || len(got) > 112 {
		t.Fatalf("one long line: %q", got)
	}
	if got := entry.TruncateNotes("short", 100); got != "short" {
		t.Fatalf("%q", got)
	}

	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	res, _, err := s.Ingest(IngestInput{Output: "<journal>" + long + "</journal><task-done>t-1</task-done>", RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(res.Journal.Notes); n > entry.MaxJournalNotes+20 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "kept the first 2000") {
		t.Fatalf("%d characters, warnings %q", n, res.Warnings)
	}
}

// TestIngestAgainIsANewIteration: one ingest, one iteration — the same
// output byte for byte again, without an iteration or a key, is a new
// iteration (the agent failed the same way twice); with the key of an
// iteration of the run, it is that iteration again, and changes nothing.
func TestIngestAgainIsANewIteration(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	ingest := func(output, key string) *IngestResult {
		t.Helper()
		res, _, err := s.Ingest(IngestInput{Output: output, RunID: "run-1", DurationSecs: 12, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	const failed = "<task-failed>t-1</task-failed>"
	for i := 1; i <= 3; i++ {
		if res := ingest(failed, ""); res.Journal.Iteration != i || res.JournalReplaced {
			t.Fatalf("ingest %d: iteration %d, replaced %v", i, res.Journal.Iteration, res.JournalReplaced)
		}
	}
	keyed := ingest(failed, "lore-run-1a2b")
	count := git("rev-list", "--count", "HEAD")
	again := ingest(failed, "lore-run-1a2b")
	if keyed.Journal.Iteration != 4 || again.Journal.Path != keyed.Journal.Path || !again.JournalReplaced || git("rev-list", "--count", "HEAD") != count {
		t.Fatalf("the key again: %+v, %s commits (was %s)", again.Journal, git("rev-list", "--count", "HEAD"), count)
	}
	if got := git("show", "HEAD:"+keyed.Journal.Path); !strings.Contains(got, `ingest_key: "lore-run-1a2b"`) {
		t.Fatalf("the key is not in the file:\n%s", got)
	}
	if other := ingest(failed, "lore-run-3c4d"); other.Journal.Iteration != 5 {
		t.Fatalf("another key: iteration %d", other.Journal.Iteration)
	}
}

// A <next-model> that is none of config.yaml's models is a warning and is
// not recorded, so no strategy recommends it; a full model id of one is
// recorded as written.
func TestIngestChecksNextModel(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	res, _, err := s.Ingest(IngestInput{Output: "<next-model>gpt-5</next-model>\n<task-done>t-1</task-done>", RunID: "run-1", Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := `<next-model> "gpt-5" is not one of the models in .agent/config.yaml (haiku, sonnet, opus): not recorded`
	if res.Journal.NextModel != "" || len(res.Warnings) != 1 || res.Warnings[0] != want || res.Journal.Outcome != "done" {
		t.Fatalf("next model %q, warnings %q", res.Journal.NextModel, res.Warnings)
	}
	if got := git("show", "HEAD:"+res.Journal.Path); strings.Contains(got, "next_model") {
		t.Fatalf("recorded:\n%s", got)
	}
	res, _, err = s.Ingest(IngestInput{Output: "<next-model>claude-opus-4-1</next-model>\n<task-done>t-1</task-done>", RunID: "run-1", Iteration: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Journal.NextModel != "claude-opus-4-1" || len(res.Warnings) != 0 {
		t.Fatalf("next model %q, warnings %q", res.Journal.NextModel, res.Warnings)
	}
	if got := git("show", "HEAD:"+res.Journal.Path); !strings.Contains(got, `next_model: "claude-opus-4-1"`) {
		t.Fatalf("not recorded as written:\n%s", got)
	}
}

// TestOutcomeOnly: without a task sigil, an ingest that records only
// outcomes (a Claude Code Stop hook) keeps the knowledge and learnings,
// reports what only an iteration could hold, and with no sigil at all
// records nothing.
func TestOutcomeOnly(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	count := git("rev-list", "--count", "HEAD")
	res, wr, err := s.Ingest(IngestInput{Output: "Just answering a question about `<task-done>`.", RunID: "claude-1", Iteration: 4, OutcomeOnly: true})
	if err != nil || res.Journal != nil || wr.Commit != "" || git("rev-list", "--count", "HEAD") != count {
		t.Fatalf("%+v %+v %v", res, wr, err)
	}
	res, wr, err = s.Ingest(IngestInput{Output: "<journal>notes</journal>\n<learning category=\"pitfall\" tags=\"x\">A learning worth keeping across tasks.</learning>", RunID: "claude-1", Iteration: 5, OutcomeOnly: true})
	if err != nil || res.Journal != nil || wr.Commit == "" || len(res.Learnings) != 1 {
		t.Fatalf("%+v %+v %v", res, wr, err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Sigil != "journal" || res.Skipped[0].Line != 1 {
		t.Fatalf("skipped %+v", res.Skipped)
	}
	if got := git("show", "--stat", "--format=%s", "HEAD"); strings.Contains(got, "journal/") || !strings.Contains(got, "ingest knowledge and learnings") {
		t.Fatalf("HEAD:\n%s", got)
	}
}

const fullOutput = `I added the failure_reports table and wired up the constraints.

<journal>
Chose to create iteration_outcomes before failure_reports.
Tests pass.
</journal>

<knowledge tags="testing,cargo,nightly" title="Cargo bench requires nightly">
Running cargo bench requires the nightly Rust toolchain.
</knowledge>

<learning category="success_pattern" tags="Rust, SQLite, foreign keys">
When adding tables with foreign keys in SQLite, enable PRAGMA foreign_keys = ON.
</learning>

<learning category="tool_usage" tags="cargo, testing">
Use cargo test --test name to run a single integration test file.
</learning>

<difficulty-estimate>moderate</difficulty-estimate>
<next-model>sonnet</next-model>
<task-done>t-abc123</task-done>`
