package mdstore

import (
	"fmt"

	"lore/secrets"
)

// refuseSecrets is the error for the first secret in what a caller asked
// lore to write as field: lore does not store credentials, and a secret in
// a commit outlives its deletion.
func refuseSecrets(field string, texts ...string) error {
	for _, text := range texts {
		if found := secrets.Scan(text); len(found) > 0 {
			f := found[0]
			return &InputError{Field: field, Msg: fmt.Sprintf(
				"%s holds what looks like a %s (rule %s, line %d): lore does not store credentials; remove it, and rotate it if it is real",
				field, f.Description, f.Rule, f.Line)}
		}
	}
	return nil
}
