package agentout

import (
	"sort"
	"strings"
)

// geminiOutput is what lore reads of `gemini --output-format json`'s
// object. Its stats name no file and no duration of the whole run (only
// the API's latency), so neither is read.
type geminiOutput struct {
	Response string `json:"response"`
	Stats    struct {
		Models map[string]struct {
			Tokens struct {
				Prompt     int64 `json:"prompt"`
				Candidates int64 `json:"candidates"`
				Total      int64 `json:"total"`
			} `json:"tokens"`
		} `json:"models"`
	} `json:"stats"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// geminiReader reads Gemini CLI's json: the response, the tokens of every
// model, the model that used the most, and the error.
type geminiReader struct {
	tokens Tokens
	used   map[string]int64 // tokens by model
	err    string
}

func (r *geminiReader) value(raw []byte, text *textPieces) int {
	var g geminiOutput
	if !isObject(raw) || !unmarshal(raw, &g) {
		return 0
	}
	text.add(g.Response)
	for model, m := range g.Stats.Models {
		r.tokens.Input += m.Tokens.Prompt
		r.tokens.Output += m.Tokens.Candidates
		if r.used == nil {
			r.used = map[string]int64{}
		}
		r.used[model] += m.Tokens.Total
	}
	if msg := strings.TrimSpace(g.Error.Message); msg != "" || g.Error.Type != "" {
		r.err = msg
		if msg == "" {
			r.err = g.Error.Type
		}
		text.add(msg)
	}
	return 1
}

func (r *geminiReader) finish(out *Output, _ *textPieces) {
	out.Tokens, out.Error = r.tokens, r.err
	models := make([]string, 0, len(r.used))
	for m := range r.used {
		models = append(models, m)
	}
	sort.Slice(models, func(i, j int) bool {
		ui, uj := r.used[models[i]], r.used[models[j]]
		return ui > uj || ui == uj && models[i] < models[j]
	})
	if len(models) > 0 {
		out.Model = models[0]
	}
}
