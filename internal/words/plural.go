package words

// Plural is one when n is 1, else many: "1 entry", "2 entries".
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
