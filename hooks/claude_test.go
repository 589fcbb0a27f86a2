package hooks

import (
	"os"
	"strings"
	"testing"
)

func TestLastTurnOfATranscript(t *testing.T) {
	f, err := os.Open("testdata/transcript.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	turn, err := LastTurn(f)
	if err != nil {
		t.Fatal(err)
	}
	want := "I'll read the migration first.\n\nThe failure_reports table is in, with ON DELETE CASCADE."
	if !strings.HasPrefix(turn.Text, want) || !strings.HasSuffix(turn.Text, "<task-done>t-0dfebf</task-done>") {
		t.Fatalf("text:\n%s", turn.Text)
	}
	for _, leftOut := range []string{"thinking", "subagent", "tool_result", "Done with the first table", "local-command"} {
		if strings.Contains(turn.Text, leftOut) {
			t.Fatalf("%q should not be in the turn:\n%s", leftOut, turn.Text)
		}
	}
	if turn.Number != 2 || turn.Model != "claude-opus-4-1" || turn.SessionID != "686f0296-e115-4596-81e5-c65fba6ab2ef" {
		t.Fatalf("turn = %+v", turn)
	}
	if RunID(turn.SessionID) != "claude-686f0296" {
		t.Fatalf("run = %s", RunID(turn.SessionID))
	}
}

func TestReadClaudeStop(t *testing.T) {
	p, err := ReadClaudeStop(strings.NewReader(`{"session_id":"abc","transcript_path":"/t.jsonl","cwd":"/w","hook_event_name":"Stop","stop_hook_active":false}`))
	if err != nil || p.TranscriptPath != "/t.jsonl" || p.SessionID != "abc" {
		t.Fatalf("%+v %v", p, err)
	}
	if _, err := ReadClaudeStop(strings.NewReader(`{"session_id":"abc"}`)); err == nil {
		t.Fatal("a payload without transcript_path was accepted")
	}
	if _, err := ReadClaudeStop(strings.NewReader(`not json`)); err == nil {
		t.Fatal("garbage was accepted")
	}
}

func TestEmptyTranscript(t *testing.T) {
	turn, err := LastTurn(strings.NewReader(""))
	if err != nil || turn.Text != "" || turn.Number != 0 {
		t.Fatalf("%+v %v", turn, err)
	}
}

func TestClaudeSessionStart(t *testing.T) {
	p, err := ReadClaudeSessionStart(strings.NewReader(`{"session_id":"s-1","cwd":"/p","hook_event_name":"SessionStart","source":"compact"}`))
	if err != nil || p.SessionID != "s-1" || p.Cwd != "/p" || p.Source != "compact" {
		t.Fatalf("%+v, %v", p, err)
	}
	if _, err := ReadClaudeSessionStart(strings.NewReader("")); err == nil {
		t.Fatal("an empty payload read without error")
	}
	out := string(SessionStartOutput("# Memories\n<task-done>\"x\"</task-done>\n"))
	want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Memories\n<task-done>\"x\"</task-done>\n"}}` + "\n"
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}
