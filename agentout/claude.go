package agentout

import (
	"encoding/json"
	"sort"
	"strings"
)

// claudeLine is what lore reads of one of Claude Code's messages, in
// stream-json (a line each), in json's array, or json's result alone.
type claudeLine struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	// ParentToolUseID names the Task tool use a subagent's message
	// belongs to: its text is the subagent's, not the agent's answer.
	ParentToolUseID string         `json:"parent_tool_use_id"`
	Cwd             string         `json:"cwd"`   // init
	Model           string         `json:"model"` // init; a message of the early array
	Message         *claudeMessage `json:"message"`
	// Role and Content: a message of the early versions' array, which
	// is the message itself ({"type":"message","role":"assistant",…}).
	Role    string        `json:"role"`
	Content claudeContent `json:"content"`
	// The result.
	IsError      bool    `json:"is_error"`
	Result       string  `json:"result"`
	Errors       []any   `json:"errors"`
	DurationMS   float64 `json:"duration_ms"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	CostUSD      float64 `json:"cost_usd"` // before total_cost_usd
	Usage        struct {
		InputTokens              int64 `json:"input_tokens"`
		CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
		OutputTokens             int64 `json:"output_tokens"`
	} `json:"usage"`
	ModelUsage map[string]struct {
		CostUSD float64 `json:"costUSD"`
	} `json:"modelUsage"`
}

type claudeMessage struct {
	Model   string        `json:"model"`
	Content claudeContent `json:"content"`
}

// claudeContent is a message's content: its blocks, or a string (one
// text block).
type claudeContent []claudeBlock

func (c *claudeContent) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if json.Unmarshal(b, &s) == nil {
			*c = claudeContent{{Type: "text", Text: s}}
		}
		return nil
	}
	var blocks []claudeBlock
	unmarshal(b, &blocks) // a block lore cannot read leaves the others
	*c = blocks
	return nil
}

// claudeBlock is one block of a message: text, a tool use (only the
// paths of its input are decoded: a Write's content is scanned, not
// kept), or a tool result (whether it failed; not its content).
type claudeBlock struct {
	Type  string `json:"type"`
	Text  string `json:"text"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Input struct {
		FilePath     string `json:"file_path"`
		NotebookPath string `json:"notebook_path"`
	} `json:"input"`
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
}

// editedFile is the file a tool use edits: input.file_path of Edit,
// Write and MultiEdit, input.notebook_path (or file_path) of
// NotebookEdit; "" for any other tool.
func (b claudeBlock) editedFile() string {
	switch b.Name {
	case "Edit", "Write", "MultiEdit":
		return b.Input.FilePath
	case "NotebookEdit":
		if b.Input.NotebookPath != "" {
			return b.Input.NotebookPath
		}
		return b.Input.FilePath
	}
	return ""
}

// ClaudeAssistantContent returns what a Claude Code assistant message's
// content (a transcript's, or stream-json's) holds: its text blocks,
// trimmed, the blank ones left out, and the files its Edit, Write,
// MultiEdit and NotebookEdit tool uses edit, in order.
func ClaudeAssistantContent(content json.RawMessage) (texts, files []string) {
	var c claudeContent
	c.UnmarshalJSON(content)
	for _, b := range c {
		switch b.Type {
		case "text":
			if text := strings.TrimSpace(b.Text); text != "" {
				texts = append(texts, text)
			}
		case "tool_use":
			if f := b.editedFile(); f != "" {
				files = append(files, f)
			}
		}
	}
	return texts, files
}

// claudeReader reads Claude Code's json and stream-json.
type claudeReader struct {
	files      fileUses
	initModel  string // the session's, from its init message
	lastModel  string // the last assistant message's
	modelCosts map[string]float64
	// answered: an assistant text since the last result, which the
	// result then repeats.
	answered bool
	out      Output // the sums and the error, until finish
}

