package mdstore

import (
	"errors"
	"path"
	"strconv"
	"strings"
	"time"

	"lore/mdstore/catalog"
	"lore/mdstore/entry"
)

// knowledgePlan is the decision for one knowledge entry, made once under
// the lock and kept if the commit is retried.
type knowledgePlan struct {
	entry  entry.Knowledge
	action entry.KnowledgeAction
}

// storedKnowledge is what deciding new knowledge entries reads from the
// store: the entries a new one may update, and the slugs this change took
// (those planned before the store was read included). A slug is also
// taken by a file of the state the change builds on or on disk, readable
// or not (it is still someone's): planKnowledge looks those up. It is read
// once per change, however many entries the change adds, and afresh for
// each attempt at the change.
type storedKnowledge struct {
	loaded   bool
	existing []entry.Knowledge
	byTitle  map[string]int  // lower-case title → position in existing
	taken    map[string]bool // by this change
	names    map[string]bool // listed, when a name did not read (listed)
	planned  []string        // slugs created by plans decided before the store was read
}

// take marks slug as taken by an entry of this change.
func (st *storedKnowledge) take(slug string) {
	if st.loaded {
		st.taken[slug] = true
	} else {
		st.planned = append(st.planned, slug)
	}
}

func (st *storedKnowledge) load(tx *Tx) error {
	if st.loaded {
		return nil
	}
	existing, err := tx.knowledge()
	if err != nil {
		return err
	}
	st.existing, st.byTitle, st.taken = existing, make(map[string]int, len(existing)), map[string]bool{}
	for i := len(existing) - 1; i >= 0; i-- { // the first of equal titles wins
		st.byTitle[strings.ToLower(existing[i].Title)] = i
	}
	for _, slug := range st.planned {
		st.taken[slug] = true
	}
	st.loaded = true
	return nil
}

// listed is the slugs of every file listed in the knowledge directory, in
// the state the change builds on and on disk, read once.
func (st *storedKnowledge) listed(tx *Tx) (map[string]bool, error) {
	if st.names != nil {
		return st.names, nil
	}
	names := map[string]bool{}
	for _, r := range []catalog.Reader{tx, tx.worktree()} {
		paths, _, err := catalog.MarkdownFiles(r, entry.KnowledgeDir)
		if err != nil {
			return nil, err
		}
		for _, p := range paths {
			names[strings.TrimSuffix(path.Base(p), ".md")] = true
		}
	}
	st.names = names
	return names, nil
}

// planKnowledge decides where a new knowledge entry goes (seed 000's
// dedup rules) and registers the edit.
func planKnowledge(tx *Tx, in entry.NewKnowledge, now time.Time, plan *knowledgePlan, stored *storedKnowledge) error {
	if plan.action == "" {
		if err := stored.load(tx); err != nil {
			return err
		}
		existing := stored.existing
		// A slug is taken by this change, or by a file in the state the
		// change builds on or on disk, whether it reads or not: looked up
		// for the few slugs tried rather than listed.
		taken := func(slug string) (bool, error) {
			if stored.taken[slug] {
				return true, nil
			}
			exists, err := tx.Exists(entry.KnowledgePath(slug))
			if err == nil {
				return exists, nil
			}
			// Not read (a link, a special file): the listings say whether
			// the name is someone's.
			listed, err := stored.listed(tx)
			return listed[slug], err
		}
		k := entry.Knowledge{Title: in.Title, Tags: in.Tags, Feature: in.Feature, Body: in.Body, Sources: in.Sources, CreatedAt: now.UTC().Format(time.RFC3339)}
		i, action := entry.FindKnowledgeDuplicate(existing, stored.byTitle, in.Title, in.Tags)
		if i >= 0 {
			old := existing[i]
			merged := old
			merged.Tags = entry.MergeTags(old.Tags, in.Tags)
			merged.Body = in.Body
			if in.Feature != "" {
				merged.Feature = in.Feature
			}
			if len(in.Sources) > 0 {
				merged.Sources = in.Sources
			}
			if merged.Body == old.Body && len(merged.Tags) == len(old.Tags) && merged.Feature == old.Feature && len(in.Sources) == 0 {
				*plan = knowledgePlan{entry: old, action: entry.KnowledgeUnchanged}
				return nil
			}
			merged.UpdatedAt = now.UTC().Format(time.RFC3339)
			k = merged
		} else {
			slug, err := freeSlug(taken, entry.Slugify(in.Title))
			if err != nil {
				return err
			}
			k.Slug = slug
			k.Path = entry.KnowledgePath(k.Slug)
		}
		*plan = knowledgePlan{entry: k, action: action}
	}
	if plan.action == entry.KnowledgeCreated {
		stored.take(plan.entry.Slug)
	}
	if plan.action == entry.KnowledgeUnchanged {
		return nil
	}
	k := plan.entry
	tx.Apply(Edit{Path: k.Path, Op: OpKnowledge, Knowledge: &k, Create: plan.action == entry.KnowledgeCreated})
	return nil
}

