package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"lore/agentout"
	"lore/internal/fsx"
)

// ClaudeStop is the JSON a Claude Code Stop hook receives on stdin.
type ClaudeStop struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	StopHookActive bool   `json:"stop_hook_active"`
}

// ReadClaudeStop decodes a Stop hook payload.
func ReadClaudeStop(r io.Reader) (ClaudeStop, error) {
	var p ClaudeStop
	if err := json.NewDecoder(r).Decode(&p); err != nil {
		return p, fmt.Errorf("the Stop hook payload is not JSON: %w", err)
	}
	if p.TranscriptPath == "" {
		return p, errors.New("the Stop hook payload has no transcript_path")
	}
	return p, nil
}

// Turn is the agent's part of one exchange in a transcript.
type Turn struct {
	// Text is the assistant's text since the last message the person
	// typed, its text blocks joined by blank lines (tool calls, tool
	// results and thinking left out).
	Text string
	// Number counts the person's messages up to this turn: the same turn
	// read twice gets the same number, which makes ingest idempotent.
	Number int
	// SessionID is the session the transcript belongs to.
	SessionID string
	// PromptID is the uuid of the message the person typed that began
	// the turn ("" in a transcript that has none).
	PromptID string
	// Model is the model of the turn's last assistant message.
	Model string
	// DurationSecs is the time from the message the person typed to the
	// turn's last assistant message, by their timestamps: 0 when either
	// has none, or one that is not RFC 3339, or the assistant's is not
	// the later.
	DurationSecs float64
	// Files are the files the turn's Edit, Write, MultiEdit and
	// NotebookEdit tool uses name, each once, in the order of its first
	// use, as the transcript writes them (absolute paths, in Claude
	// Code's). FilesRelativeTo maps them into a repository.
	Files []string
}

// transcriptLine is the part of a Claude Code transcript line lore reads.
type transcriptLine struct {
	Type        string `json:"type"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	SessionID   string `json:"sessionId"`
	UUID        string `json:"uuid"`
	Timestamp   string `json:"timestamp"`
	Message     struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// contentBlock is what personTyped reads of a block of a user message.
type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// LastTurn reads a Claude Code transcript (JSON Lines) and returns its
// last turn: what the assistant wrote and did since the last message the
// person typed. Lines it cannot read (a line being written, another
// record type) are passed over; subagent (sidechain) and meta messages
// are not the conversation and are left out.
func LastTurn(r io.Reader) (Turn, error) {
	var t Turn
	var texts []string
	var asked, answered time.Time // the person's message, the last assistant message
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		var line transcriptLine
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.IsSidechain || line.IsMeta {
			continue
		}
		if line.SessionID != "" {
			t.SessionID = line.SessionID
		}
		switch line.Type {
		case "user":
			if personTyped(line.Message.Content) {
				t.Number++
				t.PromptID = line.UUID
				texts = nil
				t.Model = ""
				t.Files = nil
				clear(seen)
				asked, answered = timestamp(line.Timestamp), time.Time{}
			}
		case "assistant":
			text, files := agentout.ClaudeAssistantContent(line.Message.Content)
			texts = append(texts, text...)
			for _, f := range files {
				if !seen[f] {
					seen[f] = true
					t.Files = append(t.Files, f)
				}
			}
			if line.Message.Model != "" {
				t.Model = line.Message.Model
			}
			answered = timestamp(line.Timestamp)
		}
	}
	if err := sc.Err(); err != nil {
		return t, fmt.Errorf("read transcript: %w", err)
	}
	t.Text = strings.Join(texts, "\n\n")
	if !asked.IsZero() && answered.After(asked) {
		t.DurationSecs = answered.Sub(asked).Seconds()
	}
	return t, nil
}

// Key is the turn's ingest key (mdstore.IngestInput.Key), the same
// every time the turn is read: claude-<session>-<the uuid of the
// person's message>, or its number when the transcript has no uuid.
func (t Turn) Key() string {
	if t.PromptID != "" {
		return "claude-" + t.SessionID + "-" + t.PromptID
	}
	return fmt.Sprintf("claude-%s-turn-%d", t.SessionID, t.Number)
}

// timestamp is a transcript line's time; zero when it has none that
// reads.
func timestamp(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// personTyped reports whether a user message's content is something the
// person wrote (a string or text blocks) rather than tool results.
func personTyped(content json.RawMessage) bool {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return strings.TrimSpace(s) != ""
	}
	var blocks []contentBlock
	if json.Unmarshal(content, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			return true
		}
	}
	return false
}

// FilesRelativeTo returns the turn's files that lie in the repository
// whose top is root (an absolute directory), relative to it with forward
// slashes (fsx.RepoPath: through the links of root and of the file's
// directory, for Claude Code names files under the directory the system
// resolved, /private/tmp where lore was started in /tmp, or the other way
// round). A file outside the repository is left out: lore records only
// the repository's files. Two names of one file come out once.
func (t Turn) FilesRelativeTo(root string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range t.Files {
		if rel, ok := fsx.RepoPath(root, f); ok && !seen[rel] {
			seen[rel] = true
			out = append(out, rel)
		}
	}
	return out
}

// RunID names the run of a Claude Code session: "claude-" and the first
// eight characters of its id.
func RunID(sessionID string) string {
	id := strings.ToLower(sessionID)
	var b strings.Builder
	for _, r := range id {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
		if b.Len() == 8 {
			break
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "claude-" + b.String()
}

// ClaudeSessionStart is the JSON a Claude Code SessionStart hook receives
// on stdin.
type ClaudeSessionStart struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
	// Source is startup, resume, clear or compact.
	Source string `json:"source"`
}

// ErrNoPayload is ReadClaudeSessionStart's answer to empty input: a
// SessionStart hook run with nothing on stdin.
var ErrNoPayload = errors.New("no hook payload on stdin")

// ReadClaudeSessionStart decodes a SessionStart hook payload. Empty input
// (or only white space) is ErrNoPayload.
func ReadClaudeSessionStart(r io.Reader) (ClaudeSessionStart, error) {
	var p ClaudeSessionStart
	data, err := io.ReadAll(r)
	switch {
	case err != nil:
		return p, fmt.Errorf("read the SessionStart hook payload: %w", err)
	case len(bytes.TrimSpace(data)) == 0:
		return p, ErrNoPayload
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, fmt.Errorf("the SessionStart hook payload is not JSON: %w", err)
	}
	return p, nil
}

// ClaudeOutputLimit is how many characters of a hook's output Claude Code
// adds to the context whole; past it, the output is cut to a preview.
const ClaudeOutputLimit = 10000

// SessionStartOutput is what a SessionStart hook prints to hand Claude
// Code context: one JSON object, the context as additionalContext.
func SessionStartOutput(context string) []byte {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // <task-done> stays readable, and short
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	enc.Encode(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{"SessionStart", context}})
	return out.Bytes()
}
