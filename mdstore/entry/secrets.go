package entry

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"lore/secrets"
)

// A secretCheck is the one place where what a caller asks lore to write is
// checked for credentials: lore does not store them, and a secret in a
// commit outlives its deletion. Each input type's normalize (NewMemory,
// NewKnowledge, NewLearning, JournalEntry) passes every field its
// TextFields lists through Texts first, before it reads the field
// otherwise, so that no message it gives about a field can echo a secret
// either; lore import passes every field of every entry. Whatever reaches
// a file, a commit message or a trailer comes from those fields.
//
// A direct command refuses (the zero secretCheck): the first secret is an
// InputError naming the field and the rule, never the value. Ingest
// redacts: each secret is replaced by "[REDACTED:<rule>]" and kept in
// found, for ingest to say where it was.
type SecretCheck struct {
	Redact bool
	Found  []FieldSecret
}

// fieldSecret is a secret redacted from a field.
type FieldSecret struct {
	Field, Rule string
	// secret is the value, kept only to find where in the agent's output
	// it came from; it is never shown.
	Secret string
}

// TextField is a text field of an entry or an input: its name and where
// its value is, a string (Value) or a list of them (List). Each type's
// TextFields lists them all (textfields.go).
type TextField struct {
	Name  string
	Value *string
	List  *[]string
}

// Texts checks each field in turn (see Text and List).
func (c *SecretCheck) Texts(fields ...TextField) error {
	for _, f := range fields {
		var err error
		if f.List != nil {
			err = c.List(f.Name, f.List)
		} else {
			err = c.Text(f.Name, f.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// text checks the field's value s; in redact mode it replaces each secret
// in *s. A NUL byte or bytes that are not UTF-8 are refused too (git
// would take the file for binary, and a commit message with a NUL is an
// fsck error); ingest replaces them with U+FFFD.
func (c *SecretCheck) Text(field string, s *string) error {
	if !c.Redact {
		if strings.ContainsRune(*s, 0) {
			return &InputError{Field: field, Msg: field + " contains a NUL byte"}
		}
		if !utf8.ValidString(*s) {
			return &InputError{Field: field, Msg: field + " is not valid UTF-8"}
		}
	} else if strings.ContainsRune(*s, 0) || !utf8.ValidString(*s) {
		*s = strings.ToValidUTF8(strings.ReplaceAll(*s, "\x00", "\uFFFD"), "\uFFFD")
	}
	if !c.Redact {
		if found := secrets.Scan(*s); len(found) > 0 {
			return secretError(field, *s, found[0])
		}
		return nil
	}
	redacted, found := secrets.Redact(*s)
	for _, f := range found {
		c.Found = append(c.Found, FieldSecret{Field: field, Rule: f.Rule, Secret: (*s)[f.Start:f.End]})
	}
	*s = redacted
	return nil
}

// list checks each item of a list field; in redact mode it replaces *l by
// a copy with the secrets redacted, leaving the caller's slice as it was.
func (c *SecretCheck) List(field string, l *[]string) error {
	copied := false
	for i := range *l {
		item := (*l)[i]
		if err := c.Text(field, &item); err != nil {
			return err
		}
		if item != (*l)[i] {
			if !copied {
				*l, copied = slices.Clone(*l), true
			}
			(*l)[i] = item
		}
	}
	return nil
}

// secretError refuses a field holding a secret. It names the field, the
// kind of credential and the rule, and the line for a text of several
// lines; never the value.
func secretError(field, text string, f secrets.Finding) error {
	where := ""
	if strings.Contains(text, "\n") {
		where = fmt.Sprintf(", line %d", f.Line)
	}
	return &InputError{Field: field, Msg: fmt.Sprintf(
		"%s holds what looks like a %s (rule %s%s): lore does not store credentials; remove it, and rotate it if it is real",
		field, f.Description, f.Rule, where)}
}

// refuseSecretIn is the check of a single value that no input type
// holds, such as the name of a run.
func RefuseSecretIn(field, value string) error {
	var c SecretCheck
	return c.Text(field, &value)
}
