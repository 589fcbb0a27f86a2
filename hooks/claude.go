package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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
	// Model is the model of the turn's last assistant message.
	Model string
}

// transcriptLine is the part of a Claude Code transcript line lore reads.
type transcriptLine struct {
	Type        string `json:"type"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	SessionID   string `json:"sessionId"`
	Message     struct {
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type contentBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// LastTurn reads a Claude Code transcript (JSON Lines) and returns its
// last turn. Lines it cannot read (a line being written, another record
// type) are passed over; subagent (sidechain) and meta messages are not
// the conversation and are left out.
func LastTurn(r io.Reader) (Turn, error) {
	var t Turn
	var texts []string
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
				texts = nil
				t.Model = ""
			}
		case "assistant":
			texts = append(texts, textBlocks(line.Message.Content)...)
			if line.Message.Model != "" {
				t.Model = line.Message.Model
			}
		}
	}
	if err := sc.Err(); err != nil {
		return t, fmt.Errorf("read transcript: %w", err)
	}
	t.Text = strings.Join(texts, "\n\n")
	return t, nil
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

func textBlocks(content json.RawMessage) []string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		if s = strings.TrimSpace(s); s != "" {
			return []string{s}
		}
		return nil
	}
	var blocks []contentBlock
	json.Unmarshal(content, &blocks)
	var out []string
	for _, b := range blocks {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			out = append(out, strings.TrimSpace(b.Text))
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

// ReadClaudeSessionStart decodes a SessionStart hook payload.
func ReadClaudeSessionStart(r io.Reader) (ClaudeSessionStart, error) {
	var p ClaudeSessionStart
	if err := json.NewDecoder(r).Decode(&p); err != nil {
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
