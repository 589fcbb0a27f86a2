package lifecycle

import (
	"fmt"
	"slices"
	"strings"

	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"
)

// Promotion (seed 004's MemoryPromotion): a staged learning is validated
// and made active, or rejected with the reason, as one commit for all of
// them.

// MinConfidence is the least confidence a promoted learning may have.
const MinConfidence = 0.3

// Promotion is what promoting a staged learning decided.
type Promotion struct {
	ID     string `json:"id"`
	Status string `json:"status"` // active or rejected
	Reason string `json:"reason,omitempty"`
}

// validatePromotion is seed 004's validation of a staged learning: the
// reason it is rejected, "" when it may be promoted.
func validatePromotion(l *entry.Learning) string {
	switch {
	case l.Kind == "" || l.TaskType == "" || strings.TrimSpace(l.Body) == "":
		return "missing required fields (kind, task_type and a body)"
	case !slices.Contains(entry.LearningKinds, l.Kind):
		return "invalid type: " + l.Kind
	case l.Confidence != nil && (*l.Confidence < 0 || *l.Confidence > 1):
		return "confidence must be between 0 and 1"
	case l.SuccessRate != nil && (*l.SuccessRate < 0 || *l.SuccessRate > 1):
		return "success rate must be between 0 and 1"
	case l.Confidence != nil && *l.Confidence < MinConfidence:
		return fmt.Sprintf("confidence too low (< %g)", MinConfidence)
	case l.Kind == "antipattern" && l.SuccessRate != nil && *l.SuccessRate > 0.2:
		return "anti-patterns should have a low success rate (at most 0.2)"
	case l.Kind == "strategy" && l.SuccessRate != nil && *l.SuccessRate < 0.5:
		return "strategies should have a success rate of 0.5 or more"
	}
	return ""
}

// PromotionPlan is what promoting staged learnings decided for each.
type PromotionPlan struct {
	Promotions []Promotion
}

// PlanPromotion validates the staged learnings ids names (every staged
// one when ids is empty): each is to be made active, or rejected with the
// reason. An id that is not a staged learning is refused. It changes
// nothing.
func PlanPromotion(s *mdstore.Store, ids []string) (*PromotionPlan, error) {
	entries, _, err := s.Entries()
	if err != nil {
		return nil, err
	}
	byID := map[string]*entry.Learning{}
	var staged []*entry.Learning
	for i := range entries.Learnings {
		l := &entries.Learnings[i]
		byID[l.ID] = l
		if l.Status == "staged" {
			staged = append(staged, l)
		}
	}
	if len(ids) > 0 {
		staged = staged[:0]
		for _, id := range ids {
			l, ok := byID[id]
			switch {
			case !ok:
				return nil, entry.NotFound(entry.KindLearning, id)
			case l.Status != "staged":
				return nil, &entry.InputError{Field: "id", Msg: fmt.Sprintf("%s is %s, not staged: only a staged learning is promoted", id, l.Status)}
			}
			staged = append(staged, l)
		}
	}
	var out []Promotion
	for _, l := range staged {
		p := Promotion{ID: l.ID, Status: "active"}
		if why := validatePromotion(l); why != "" {
			p.Status, p.Reason = "rejected", why
		}
		out = append(out, p)
	}
	return &PromotionPlan{Promotions: out}, nil
}

// Apply gives each learning the status the plan decided, with the reason
// (status_reason), as one commit listing them; the result is nil when the
// plan is empty.
func (plan *PromotionPlan) Apply(s *mdstore.Store) (*mdstore.WriteResult, error) {
	out := plan.Promotions
	if len(out) == 0 {
		return nil, nil
	}
	return s.Write(func(tx *mdstore.Tx) error {
		var body []string
		active := 0
		for _, p := range out {
			reason := ""
			if p.Reason != "" {
				reason = yamlfm.Quote(p.Reason)
				body = append(body, fmt.Sprintf("- %s: rejected (%s)", p.ID, p.Reason))
			} else {
				active++
				body = append(body, fmt.Sprintf("- %s: active", p.ID))
			}
			tx.Apply(mdstore.Edit{Path: entry.LearningPath(p.ID), Op: mdstore.OpFields, Fields: []entry.FrontmatterField{{Key: "status", Value: p.Status}, {Key: "status_reason", Value: reason}}})
		}
		tx.SetMessage(mdstore.CommitMessage(fmt.Sprintf("lore: promote %d staged %s: %d active, %d rejected", len(out), words.Plural(len(out), "learning", "learnings"), active, len(out)-active),
			strings.Join(body, "\n"), "Lore-Kind", "promote"))
		return nil
	})
}
