// Package entry is what lore remembers, as files: the kinds of entries
// (Memory, Knowledge, Learning, JournalEntry, Skill), where each lives
// under .agent/ (layout.go), their codecs — memories.md read line by line
// with seed 001's rules and edited block by block, the frontmatter files
// of the other kinds written in the seeds' style — the inputs that make
// new entries (each field checked for credentials first: SecretCheck),
// seed 002's near-duplicate check of learnings (Duplicates), and the
// validation of a store's files. It is pure: it reads files only through
// the Reader it is handed, and knows nothing of git.
//
// The files belong to the user. Parsers report every problem as a Warning
// with its line and return every entry they could read; a writer changes
// only the bytes of the entry it adds or removes (an add followed by a
// delete gives back the original bytes, which FuzzParseMemories checks),
// and SetFrontmatterFields rewrites only the lines it sets. Two
// deliberate differences from seed 001's parser: a block ends at its
// metadata comment, and ids must match mem-\d+-[0-9a-f]{4}.
package entry
