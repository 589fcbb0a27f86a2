package loop

import (
	"lore/mdstore"
	"lore/strategy"
)

// Status is the loop status of in's task and run (the run defaults to
// the current one) among config.yaml's models: what lore status prints,
// and lore model's choice.
func Status(s *mdstore.Store, in strategy.Input, r Reporter) (strategy.Status, strategy.Input, error) {
	journal, warnings, err := s.Journal()
	r.Warnings(warnings)
	if err != nil {
		return strategy.Status{}, in, err
	}
	if in.Run == "" {
		in.Run, _ = s.CurrentRun()
	}
	in.Models = s.Config().Models
	return strategy.Compute(journal, in), in, nil
}
