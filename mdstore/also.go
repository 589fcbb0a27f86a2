package mdstore

// Also is more of an add's change, decided under the lock with it: edits
// applied to tx (the entry a new one supersedes, retired) and trailers
// for its commit message ("Supersedes", id). newID is the entry the add
// writes. mdstore/lifecycle's Supersedes is one.
type Also func(tx *Tx, newID string) (trailers []string, err error)

// withAlso runs also for newID and returns trailers with theirs added.
func withAlso(tx *Tx, newID string, also []Also, trailers ...string) ([]string, error) {
	for _, a := range also {
		t, err := a(tx, newID)
		if err != nil {
			return nil, err
		}
		trailers = append(trailers, t...)
	}
	return trailers, nil
}
