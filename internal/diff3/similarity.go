package diff3

// LineSimilarity is the share of lines a and b have in common (each line
// counted as often as both have it), from 0 to 1: how git's rename
// detection judges two versions of a file one (it takes 0.5 and above).
func LineSimilarity(a, b string) float64 {
	al, bl := SplitLines(a), SplitLines(b)
	if len(al)+len(bl) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, l := range al {
		count[l]++
	}
	common := 0
	for _, l := range bl {
		if count[l] > 0 {
			count[l]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(al)+len(bl))
}