// freeSlug returns slug, or slug-2, slug-3… when it is taken.
func freeSlug(taken func(string) (bool, error), slug string) (string, error) {
	if t, err := taken(slug); err != nil || !t {
		return slug, err
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		base := slug
		if len(base)+len(suffix) > entry.MaxSlugLength {
			base = strings.TrimRight(base[:entry.MaxSlugLength-len(suffix)], "-")
		}
		if t, err := taken(base + suffix); err != nil || !t {
			return base + suffix, err
		}
	}
}

// AddKnowledge writes a knowledge entry following seed 000's dedup rules:
// the same title replaces the entry's body and merges its tags; a similar
// title with mostly the same tags updates that entry; otherwise a new file.
func (s *Store) AddKnowledge(in entry.NewKnowledge, also ...Also) (entry.Knowledge, entry.KnowledgeAction, *WriteResult, error) {
	in, err := in.Normalize(&entry.SecretCheck{})
	if err != nil {
		return entry.Knowledge{}, "", nil, err
	}
	now := s.now()
	var plan knowledgePlan
	defer s.readAhead(entry.KnowledgeDir)()
	res, err := s.Write(func(tx *Tx) error {
		if err := planKnowledge(tx, in, now, &plan, &storedKnowledge{}); err != nil {
			return err
		}
		verb := "add"
		if plan.action != entry.KnowledgeCreated {
			verb = "update"
		}
		trailers, err := withAlso(tx, plan.entry.Slug, also, "Lore-Id", plan.entry.Slug, "Lore-Kind", "knowledge")
		tx.SetMessage(CommitMessage("lore: "+verb+" knowledge "+plan.entry.Slug, plan.entry.Title, trailers...))
		return err
	})
	if err != nil {
		return entry.Knowledge{}, "", nil, err
	}
	return plan.entry, plan.action, res, nil
}

// DeleteKnowledge removes .agent/knowledge/<slug>.md, as one commit.
func (s *Store) DeleteKnowledge(slug string) (entry.Knowledge, *WriteResult, error) {
	k, err := s.KnowledgeEntry(slug)
	var fe *entry.FileError
	if err != nil && !errors.As(err, &fe) {
		return entry.Knowledge{}, nil, err
	}
	p := entry.KnowledgePath(strings.TrimSuffix(slug, ".md"))
	res, err := s.removeFile(p, entry.KindKnowledge, strings.TrimSuffix(slug, ".md"), k.Title)
	return k, res, err
}

// removeFile deletes one store file as one commit; a NotFoundError if
// absent.
func (s *Store) removeFile(p string, kind entry.Kind, id, body string) (*WriteResult, error) {
	return s.Write(func(tx *Tx) error {
		if ok, err := tx.Exists(p); err != nil {
			return err
		} else if !ok {
			return entry.NotFound(kind, id)
		}
		tx.Apply(Edit{Path: p, Op: OpRemove})
		tx.SetMessage(CommitMessage("lore: delete "+string(kind)+" "+id, body, "Lore-Id", id, "Lore-Kind", string(kind)))
		return nil
	})
}
