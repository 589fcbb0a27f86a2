package history

import (
	"slices"
	"strings"

	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/provenance"
)

// Cited is what lore cite found for one entry: the files its text names,
// stamped as the commit that wrote its text held them.
type Cited struct {
	ID     string       `json:"id"`
	Commit string       `json:"commit"` // the commit that wrote the entry as it is
	Cites  []cites.Cite `json:"cites"`
}

// CiteFromHistory finds what the memories, knowledge entries and
// learnings that cite nothing (all of them, or those of ids) would have
// cited when they were written, had lore kept citations then: the files
// their text names (paths, and bare file names one file of the tree
// has), each as the commit that wrote the entry's text held it. Entries
// that name no file of their commit, and those that cite something
// already, are left out; nothing is written (provenance.Recite writes
// it).
func CiteFromHistory(s *mdstore.Store, ids []string) ([]Cited, error) {
	stamper := provenance.NewStamper(s)
	if stamper == nil {
		return nil, nil
	}
	report, err := provenance.Read(s)
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		// Only the entries whose text names a file now are looked up in
		// history: walking every entry's history costs a walk of its
		// file's commits each.
		texts, err := citableTexts(s)
		if err != nil {
			return nil, err
		}
		for _, t := range texts {
			if stamper.Names(t.text) {
				ids = append(ids, t.id)
			}
		}
	}
	release := s.Repo().KeepObjects()
	defer release()
	newest, err := newestLoreCommits(s)
	if err != nil {
		return nil, err
	}
	var out []Cited
	for _, id := range ids {
		if len(report.Of(provenance.KeyOfID(id))) > 0 {
			continue
		}
		commit, text, err := writtenAt(s, id, newest[id])
		if err != nil {
			return nil, err
		}
		if text == "" {
			continue // deleted on the branch: nothing to cite for
		}
		cs, err := stamper.At(commit, text)
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			out = append(out, Cited{ID: id, Commit: commit.String(), Cites: cs})
		}
	}
	return out, nil
}

// writtenAt is the commit that wrote entry id's text as HEAD has it, and
// that text ("" for an entry HEAD does not have). lore's newest commit of
// the entry (its Lore-Id trailer) answers when it holds that text, as it
// does unless a hand edit came after: then the entry's history does.
// Walking each entry's history would walk memories.md's commits once per
// memory (600 memories of 600 commits: 4.5 s).
func writtenAt(s *mdstore.Store, id string, lore gitx.Hash) (gitx.Hash, string, error) {
	if !lore.IsZero() {
		kind, _, paths, err := historyPaths(s, id)
		if err == nil && len(paths) > 0 {
			at := s.GitPath(paths[0].path)
			head, err := s.Repo().HeadCommit()
			if err != nil {
				return gitx.ZeroHash, "", err
			}
			then, err := s.Repo().BlobsAt(lore, []string{at})
			if err != nil {
				return gitx.ZeroHash, "", err
			}
			now, err := s.Repo().BlobsAt(head, []string{at})
			if err != nil {
				return gitx.ZeroHash, "", err
			}
			texts := &entryTexts{s: s, kind: kind, id: id}
			textThen, okThen, err := texts.read(then[at])
			if err != nil {
				return gitx.ZeroHash, "", err
			}
			textNow, okNow, err := texts.read(now[at])
			if err != nil {
				return gitx.ZeroHash, "", err
			}
			if okThen && okNow && textThen == textNow {
				return lore, textNow, nil
			}
		}
	}
	versions, err := Versions(s, id)
	if err != nil {
		return gitx.ZeroHash, "", err
	}
	i := slices.IndexFunc(versions, func(v EntryVersion) bool { return !v.OffBranch })
	if i < 0 || versions[i].Text == "" {
		return gitx.ZeroHash, "", nil
	}
	return gitx.ParseHash(versions[i].Commit), versions[i].Text, nil
}

// newestLoreCommits is, for each entry lore's commits name (their
// Lore-Id trailer), the newest commit along HEAD's first parents that
// names it: one walk of the commits, reading no tree.
func newestLoreCommits(s *mdstore.Store) (map[string]gitx.Hash, error) {
	out := map[string]gitx.Hash{}
	head, err := s.Repo().HeadCommit()
	if err != nil || head.IsZero() {
		return out, err
	}
	err = s.Repo().FirstParents(head, func(v gitx.Version) bool {
		if !strings.HasPrefix(v.Subject, "lore: ") {
			return true
		}
		for _, id := range gitx.ParseTrailers(v.Message)["Lore-Id"] {
			if _, seen := out[id]; !seen {
				out[id] = v.Commit
			}
		}
		return true
	})
	return out, err
}

// citable is an entry whose staleness prime shows, and its text.
type citable struct{ id, text string }

// citableTexts are the store's memories, knowledge entries and learnings.
func citableTexts(s *mdstore.Store) ([]citable, error) {
	ms, _, err := s.Memories()
	if err != nil {
		return nil, err
	}
	es, _, err := s.Entries()
	if err != nil {
		return nil, err
	}
	var out []citable
	for _, m := range ms {
		out = append(out, citable{m.ID, m.Content})
	}
	for _, k := range es.Knowledge {
		out = append(out, citable{k.Slug, k.Title + "\n" + k.Body})
	}
	for _, l := range es.Learnings {
		out = append(out, citable{l.ID, l.Body})
	}
	return out, nil
}
