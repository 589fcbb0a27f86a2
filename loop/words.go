package loop

import (
	"errors"
	"fmt"

	"lore/mdstore/entry"
	"lore/secrets"
)

// ErrorText is err as lore says it to a person, whatever the front end:
// a bad input says what is wrong with it ("tags: tag 1 contains '|'"), a
// missing entry names its kind ("Memory not found: mem-…"), anything else
// says itself. A secret the text holds (a value echoed back) is
// redacted.
func ErrorText(err error) string {
	var input *entry.InputError
	var missing *entry.NotFoundError
	msg := err.Error()
	switch {
	case errors.As(err, &input):
		msg = input.Msg
	case errors.As(err, &missing):
		msg = KindNoun(missing.Kind) + " not found: " + missing.ID
		if missing.Near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", missing.Near)
		}
	}
	msg, _ = secrets.Redact(msg)
	return msg
}

// KindNoun is how a person names an entry of kind k, at the start of a
// sentence.
func KindNoun(k entry.Kind) string {
	switch k {
	case entry.KindMemory:
		return "Memory"
	case entry.KindKnowledge:
		return "Knowledge"
	case entry.KindLearning:
		return "Learning"
	case entry.KindJournal:
		return "Journal entry"
	case entry.KindSkill:
		return "Skill"
	}
	return "Entry"
}
