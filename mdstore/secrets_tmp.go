package mdstore

// scanSecrets is a stand-in until package secrets lands.
func scanSecrets(text string) []struct {
	Rule, Description string
	Line              int
} {
	return nil
}
