package mdstore

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// Memories returns every valid memory in file order and the problems
// found, through the memories cache (Cache.Memories).
func (s *Store) Memories() ([]entry.Memory, []entry.Warning, error) { return s.cache.Memories() }

// Memory returns the memory with the given id, or a NotFoundError.
func (s *Store) Memory(id string) (entry.Memory, []entry.Warning, error) {
	all, warnings, err := s.Memories()
	if err != nil {
		return entry.Memory{}, warnings, err
	}
	for _, m := range all {
		if m.ID == id {
			return m, warnings, nil
		}
	}
	return entry.Memory{}, warnings, entry.NotFound(entry.KindMemory, id)
}

// Knowledge returns every readable knowledge entry, by title.
func (s *Store) Knowledge() ([]entry.Knowledge, []entry.Warning, error) {
	ks, ws, err := catalog.LoadKnowledge(s.files)
	entry.SortKnowledge(ks)
	return ks, ws, err
}

// KnowledgeEntry returns the entry stored as <slug>.md, or a NotFoundError.
func (s *Store) KnowledgeEntry(slug string) (entry.Knowledge, error) {
	slug = strings.TrimSuffix(slug, ".md")
	if slug == "" || strings.ContainsAny(slug, `/\`) || strings.HasPrefix(slug, ".") {
		return entry.Knowledge{}, entry.NotFound(entry.KindKnowledge, slug)
	}
	p := entry.KnowledgePath(slug)
	data, ok, err := s.files.ReadEntry(p)
	if err != nil {
		return entry.Knowledge{}, err
	}
	if !ok {
		return entry.Knowledge{}, entry.NotFound(entry.KindKnowledge, slug)
	}
	return entry.ParseKnowledge(data, p)
}

// Learnings returns every readable learning, oldest first.
func (s *Store) Learnings() ([]entry.Learning, []entry.Warning, error) {
	return catalog.LoadLearnings(s.files)
}

// Learning returns the learning with the given id, or a NotFoundError.
func (s *Store) Learning(id string) (entry.Learning, error) {
	if !entry.ValidLearningID(id) {
		return entry.Learning{}, entry.NotFound(entry.KindLearning, id)
	}
	p := entry.LearningPath(id)
	data, ok, err := s.files.ReadEntry(p)
	if err != nil {
		return entry.Learning{}, err
	}
	if !ok {
		return entry.Learning{}, entry.NotFound(entry.KindLearning, id)
	}
	return entry.ParseLearning(data, p)
}

// Journal returns every readable journal entry by run and iteration.
func (s *Store) Journal() ([]entry.JournalEntry, []entry.Warning, error) {
	return catalog.LoadJournal(s.files)
}

// JournalEntry returns the entry named key: its Key ("<run>/<name>", the
// file's name), or "<run>/<iteration>" ("run-1a2b3c4d/3" or
// "run-1a2b3c4d/0003"), which names the iteration with that number when
// no file has that very name. An iteration number two branches recorded
// names two entries: an InputError lists their keys. A NotFoundError when
// there is none.
func (s *Store) JournalEntry(key string) (entry.JournalEntry, error) {
	run, name, err := entry.ParseJournalKey(key)
	if err != nil {
		return entry.JournalEntry{}, err
	}
	dir := entry.JournalDir + "/" + run
	p := dir + "/" + name + ".md"
	data, ok, err := s.files.ReadEntry(p)
	if err != nil {
		return entry.JournalEntry{}, err
	}
	if !ok {
		n, err := strconv.Atoi(name)
		if err != nil {
			return entry.JournalEntry{}, entry.NotFound(entry.KindJournal, key)
		}
		if p, err = s.journalFileOf(dir, n, key); err != nil {
			return entry.JournalEntry{}, err
		}
		if data, ok, err = s.files.ReadEntry(p); err != nil {
			return entry.JournalEntry{}, err
		} else if !ok {
			return entry.JournalEntry{}, entry.NotFound(entry.KindJournal, key)
		}
	}
	return entry.ParseJournal(data, p)
}

// journalFileOf is the file of iteration n in run directory dir, for key:
// a NotFoundError when there is none, an InputError naming each when two
// branches recorded one.
func (s *Store) journalFileOf(dir string, n int, key string) (string, error) {
	entries, err := s.files.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range entries {
		if it, _, ok := entry.JournalFileName(e.Name()); ok && it == n && e.Type().IsRegular() {
			found = append(found, dir+"/"+e.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", entry.NotFound(entry.KindJournal, key)
	case 1:
		return found[0], nil
	}
	keys := make([]string, len(found))
	for i, p := range found {
		keys[i] = path.Base(dir) + "/" + entry.JournalName(p)
	}
	sort.Strings(keys)
	return "", &entry.InputError{Field: "entry", Msg: fmt.Sprintf("%s is %d iterations, recorded on different branches: %s; name one", key, len(keys), strings.Join(keys, ", "))}
}

// Skills discovers every SKILL.md (catalog.LoadSkills).
func (s *Store) Skills() ([]entry.Skill, []entry.Warning, error) {
	skills, warnings := catalog.LoadSkills(s.files)
	return skills, warnings, nil
}

// Entries reads the store's knowledge, learnings and journal through the
// entries cache (Cache.Entries).
func (s *Store) Entries() (catalog.Entries, []entry.Warning, error) { return s.cache.Entries() }

// Catalog reads the same entries as Entries, decoding only their heads
// when the cache is as the files are (Cache.Catalog).
func (s *Store) Catalog() (*catalog.Catalog, []entry.Warning, error) { return s.cache.Catalog() }

// DropEntryCache removes the entries cache: the next read reads every file
// (lore index rebuild).
func (s *Store) DropEntryCache() error { return s.cache.DropEntryCache() }
