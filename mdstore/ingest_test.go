package mdstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIngestRecordsOneIterationInOneCommit(t *testing.T) {
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
	if !strings.HasPrefix(e.Key(), "run-0a1b2c3d/0003-") || e.Path != JournalDir+"/"+e.Key()+".md" {
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
	// No task sigil at all: blocked, with the minimal report too.
	res, _, err = s.Ingest(IngestInput{Output: "I ran out of turns.", RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Journal.Outcome != "blocked" || res.Journal.Iteration != 2 || res.Journal.Failure == nil {
		t.Fatalf("%+v", res.Journal)
	}
}

func TestIngestWithoutRunStartsOne(t *testing.T) {
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	res, _, err := s.Ingest(IngestInput{Output: "<task-done>t-1</task-done>"})
	if err != nil || !res.RunStarted || !ValidRunID(res.Journal.RunID) || res.Journal.Iteration != 1 {
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
	if len(res.Knowledge) != 1 || len(res.Skipped) != 2 || len(res.Learnings) != 0 {
		t.Fatalf("%+v", res)
	}
	k, err := s.KnowledgeEntry("good")
	if err != nil || k.Body != "same title, later body" {
		t.Fatalf("%+v %v", k, err)
	}
}
