package hooks

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	// The turn's ingest key: the uuid of the message the person typed,
	// not of a tool result or a meta message after it.
	if k := turn.Key(); k != "claude-686f0296-e115-4596-81e5-c65fba6ab2ef-u2" {
		t.Fatalf("key = %s", k)
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
	for _, empty := range []string{"", " \n"} {
		if _, err := ReadClaudeSessionStart(strings.NewReader(empty)); !errors.Is(err, ErrNoPayload) {
			t.Fatalf("%q: %v, want ErrNoPayload", empty, err)
		}
	}
	if _, err := ReadClaudeSessionStart(strings.NewReader("hello")); err == nil || errors.Is(err, ErrNoPayload) || !strings.Contains(err.Error(), "not JSON") {
		t.Fatalf("garbage: %v", err)
	}
	out := string(SessionStartOutput("# Memories\n<task-done>\"x\"</task-done>\n"))
	want := `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"# Memories\n<task-done>\"x\"</task-done>\n"}}` + "\n"
	if out != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
}

// The files a turn edits and how long it took: only this turn's tool
// uses, never a subagent's; each file once.
func TestLastTurnFilesAndDuration(t *testing.T) {
	f, err := os.Open("testdata/edits.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	turn, err := LastTurn(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/w/proj/config/load.go", "/w/proj/config/load_test.go", "/w/proj/notes/explore.ipynb", "/w/proj/notes/other.ipynb", "/home/dev/.config/tool.toml"}
	if !slices.Equal(turn.Files, want) {
		t.Fatalf("files:\n%q\nwant\n%q", turn.Files, want)
	}
	if turn.DurationSecs != 150.5 { // 12:01:00.250 to 12:03:30.750
		t.Fatalf("duration %v, want 150.5", turn.DurationSecs)
	}
	if turn.Number != 2 || !strings.HasPrefix(turn.Text, "I'll write the loader and its test.\n\nThe loader") || turn.Model != "claude-sonnet-4-5-20250929" {
		t.Fatalf("turn = %+v", turn)
	}
}

// A duration needs both ends, readable, in order; otherwise it is 0.
func TestTurnDuration(t *testing.T) {
	line := func(kind, content, ts string) string {
		l := `{"type":"` + kind + `","message":{"content":` + content + `}`
		if ts != "" {
			l += `,"timestamp":"` + ts + `"`
		}
		return l + "}\n"
	}
	asked := func(ts string) string { return line("user", `"Fix the build."`, ts) }
	answer := func(ts string) string { return line("assistant", `[{"type":"text","text":"Fixed."}]`, ts) }
	result := func(ts string) string {
		return line("user", `[{"type":"tool_result","tool_use_id":"t","content":"ok"}]`, ts)
	}
	for _, c := range []struct {
		name       string
		transcript string
		want       float64
	}{
		{"both", asked("2025-09-30T12:00:00Z") + answer("2025-09-30T12:00:01.5Z"), 1.5},
		{"time zones", asked("2025-09-30T12:00:00Z") + answer("2025-09-30T14:00:30+02:00"), 30},
		{"to the last assistant message, not a tool result", asked("2025-09-30T12:00:00Z") + answer("2025-09-30T12:00:10Z") + result("2025-09-30T12:09:00Z"), 10},
		{"from the message the person typed", asked("2025-09-30T11:00:00Z") + answer("2025-09-30T11:00:05Z") + asked("2025-09-30T12:00:00Z") + result("2025-09-30T12:00:01Z") + answer("2025-09-30T12:00:02Z"), 2},
		{"no timestamp on the person's message", asked("") + answer("2025-09-30T12:00:01Z"), 0},
		{"no timestamp on the last answer", asked("2025-09-30T12:00:00Z") + answer("2025-09-30T12:00:01Z") + answer(""), 0},
		{"a timestamp that is not RFC 3339", asked("2025-09-30 12:00:00") + answer("2025-09-30T12:00:01Z"), 0},
		{"answered before it was asked", asked("2025-09-30T12:00:05Z") + answer("2025-09-30T12:00:01Z"), 0},
		{"no answer yet", asked("2025-09-30T12:00:00Z"), 0},
		{"the turn before's answer is not this turn's", asked("2025-09-30T12:00:00Z") + answer("2025-09-30T12:10:00Z") + asked("2025-09-30T12:05:00Z"), 0},
		{"an answer before anything was asked", answer("2025-09-30T12:00:01Z"), 0},
	} {
		turn, err := LastTurn(strings.NewReader(c.transcript))
		if err != nil || turn.DurationSecs != c.want {
			t.Errorf("%s: %v seconds (%v), want %v", c.name, turn.DurationSecs, err, c.want)
		}
	}
}

func TestFilesRelativeTo(t *testing.T) {
	root := t.TempDir()
	in := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	outside := filepath.Join(root+"x", "b.go") // shares root's prefix, not its directory
	up := root + string(filepath.Separator) + filepath.Join("..", "c.go")
	turn := Turn{Files: []string{in("a.go"), in("src", "d.go"), outside, up, "rel/e.go", in("src", ".", "d.go"), root}}
	got := turn.FilesRelativeTo(root)
	// Those outside the repository (beside it, above it, its top itself)
	// are left out: lore records only the repository's files.
	want := []string{"a.go", "src/d.go", "rel/e.go"}
	if !slices.Equal(got, want) {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	if got := (Turn{}).FilesRelativeTo(root); got != nil {
		t.Fatalf("no files: %q", got)
	}
}

// Claude Code may name a file through the resolved directory while lore
// was started through a link (macOS's /tmp), or the other way round.
func TestFilesRelativeToThroughLinks(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if err := os.Mkdir(filepath.Join(real, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	turn := Turn{Files: []string{filepath.Join(real, "src", "a.go"), filepath.Join(link, "b.go"), filepath.Join(link, "src", "a.go")}}
	for _, root := range []string{link, real} {
		if got, want := turn.FilesRelativeTo(root), []string{"src/a.go", "b.go"}; !slices.Equal(got, want) {
			t.Errorf("root %s: got %q, want %q", root, got, want)
		}
	}
}
