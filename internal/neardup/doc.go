// Package neardup is seed 002's near-duplicate check of learnings: two
// texts of one category are near duplicates when more than 80% of their
// keywords are shared. Duplicates answers it against a list of many
// (filed by their rarest words, so that a question costs what the few
// candidates cost, not the list); Ask and Words compare one text with a
// few, by the keywords kept with each (what the blob cache stores).
package neardup
