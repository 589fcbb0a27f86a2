package entry

import (
	"path"

	"lore/mdstore/entry/yamlfm"
)

// Kind names what an entry is: the five kinds a store holds.
type Kind string

// The kinds of entries, as `lore search --kind` names them.
const (
	KindMemory    Kind = "memory"
	KindKnowledge Kind = "knowledge"
	KindLearning  Kind = "learning"
	KindJournal   Kind = "journal"
	KindSkill     Kind = "skill"
)

// Kinds lists every kind in the order lore shows them.
var Kinds = []Kind{KindMemory, KindKnowledge, KindLearning, KindJournal, KindSkill}

// FileEntries is what one store file holds: the memories of memories.md,
// or the single entry of any other kind's file.
type FileEntries struct {
	Kind      Kind
	Memories  []Memory
	Knowledge *Knowledge
	Learning  *Learning
	Journal   *JournalEntry
	Skill     *Skill
}

// ParseFile reads the entries of store file p from its bytes, choosing the
// codec by the path (see KindOf). A file that does not parse yields no
// entry and a warning naming the file and line; a damaged memories.md
// yields every valid memory and one warning per problem.
func ParseFile(p string, data []byte) (FileEntries, []Warning) {
	kind := KindOf(p)
	out := FileEntries{Kind: kind}
	var err error
	switch kind {
	case KindMemory:
		f := ParseMemoriesFile(data, p)
		out.Memories = f.Memories
		return out, f.Warnings
	case KindKnowledge:
		var k Knowledge
		if k, err = ParseKnowledge(data, p); err == nil {
			out.Knowledge = &k
		}
	case KindLearning:
		var l Learning
		if l, err = ParseLearning(data, p); err == nil {
			out.Learning = &l
		}
	case KindJournal:
		var j JournalEntry
		if j, err = ParseJournal(data, p); err == nil {
			out.Journal = &j
		}
	case KindSkill:
		sk := ParseSkill(data, p, path.Base(path.Dir(p)))
		out.Skill = &sk
	default:
		return out, []Warning{{Path: p, Message: "not an entry file"}}
	}
	if err != nil {
		return out, WarningsOf(AsWarning(err, p))
	}
	return out, nil
}

// ParsesAs reports whether data is a valid file of the kind path holds
// (see KindOf): a knowledge entry, learning or journal entry that its
// parser accepts, or otherwise a file whose frontmatter reads.
func ParsesAs(path string, data []byte) bool {
	var err error
	switch KindOf(path) {
	case KindKnowledge:
		_, err = ParseKnowledge(data, path)
	case KindLearning:
		_, err = ParseLearning(data, path)
	case KindJournal:
		_, err = ParseJournal(data, path)
	default:
		var d *yamlfm.Doc
		if d, err = parseFrontmatter(data, path); err == nil {
			err = docErr(d, path)
		}
	}
	return err == nil
}
