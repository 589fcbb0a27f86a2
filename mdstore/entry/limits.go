package entry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"lore/internal/fsx"
	"lore/internal/words"
	"lore/mdstore/entry/yamlfm"
)

// Limits. lore never writes what it will not read back: every file a
// change makes is held to what lore reads of it (ReadLimit) and, for an
// entry's file, to what validation accepts (MaxEntryFileBytes); every name
// it makes, to what a file system takes and lore reads back. The input
// types check their fields first, to name the one at fault (the
// Normalize of NewKnowledge, NewLearning and JournalEntry); the store's
// write transaction checks every file a change makes, whatever decided it
// — a command, ingest, a lifecycle plan, an import, a queued change —
// with CheckName and CheckSize.

// MaxNameBytes is the longest name, in bytes, of a file or directory lore
// makes: what a file system takes, less the room of the temporary name
// lore writes a file under (fsx.MaxNameBytes).
const MaxNameBytes = fsx.MaxNameBytes

// MaxJournalFilesBytes caps each list of files an iteration records
// (files_modified, a failure's relevant_files): the files that fit are
// kept, in order, and one last item says how many more there were, so
// that an agent that touched 12,000 files has its iteration recorded in a
// file lore reads back.
const MaxJournalFilesBytes = 16 << 10

// WriteLimit is the largest file lore writes at store path p: memories.md
// what lore reads of it (16 MiB), an entry's file what validation accepts
// (64 KiB), any other file what lore reads (1 MiB).
func WriteLimit(p string) int {
	switch k := KindOf(p); {
	case k == KindMemory || p == CitesPath: // every memory, every citation
		return MemoriesReadLimit
	case k == "":
		return FileReadLimit
	}
	return MaxEntryFileBytes
}

// CheckSize refuses size bytes as the new content of store path p when
// they are over WriteLimit — unless the file was past it already and does
// not grow (old is its size, -1 when there was none): deleting memories is
// how a memories.md gets back under the limit.
func CheckSize(p string, size, old int) error {
	limit := WriteLimit(p)
	if size <= limit || old >= 0 && size <= old {
		return nil
	}
	advice := "keep an entry short: split it, or shorten it"
	switch KindOf(p) {
	case KindMemory:
		advice = "delete memories that no longer help (lore delete), and keep long notes in knowledge entries"
	case "":
		advice = "lore reads no more of a file"
	}
	return &InputError{Field: "size", Msg: fmt.Sprintf("%s would be %s, over the %s lore %s: %s",
		p, sizeText(size), fsx.FormatSize(int64(limit)), limitWord(p), advice)}
}

func limitWord(p string) string {
	if k := KindOf(p); k != KindMemory && k != "" {
		return "accepts of an entry (lore validate's limit)"
	}
	return "reads of it"
}

// sizeText is n bytes as a person reads a size: 17.2 MiB, 97 KiB.
func sizeText(n int) string {
	if n >= 1<<20 {
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.Itoa((n+1<<10-1)>>10) + " KiB"
}

// CheckName refuses store path p as the name of a file lore makes: a name
// no file system takes (a part longer than MaxNameBytes), one holding a
// control character (a newline, a tab, an escape) or bytes that are not
// UTF-8, or a path lore would not read back as an entry (KindOf: a name
// starting with a dot, a folder of its own under knowledge/).
func CheckName(p string) error {
	for _, part := range strings.Split(p, "/") {
		msg := ""
		switch {
		case len(part) > MaxNameBytes:
			msg = fmt.Sprintf("the name %s is %d bytes, over the %d a name of a file lore writes may be: shorten it",
				strconv.Quote(words.Shorten(part, 40)), len(part), MaxNameBytes)
		case !utf8.ValidString(part):
			msg = fmt.Sprintf("the name %q is not valid UTF-8", part)
		case strings.IndexFunc(part, unicode.IsControl) >= 0:
			msg = fmt.Sprintf("the name %q holds a control character (a newline, a tab, an escape): lore does not make such names", part)
		}
		if msg != "" {
			return &InputError{Field: "name", Msg: msg}
		}
	}
	if KindOf(p) == "" && p != ConfigPath && p != CitesPath {
		return &InputError{Field: "name", Msg: fmt.Sprintf("%s is not where lore keeps an entry: lore would not read it back", p)}
	}
	return nil
}

// entrySlack is room for what a write decides after the input is checked
// (an id, created_at and updated_at, an iteration's number).
const entrySlack = 128

// tooLarge refuses an entry of kind what whose file would be over
// MaxEntryFileBytes, naming the largest of its fields (name, value pairs).
func tooLarge(what string, file []byte, fields ...string) error {
	if len(file)+entrySlack <= MaxEntryFileBytes {
		return nil
	}
	big := 0
	for i := 2; i+1 < len(fields); i += 2 {
		if len(fields[i+1]) > len(fields[big+1]) {
			big = i
		}
	}
	advice := "shorten it"
	if fields[big] == "body" {
		advice = "shorten it, or split it into several entries"
	}
	return &InputError{Field: fields[big], Msg: fmt.Sprintf("the %s's file would be %s, over the %s lore accepts of an entry (lore validate's limit): its %s is %s; %s",
		what, sizeText(len(file)+entrySlack), fsx.FormatSize(MaxEntryFileBytes), fields[big], sizeText(len(fields[big+1])), advice)}
}

// capFiles keeps the files that fit in MaxJournalFilesBytes and says how
// many more there were.
// Capping a capped list changes nothing: the files kept leave room for
// the last item.
func capFiles(files []string) []string {
	size := make([]int, len(files))
	total := 0
	for i, f := range files {
		size[i] = len(yamlfm.FlowItem(f)) + len(", ")
		total += size[i]
	}
	if total <= MaxJournalFilesBytes {
		return files
	}
	n := 0
	for i := range files {
		if n += size[i]; n > MaxJournalFilesBytes-64 {
			return append(slices.Clip(files[:i]), fmt.Sprintf("… and %d more files", len(files)-i))
		}
	}
	return files
}