func (r *claudeReader) value(raw []byte, text *textPieces) int {
	if !isObject(raw) {
		elems, _ := elements(raw)
		n := 0
		for _, e := range elems {
			if isObject(e) {
				n += r.value(e, text)
			}
		}
		return n
	}
	var m claudeLine
	if !unmarshal(raw, &m) {
		return 0
	}
	if m.Type == "message" || m.Type == "" && m.Role != "" { // the early versions' array
		m.Type, m.Message = m.Role, &claudeMessage{Model: m.Model, Content: m.Content}
	}
	switch m.Type {
	case "system":
		if m.Subtype == "init" {
			if r.out.Cwd == "" {
				r.out.Cwd = m.Cwd
			}
			if r.initModel == "" {
				r.initModel = m.Model
			}
		}
	case "assistant":
		if m.Message == nil {
			break
		}
		if m.Message.Model != "" && m.Message.Model != "<synthetic>" {
			r.lastModel = m.Message.Model
		}
		for _, b := range m.Message.Content {
			switch {
			case b.Type == "text" && m.ParentToolUseID == "":
				if strings.TrimSpace(b.Text) != "" {
					text.add(b.Text)
					r.answered = true
				}
			case b.Type == "tool_use":
				// A subagent's edits are the iteration's too.
				r.files.add(b.editedFile(), b.ID)
			}
		}
	case "user":
		if m.Message == nil {
			break
		}
		for _, b := range m.Message.Content {
			if b.Type == "tool_result" && b.IsError {
				r.files.fail(b.ToolUseID)
			}
		}
	case "result":
		r.result(m, text)
	}
	return 1
}

// result reads a session's result: its figures, its text when no
// assistant text came before it (json's result alone), and its error.
func (r *claudeReader) result(m claudeLine, text *textPieces) {
	cost := m.TotalCostUSD
	if cost == 0 {
		cost = m.CostUSD
	}
	r.out.CostUSD += cost
	r.out.DurationSecs += m.DurationMS / 1000
	u := m.Usage
	r.out.Tokens.Input += u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
	r.out.Tokens.Output += u.OutputTokens
	for model, use := range m.ModelUsage {
		if r.modelCosts == nil {
			r.modelCosts = map[string]float64{}
		}
		r.modelCosts[model] += use.CostUSD
	}
	failed := m.IsError || strings.HasPrefix(m.Subtype, "error")
	msg := strings.TrimSpace(m.Result)
	if failed {
		var errs []string
		for _, e := range m.Errors {
			if s, ok := e.(string); ok && strings.TrimSpace(s) != "" {
				errs = append(errs, strings.TrimSpace(s))
			}
		}
		if msg == "" {
			msg = strings.Join(errs, "\n")
		}
		r.out.Error = msg
		if msg == "" {
			r.out.Error = m.Subtype
		}
		if msg != "" && msg != text.last() {
			text.add(msg)
		}
	} else if !r.answered {
		text.add(msg)
	}
	r.answered = false
}

func (r *claudeReader) finish(out *Output, _ *textPieces) {
	out.Files = r.files.files()
	out.Cwd, out.CostUSD, out.DurationSecs, out.Tokens, out.Error = r.out.Cwd, r.out.CostUSD, r.out.DurationSecs, r.out.Tokens, r.out.Error
	switch {
	case r.initModel != "":
		out.Model = r.initModel
	case r.lastModel != "":
		out.Model = r.lastModel
	case len(r.modelCosts) > 0:
		// json's result alone names the models it used: the dearest
		// did the work (Claude Code asks a small one for chores).
		models := make([]string, 0, len(r.modelCosts))
		for m := range r.modelCosts {
			models = append(models, m)
		}
		sort.Slice(models, func(i, j int) bool {
			ci, cj := r.modelCosts[models[i]], r.modelCosts[models[j]]
			return ci > cj || ci == cj && models[i] < models[j]
		})
		out.Model = models[0]
	}
}
