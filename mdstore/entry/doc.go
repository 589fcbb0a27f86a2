// Package entry is what lore remembers, as files: the kinds of entries
// (Memory, Knowledge, Learning, JournalEntry, Skill), where each lives
// under .agent/ (layout.go), their codecs — memories.md read line by line
// with seed 001's rules and edited block by block, the frontmatter files
// of the other kinds written in the seeds' style — the inputs that make
// new entries (each field checked for credentials first: SecretCheck),
// the learnings a near-duplicate check files (LiveLearnings), and the
// validation of a store's files. It is pure: it parses and renders the
// bytes it is handed (catalog reads the files), and knows nothing of git.
//
// The files belong to the user. Parsers report every problem as a Warning
// with its line and return every entry they could read; a writer changes
// only the bytes of the entry it adds or removes, and
// SetFrontmatterFields rewrites only the lines it sets.
//
// # memories.md
//
// memfile.go reads memories.md line by line with seed 001's rules, so both
// read the same memories from a file. It never fails: each problem (an
// invalid id, an unclosed comment, a block without content, a duplicate
// id, a line that is not UTF-8) becomes one Warning and every valid memory
// is returned. It also records the byte range of every block and section
// header. Adding a memory inserts "\n" + block right after its section's
// header line (after an introductory paragraph glued to the header);
// removing one cuts its range and the blank line before it. Nothing else
// changes, so an add followed by a delete gives back the original bytes,
// which FuzzParseMemories checks on arbitrary files. Two deliberate
// differences from the seed's parser: a block ends at its metadata comment
// (the seed would append later quote lines to it, which let a memory
// inserted above a stray ">" line silently change), and ids must match
// mem-\d+-[0-9a-f]{4} exactly as the seed's own regex says.
//
// # Files with frontmatter
//
// Knowledge, learnings and journal entries are Markdown files with YAML
// frontmatter. frontmatter.go splits them with adrg/frontmatter and
// decodes the block into yaml.v3 nodes, so every problem names its file
// and line; it writes them in a fixed field order in the seeds' style
// (strings double-quoted with YAML's escapes, lists in flow style, free
// text never unquoted). A file that does not read is reported and
// skipped, never fatal. FuzzFrontmatterCodecs checks that whatever parses
// comes back the same after lore writes it.
//
// # Secrets
//
// Every text a caller gives lore to write is checked for credentials in
// one place, secretCheck (secrets.go): each input type's normalize —
// NewMemory, NewKnowledge, NewLearning, JournalEntry — passes every field
// it takes through it, before it reads the field otherwise, so that no
// message about a field can echo a secret either. Whatever reaches a
// file, a commit message or a trailer is made from those fields. The
// direct writes (AddMemory, AddKnowledge, AddLearning, AddJournal, and a
// run's name in StartRun) refuse: an InputError naming the field and the
// rule, never the value. Ingest redacts, with the same rules: first the
// agent's output whole, for what is taken from it as it is (a minimal
// failure report's stack trace), then each field of the journal entry,
// knowledge entries and learnings its sigils and its IngestInput make —
// which sees what the first pass could not, such as a key among a
// sigil's comma-separated tags. IngestResult.Redacted says where each
// secret was: its line in the output, or its field.
//
// # Validation
//
// Validate takes a list of files — the worktree's, or the staged blobs
// (the index git will commit, GIT_INDEX_FILE included, so that a
// pre-commit hook of git commit -a sees the temporary index) — and returns
// every problem as path:line: error|warning: message, sorted. It reuses the
// parsers, which collect every problem of a file (FileError carries them
// all), and adds what only a reviewer needs: fields lore does not read
// (with the nearest known name), memories under a heading that is not a
// memory section, tags lore would have written otherwise, size caps,
// leftover conflict markers, unmerged paths, a superseded_by naming no
// learning, and secrets. Errors are what lore would misread or must not
// commit; warnings what it reads as meant. A staged file that HEAD holds
// as it is is marked InHead, and InChanges keeps only the problems of the
// files a commit changes, for the pre-commit hook: what it judges is the
// commit, not what earlier commits hold.
//
// # Limits
//
// What lore writes, it reads back (limits.go): WriteLimit is the most a
// file at a store path may hold — memories.md what lore reads of it
// (ReadLimit, 16 MiB), an entry's file what validation accepts
// (MaxEntryFileBytes, 64 KiB), another file 1 MiB — and CheckName what a
// name lore makes may be: at most MaxNameBytes (the file system's 255,
// less the room of fsx's temporary name), no control character, UTF-8,
// where KindOf reads an entry. The store's write transaction applies
// CheckName and CheckSize to every file a change makes; the input types'
// Normalize check first, to name the field at fault (tooLarge), and an
// iteration's lists of files are cut to MaxJournalFilesBytes (capFiles)
// rather than refused: an iteration is always recorded.
package entry
