package mdstore

import (
	"testing"

	"lore/mdstore/config"
)

func TestModelFamily(t *testing.T) {
	t.Parallel()
	claude := config.DefaultModels()
	openai := []string{"gpt-4o-mini", "gpt-4o"}
	reversed := []string{"gpt-4o", "gpt-4o-mini"} // the order does not decide
	cases := []struct {
		name   string
		models []string
		want   string // "": unknown
	}{
		{"sonnet", claude, "sonnet"},
		{"Opus", claude, "opus"},
		{"claude-sonnet-4-5-20250929", claude, "sonnet"},
		{"claude-3-5-haiku-20241022", claude, "haiku"},
		{"claude-opus-4-1", claude, "opus"},
		{"anthropic/claude-sonnet-4.5", claude, "sonnet"},
		{"us.anthropic.claude-3-7-sonnet-20250219-v1:0", claude, "sonnet"},
		{"claude_haiku", claude, "haiku"},
		{"", claude, ""},
		{"gpt-4o", claude, ""},
		{"sonnets", claude, ""},        // a component, not a prefix
		{"claude-opusx-4", claude, ""}, // nor a part of one
		{"haiku-or-opus", claude, ""},  // two models, neither more specific
		{"---", claude, ""},            // no component at all
		{"sonnet sonnet", claude, ""},  // a space is no separator
		{"gpt-4o-mini", openai, "gpt-4o-mini"},
		{"GPT-4o", openai, "gpt-4o"},
		{"gpt-4o-2024-08-06", openai, "gpt-4o"},
		{"gpt-4o-mini-2024-07-18", openai, "gpt-4o-mini"}, // the longest match, not the first
		{"gpt-4o-mini-2024-07-18", reversed, "gpt-4o-mini"},
		{"openai/gpt-4o-mini", openai, "gpt-4o-mini"},
		{"gpt-4", openai, ""},
		{"4o", openai, ""},
		{"sonnet", openai, ""},
	}
	for _, c := range cases {
		got, ok := config.ModelFamily(c.name, c.models)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("ModelFamily(%q, %v) = %q, %v; want %q", c.name, c.models, got, ok, c.want)
		}
	}
}

func TestCheckNextModel(t *testing.T) {
	t.Parallel()
	s := &Store{config: config.Default()}
	for _, c := range []struct{ name, recorded, warning string }{
		{"", "", ""},
		{"opus", "opus", ""},
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929", ""},
		{"gpt-5", "", `<next-model> "gpt-5" is not one of the models in .agent/config.yaml (haiku, sonnet, opus): not recorded`},
		{"a-very-long-model-name-that-goes-on-and-on-and-on\x1b[31m", "",
			`<next-model> "a-very-long-model-name-that-goes-on-and…" is not one of the models in .agent/config.yaml (haiku, sonnet, opus): not recorded`},
		{"\x1b[2Jwipe", "", `<next-model> "\x1b[2Jwipe" is not one of the models in .agent/config.yaml (haiku, sonnet, opus): not recorded`},
	} {
		recorded, warning := s.config.CheckNextModel(c.name)
		if recorded != c.recorded || warning != c.warning {
			t.Errorf("checkNextModel(%q) = %q, %q; want %q, %q", c.name, recorded, warning, c.recorded, c.warning)
		}
	}
	s.config.Models = []string{"gpt-4o-mini", "gpt-4o"}
	if recorded, warning := s.config.CheckNextModel("opus"); recorded != "" || warning != `<next-model> "opus" is not one of the models in .agent/config.yaml (gpt-4o-mini, gpt-4o): not recorded` {
		t.Errorf("with a custom list: %q, %q", recorded, warning)
	}
}
