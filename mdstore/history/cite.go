package history

import (
	"slices"

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
		if ids, err = citableIDs(s); err != nil {
			return nil, err
		}
	}
	release := s.Repo().KeepObjects()
	defer release()
	var out []Cited
	for _, id := range ids {
		if len(report.Of(provenance.KeyOfID(id))) > 0 {
			continue
		}
		versions, err := Versions(s, id)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(versions, func(v EntryVersion) bool { return !v.OffBranch })
		if i < 0 || versions[i].Text == "" {
			continue // deleted on the branch: nothing to cite for
		}
		v := versions[i]
		cs, err := stamper.At(gitx.ParseHash(v.Commit), v.Text)
		if err != nil {
			return nil, err
		}
		if len(cs) > 0 {
			out = append(out, Cited{ID: id, Commit: v.Commit, Cites: cs})
		}
	}
	return out, nil
}

// citableIDs are the ids of the store's memories, knowledge entries and
// learnings: the entries whose staleness prime shows.
func citableIDs(s *mdstore.Store) ([]string, error) {
	ms, _, err := s.Memories()
	if err != nil {
		return nil, err
	}
	es, _, err := s.Entries()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	for _, k := range es.Knowledge {
		ids = append(ids, k.Slug)
	}
	for _, l := range es.Learnings {
		ids = append(ids, l.ID)
	}
	return ids, nil
}
