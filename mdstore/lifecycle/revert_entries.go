package lifecycle

import (
	"path"
	"slices"
	"sort"
	"strings"

	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// entryChange is an entry a commit changed, as the commit's first parent
// had it.
type entryChange struct {
	name  string // unique among every kind: "memory mem-…", "file <path>", "cites <key>"
	entry RevertedEntry
	was   entryState
}

// entryState is an entry as one commit has it.
type entryState struct {
	exists bool
	text   string        // a file's content; a memory's block, its type first
	memory *entry.Memory // a memory
	cites  []cites.Cite  // an entry's citations
}

// entryChanges reads what commits changed of the store's entries.
type entryChanges struct {
	s   *mdstore.Store
	top string // the store root from the top of the worktree: "" or "sub/"
	own string // the iteration's journal file, which a revert keeps (and its citations)
}

func newEntryChanges(s *mdstore.Store, own string) *entryChanges {
	return &entryChanges{s: s, top: strings.TrimSuffix(s.GitPath(entry.Dir), entry.Dir), own: own}
}

// of lists the entries commit v changed from its first parent, each as
// the parent had it, in a stable order.
func (c *entryChanges) of(v gitx.Version) ([]entryChange, error) {
	var out []entryChange
	for _, root := range entry.Roots {
		files, err := c.s.Repo().CommitChanges(v.Parent, v.Commit, c.s.GitPath(root))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			p := strings.TrimPrefix(f.Path, c.top)
			old, cur := "", ""
			if f.HadOld {
				old = string(f.Old)
			}
			if f.HasNew {
				cur = string(f.New)
			}
			switch kind := entry.KindOf(p); {
			case p == c.own:
			case p == entry.MemoriesPath:
				out = append(out, memoryChanges(old, cur)...)
			case p == cites.Path:
				out = append(out, citeChanges(old, cur, cites.KeyOf(c.own))...)
			case kind != "" && kind != entry.KindMemory:
				out = append(out, entryChange{name: "file " + p, entry: RevertedEntry{Kind: kind, ID: idOfFile(kind, p), Path: p},
					was: entryState{exists: f.HadOld, text: old}})
			}
		}
	}
	return out, nil
}

// idOfFile is the id of the entry of kind in store file p.
func idOfFile(kind entry.Kind, p string) string {
	switch kind {
	case entry.KindJournal:
		return path.Base(path.Dir(p)) + "/" + entry.JournalName(p)
	case entry.KindSkill:
		return path.Base(path.Dir(p))
	}
	return strings.TrimSuffix(path.Base(p), ".md")
}

// memoriesOf is each memory of memories.md's text by id (the first of an
// id), its block with its type.
func memoriesOf(text string) map[string]entryState {
	out := map[string]entryState{}
	if text == "" {
		return out
	}
	for _, m := range entry.ParseMemoriesFile([]byte(text), entry.MemoriesPath).Memories {
		if _, ok := out[m.ID]; !ok {
			mem := m
			out[m.ID] = entryState{exists: true, text: string(m.Type) + "\n" + entry.FormatMemory(m), memory: &mem}
		}
	}
	return out
}

// memoryChanges are the memories that differ between two versions of
// memories.md, as the older had them.
func memoryChanges(old, cur string) []entryChange {
	before, after := memoriesOf(old), memoriesOf(cur)
	var out []entryChange
	for _, id := range sortedKeys(before, after) {
		if b, a := before[id], after[id]; b.text != a.text {
			out = append(out, entryChange{name: "memory " + id, entry: RevertedEntry{Kind: entry.KindMemory, ID: id, Path: entry.MemoriesPath}, was: b})
		}
	}
	return out
}

// citesOf is each entry's citations in citations.md's text, by its key.
func citesOf(text string) map[string]entryState {
	out := map[string]entryState{}
	lines, _ := cites.Parse([]byte(text))
	for _, l := range lines {
		st := out[l.Key]
		st.exists = true
		st.cites = append(st.cites, l.Cite)
		out[l.Key] = st
	}
	for k, st := range out {
		rows := make([]string, len(st.cites))
		for i, c := range st.cites {
			rows[i] = cites.Line{Key: k, Cite: c}.String()
		}
		sort.Strings(rows)
		st.text = strings.Join(rows, "\n")
		out[k] = st
	}
	return out
}

// citeChanges are the entries whose citations differ between two
// versions of citations.md, as the older had them; but those of the
// iteration's own journal entry (own), which is kept.
func citeChanges(old, cur, own string) []entryChange {
	before, after := citesOf(old), citesOf(cur)
	var out []entryChange
	for _, key := range sortedKeys(before, after) {
		if b, a := before[key], after[key]; key != own && b.text != a.text {
			out = append(out, entryChange{name: "cites " + key, entry: RevertedEntry{Kind: KindCitations, ID: key, Path: cites.Path}, was: b})
		}
	}
	return out
}

func sortedKeys(a, b map[string]entryState) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// now reads each entry as HEAD has it.
func (c *entryChanges) now(entries []RevertedEntry) ([]entryState, error) {
	paths := map[string]bool{}
	for _, e := range entries {
		paths[c.s.GitPath(e.Path)] = true
	}
	list := make([]string, 0, len(paths))
	for p := range paths {
		list = append(list, p)
	}
	_, blobs, err := c.s.Repo().HeadBlobs(list)
	if err != nil {
		return nil, err
	}
	texts := map[string]string{}
	for p, b := range blobs {
		if b.IsZero() {
			continue
		}
		data, err := c.s.Repo().ReadBlob(b)
		if err != nil {
			return nil, err
		}
		texts[p] = string(data)
	}
	var memories, cited map[string]entryState
	out := make([]entryState, len(entries))
	for i, e := range entries {
		text, ok := texts[c.s.GitPath(e.Path)]
		switch e.Kind {
		case entry.KindMemory:
			if memories == nil {
				memories = memoriesOf(text)
			}
			out[i] = memories[e.ID]
		case KindCitations:
			if cited == nil {
				cited = citesOf(text)
			}
			out[i] = cited[e.ID]
		default:
			out[i] = entryState{exists: ok, text: text}
		}
	}
	return out, nil
}

// undo is the edit that puts entry e back as it was, from as it is now,
// and what it does; ok is false when the two are the same.
func undo(e RevertedEntry, was, now entryState) (mdstore.Edit, string, bool) {
	if was.exists == now.exists && was.text == now.text {
		return mdstore.Edit{}, "", false
	}
	action := "put back"
	switch {
	case !was.exists:
		action = "removed"
	case !now.exists:
		action = "restored"
	}
	switch e.Kind {
	case entry.KindMemory:
		switch {
		case !was.exists:
			return mdstore.Edit{Path: e.Path, Op: mdstore.OpRemoveMemory, ID: e.ID}, action, true
		case !now.exists:
			return mdstore.Edit{Path: e.Path, Op: mdstore.OpAddMemory, Memory: was.memory}, action, true
		}
		return mdstore.Edit{Path: e.Path, Op: mdstore.OpReplaceMemory, Memory: was.memory}, action, true
	case KindCitations:
		return mdstore.Edit{Path: e.Path, Op: mdstore.OpCite, ID: e.ID, Cites: was.cites}, action, true
	}
	if !was.exists {
		return mdstore.Edit{Path: e.Path, Op: mdstore.OpRemove}, action, true
	}
	return mdstore.Edit{Path: e.Path, Op: mdstore.OpPut, Content: was.text}, action, true
}
