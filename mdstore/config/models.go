package config

import (
	"fmt"
	"strings"

	"lore/internal/words"
	"lore/mdstore/entry"
)

// DefaultModels are the models lore knows without a "models" setting,
// cheapest first: Claude's three families.
func DefaultModels() []string { return []string{"haiku", "sonnet", "opus"} }

// ModelFamily says which of models (config.yaml's "models", cheapest
// first) name is. A name equal to one of them, in any case, is that one;
// a full model id is the configured model that appears in it as whole
// components, the parts between '-', '/', '.', ':' and '_'
// (claude-sonnet-4-5-20250929, anthropic/claude-sonnet-4.5 and
// us.anthropic.claude-3-7-sonnet-20250219-v1:0 are sonnet). Where several
// appear the one of most components wins (gpt-4o-mini-2024-07-18 is
// gpt-4o-mini, not gpt-4o); a tie between two, or none, is unknown. family
// is the model as configured.
func ModelFamily(name string, models []string) (family string, ok bool) {
	for _, m := range models {
		if strings.EqualFold(name, m) {
			return m, true
		}
	}
	parts := modelParts(name)
	best, bestLen, tied := "", 0, false
	for _, m := range models {
		mp := modelParts(m)
		if len(mp) == 0 || len(mp) < bestLen || !containsRun(parts, mp) {
			continue
		}
		if len(mp) == bestLen && !strings.EqualFold(m, best) {
			tied = true
			continue
		}
		best, bestLen, tied = m, len(mp), false
	}
	if best == "" || tied {
		return "", false
	}
	return best, true
}

// modelParts splits a model name into its components.
func modelParts(name string) []string {
	return strings.FieldsFunc(name, func(r rune) bool {
		return r == '-' || r == '/' || r == '.' || r == ':' || r == '_'
	})
}

// containsRun reports whether run occurs in parts as consecutive
// components, compared in any case.
func containsRun(parts, run []string) bool {
	for i := 0; i+len(run) <= len(parts); i++ {
		j := 0
		for j < len(run) && strings.EqualFold(parts[i+j], run[j]) {
			j++
		}
		if j == len(run) {
			return true
		}
	}
	return false
}

// ModelsOf are the models c lists, or the default ones.
func (c Config) ModelsOf() []string {
	if len(c.Models) == 0 {
		return DefaultModels()
	}
	return c.Models
}

// CheckNextModel is what ingest records of an agent's <next-model>: the
// name as written when it is one of the configured models (or a full id
// of one), else nothing and a warning, so that a strategy never
// recommends a model the orchestrator does not have. name has been
// through the secret check already.
func (c Config) CheckNextModel(name string) (recorded, warning string) {
	if name == "" {
		return "", ""
	}
	models := c.ModelsOf()
	if _, ok := ModelFamily(name, models); ok {
		return name, ""
	}
	return "", fmt.Sprintf("<next-model> %q is not one of the models in %s (%s): not recorded",
		words.Shorten(name, 40), entry.ConfigPath, strings.Join(models, ", "))
}
