package mdstore

import (
	"fmt"
	"strings"

	"lore/internal/words"
	"lore/mdstore/config"
	"lore/mdstore/entry"
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
		words.Shorten(name, 40), entry.ConfigPath, strings.Join(models, ", "))
}

// models are the models config.yaml lists, or the default ones.
func (s *Store) models() []string {
	if len(s.config.Models) == 0 {
		return config.DefaultModels()
	}
	return s.config.Models
}
