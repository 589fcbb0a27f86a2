package mdstore

import (
	"fmt"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"strings"
	"unicode/utf8"
)

// checkNextModel is what ingest records of an agent's <next-model>: the
// name as written when it is one of the configured models (or a full id
// of one), else nothing and a warning, so that a strategy never
// recommends a model the orchestrator does not have. name has been
// through the secret check already.
func (s *Store) checkNextModel(name string) (recorded, warning string) {
	if name == "" {
		return "", ""
	}
	models := s.models()
	if _, ok := config.ModelFamily(name, models); ok {
		return name, ""
	}
	return "", fmt.Sprintf("<next-model> %q is not one of the models in %s (%s): not recorded",
		shorten(name, 40), entry.ConfigPath, strings.Join(models, ", "))
}

// shorten cuts s to at most n characters, marking the cut with "…".
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// models are the models config.yaml lists, or the default ones.
func (s *Store) models() []string {
	if len(s.config.Models) == 0 {
		return config.DefaultModels()
	}
	return s.config.Models
}
