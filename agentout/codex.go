package agentout

import "strings"

// codexEvent is what lore reads of one of `codex exec --json`'s events.
type codexEvent struct {
	Type string `json:"type"`
	Item struct {
		Type     string `json:"type"`
		ItemType string `json:"item_type"` // its name in Codex 0.44's first events
		Text     string `json:"text"`
		Status   string `json:"status"`
		Changes  []struct {
			Path string `json:"path"`
		} `json:"changes"`
	} `json:"item"`
	Usage struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage"`
	Error struct {
		Message string `json:"message"`
	} `json:"error"` // turn.failed's
	Message string `json:"message"` // error's
}

// codexReader reads `codex exec --json`: the agent's messages, its file
// changes, the tokens of the last completed turn (Codex counts them for
// the whole thread), and the error a failed turn reports.
type codexReader struct {
	files     fileUses
	tokens    Tokens
	err       string
	lastError string // a stream error since the last completed turn (Codex retries after some)
}

func (r *codexReader) value(raw []byte, text *textPieces) int {
	var e codexEvent
	if !isObject(raw) || !unmarshal(raw, &e) {
		return 0
	}
	switch e.Type {
	case "item.completed":
		kind := e.Item.Type
		if kind == "" {
			kind = e.Item.ItemType
		}
		switch kind {
		case "agent_message", "assistant_message":
			text.add(e.Item.Text)
		case "file_change":
			if e.Item.Status != "failed" {
				for _, c := range e.Item.Changes {
					r.files.add(c.Path, "")
				}
			}
		}
	case "turn.completed":
		r.tokens = Tokens{Input: e.Usage.InputTokens, Output: e.Usage.OutputTokens}
		r.lastError = ""
	case "turn.failed":
		if msg := strings.TrimSpace(e.Error.Message); msg != "" {
			r.err = msg
			text.add(msg)
		} else {
			r.err = "turn.failed"
		}
	case "error":
		if msg := strings.TrimSpace(e.Message); msg != "" {
			r.lastError = msg
			text.add(msg)
		}
	}
	return 1
}

func (r *codexReader) finish(out *Output, _ *textPieces) {
	out.Files, out.Tokens, out.Error = r.files.files(), r.tokens, r.err
	if out.Error == "" {
		out.Error = r.lastError
	}
}
