package loop

import (
	"errors"

	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/prompt"
)

// Shown is one entry of any kind, as show gives it: Kind says which of
// the others is set.
type Shown struct {
	Kind      entry.Kind          `json:"kind"`
	Memory    *entry.Memory       `json:"memory,omitempty"`
	Knowledge *entry.Knowledge    `json:"knowledge,omitempty"`
	Learning  *entry.Learning     `json:"learning,omitempty"`
	Journal   *entry.JournalEntry `json:"journal,omitempty"`
	Skill     *entry.Skill        `json:"skill,omitempty"`
}

// Show reads the entry id names, of kind ("": the kind its shape says,
// entry.KindOfID; a name that is no knowledge entry's may be a skill's),
// and counts its use in the clone's usage log, whatever its kind. One
// that is not there is an entry.NotFoundError.
func Show(s *mdstore.Store, kind entry.Kind, id string, r Reporter) (Shown, error) {
	byShape := kind == ""
	if byShape {
		kind, id = entry.KindOfID(id)
	}
	var sh Shown
	var err error
	switch kind {
	case entry.KindMemory:
		var m entry.Memory
		var warnings []entry.Warning
		m, warnings, err = s.Memory(id)
		r.Warnings(warnings)
		sh = Shown{Kind: kind, Memory: &m}
	case entry.KindLearning:
		var l entry.Learning
		l, err = s.Learning(id)
		sh = Shown{Kind: kind, Learning: &l}
	case entry.KindJournal:
		var j entry.JournalEntry
		j, err = s.JournalEntry(id)
		sh = Shown{Kind: kind, Journal: &j}
		id = j.Key()
	case entry.KindSkill:
		sh, err = showSkill(s, id, r)
	default:
		var k entry.Knowledge
		k, err = s.KnowledgeEntry(id)
		sh = Shown{Kind: entry.KindKnowledge, Knowledge: &k}
		if errors.Is(err, entry.ErrNotFound) && byShape {
			// A skill, when no knowledge entry has that name.
			if skill, serr := showSkill(s, id, Discard); serr == nil {
				sh, err = skill, nil
			}
		}
	}
	if err != nil {
		return Shown{}, err
	}
	RecordUse(s, r, prompt.Key(sh.Kind, id))
	return sh, nil
}

// showSkill is the skill named name.
func showSkill(s *mdstore.Store, name string, r Reporter) (Shown, error) {
	skills, warnings, err := s.Skills()
	r.Warnings(warnings)
	if err != nil {
		return Shown{}, err
	}
	for i := range skills {
		if skills[i].Name == name {
			return Shown{Kind: entry.KindSkill, Skill: &skills[i]}, nil
		}
	}
	return Shown{}, entry.NotFound(entry.KindSkill, name)
}

// Markdown is the entry as prime shows it.
func (sh Shown) Markdown() string {
	switch {
	case sh.Memory != nil:
		return entry.FormatMemory(*sh.Memory)
	case sh.Knowledge != nil:
		return prompt.KnowledgeBlock(*sh.Knowledge)
	case sh.Learning != nil:
		return prompt.LearningLine(*sh.Learning)
	case sh.Journal != nil:
		return prompt.JournalBlock(*sh.Journal)
	case sh.Skill != nil:
		return prompt.SkillsSection([]entry.Skill{*sh.Skill})
	}
	return ""
}
