// Package history is lore history and lore restore. Every change to the
// store is a commit, so nothing lore deletes, prunes or supersedes is
// gone: Versions reads an entry's versions back from git — along the
// branch, and from the commits a reset or a rebase took off it that only
// the reflog holds — and Restore commits the last one that had it again
// (seed 002's "Cross-Run Persistence", with git as the archive).
package history

import (
	"bytes"
	"errors"
	"fmt"
	"time"

	"lore/internal/gitx"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// EntryVersion is one version of an entry, newest first in Versions.
type EntryVersion struct {
	Commit  string    `json:"commit"`
	When    time.Time `json:"date"`
	Author  string    `json:"author"`
	Subject string    `json:"subject"` // the commit's
	// Change is what the commit did to the entry: added, changed or
	// removed; for a learning whose status or superseded_by changed, what
	// they became ("status rejected", "superseded by l-…").
	Change string `json:"change"`
	// Text is the entry as the commit left it: its file, or a memory's
	// block; "" once removed.
	Text string `json:"text,omitempty"`
	// OffBranch: the branch no longer reaches the commit (a git reset, a
	// rebase or an amend took it off); only the reflog holds it.
	OffBranch bool      `json:"off_branch,omitempty"`
	blob      gitx.Hash // the file that holds it
}

// Versions lists every version of entry id (a memory, a knowledge slug, a
// learning, a journal key "<run>/<file name>"), newest first, along the
// first parents of HEAD — and those of commits the branch no longer
// reaches that its reflog still holds (OffBranch).
func Versions(s *mdstore.Store, id string) ([]EntryVersion, error) {
	kind, id, p, err := historyPath(s, id)
	if err != nil {
		return nil, err
	}
	// Every version of the file, newest first; for a memory, of its
	// block in memories.md, which changes with every other memory too:
	// the walk ends past the commit that added it.
	var all []EntryVersion
	seen := false
	err = s.Repo().History(s.GitPath(p), func(v gitx.Version) bool {
		text, found, rerr := versionText(s, kind, id, v.Blob)
		if rerr != nil {
			err = rerr
			return false
		}
		all = append(all, EntryVersion{Commit: v.Commit.String(), When: v.When, Author: v.Author, Subject: v.Subject, Text: text, blob: v.Blob})
		if kind == entry.KindMemory && seen && !found {
			return false
		}
		seen = seen || found
		return true
	})
	if err != nil {
		return nil, err
	}
	// A version is a commit that left the entry otherwise than the one
	// before it did.
	var out []EntryVersion
	for i, v := range all {
		older := ""
		if i+1 < len(all) {
			older = all[i+1].Text
		}
		if v.Text == older {
			continue
		}
		v.Change = changeOf(v.Text, older, learningOf(kind, v.Text, p), learningOf(kind, older, p))
		out = append(out, v)
	}
	off, err := offBranchVersions(s, kind, id, p)
	if err != nil {
		return nil, err
	}
	out = mergeVersions(out, off)
	if len(out) == 0 {
		return nil, entry.NotFound(kind, id)
	}
	return out, nil
}

// offBranchVersions are the versions of entry id that commits only the
// branch's reflog holds made, newest first.
func offBranchVersions(s *mdstore.Store, kind entry.Kind, id, p string) ([]EntryVersion, error) {
	var out []EntryVersion
	var err error
	walkErr := s.Repo().OffBranchHistory(s.GitPath(p), func(v gitx.Version) bool {
		text, _, rerr := versionText(s, kind, id, v.Blob)
		if rerr != nil {
			err = rerr
			return false
		}
		older, _, rerr := versionText(s, kind, id, v.Before)
		if rerr != nil {
			err = rerr
			return false
		}
		if text == older {
			return true
		}
		out = append(out, EntryVersion{Commit: v.Commit.String(), When: v.When, Author: v.Author, Subject: v.Subject, Text: text, blob: v.Blob,
			OffBranch: true, Change: changeOf(text, older, learningOf(kind, text, p), learningOf(kind, older, p))})
		return true
	})
	if walkErr != nil {
		return nil, walkErr
	}
	return out, err
}

// mergeVersions puts the off-branch versions among the branch's, newest
// first by date; an off-branch version goes before a branch version of
// the same date (the branch's was there before it was rewound).
func mergeVersions(branch, off []EntryVersion) []EntryVersion {
	if len(off) == 0 {
		return branch
	}
	out := make([]EntryVersion, 0, len(branch)+len(off))
	i, j := 0, 0
	for i < len(branch) || j < len(off) {
		if j < len(off) && (i == len(branch) || !off[j].When.Before(branch[i].When)) {
			out = append(out, off[j])
			j++
		} else {
			out = append(out, branch[i])
			i++
		}
	}
	return out
}

// learningOf is the learning text holds, when kind is a learning's and
// it parses.
func learningOf(kind entry.Kind, text, p string) *entry.Learning {
	if kind != entry.KindLearning || text == "" {
		return nil
	}
	l, err := entry.ParseLearning([]byte(text), p)
	if err != nil {
		return nil
	}
	return &l
}

// changeOf says what a version (newer) did to the one before it (older,
// "" for none): added, removed, changed, or a learning's new status or
// superseded_by.
func changeOf(newer, older string, nl, ol *entry.Learning) string {
	switch {
	case older == "":
		return "added"
	case newer == "":
		return "removed"
	case nl != nil && ol != nil && nl.SupersededBy != ol.SupersededBy && nl.SupersededBy != "":
		return "superseded by " + nl.SupersededBy
	case nl != nil && ol != nil && nl.Status != ol.Status:
		return "status " + nl.Status
	}
	return "changed"
}

// Restore commits again the last version of entry id that git's history
// has — a deleted memory, knowledge entry, learning or journal entry, or a
// learning's last version that was shown (active, superseded by nothing)
// — naming the commit it came from. An entry that is there, and shown,
// has nothing to restore.
func Restore(s *mdstore.Store, id string) (EntryVersion, *mdstore.WriteResult, error) {
	kind, id, p, err := historyPath(s, id)
	if err != nil {
		return EntryVersion{}, nil, err
	}
	versions, err := Versions(s, id)
	if err != nil {
		return EntryVersion{}, nil, err
	}
	var from *EntryVersion
	for i := range versions {
		v := &versions[i]
		if v.Text == "" {
			continue
		}
		if kind == entry.KindLearning {
			if l, err := entry.ParseLearning([]byte(v.Text), p); err != nil || !l.Shown() {
				continue
			}
		}
		from = v
		break
	}
	if from == nil {
		return EntryVersion{}, nil, &entry.InputError{Field: "id", Msg: fmt.Sprintf("%s: no version in git's history to restore", id)}
	}
	if current := onBranch(versions); current != nil && current.Text == from.Text {
		return *from, nil, &entry.InputError{Field: "id", Msg: fmt.Sprintf("%s is there as its last version (%s): nothing to restore", id, short(current.Commit))}
	}
	text := from.Text
	if err := (&entry.SecretCheck{}).Text("the restored entry", &text); err != nil {
		return EntryVersion{}, nil, err
	}
	var m entry.Memory
	if kind == entry.KindMemory {
		// Its section, which says its type, is in the whole file.
		data, err := s.Repo().ReadBlob(from.blob)
		if err != nil {
			return EntryVersion{}, nil, err
		}
		found := false
		for _, mm := range entry.ParseMemoriesFile(data, entry.MemoriesPath).Memories {
			if mm.ID == id {
				m, found = mm, true
				break
			}
		}
		if !found {
			return EntryVersion{}, nil, fmt.Errorf("%s: the memory does not read back from %s", id, short(from.Commit))
		}
	}
	res, err := s.Write(func(tx *mdstore.Tx) error {
		if kind == entry.KindMemory {
			tx.Apply(mdstore.Edit{Path: entry.MemoriesPath, Op: mdstore.OpAddMemory, Memory: &m})
		} else {
			tx.Apply(mdstore.Edit{Path: p, Op: mdstore.OpPut, Content: text})
		}
		body := fmt.Sprintf("Restored from %s (%s): %s", short(from.Commit), from.When.UTC().Format(time.DateOnly), from.Subject)
		tx.SetMessage(mdstore.CommitMessage("lore: restore "+string(kind)+" "+id, body,
			"Lore-Id", id, "Lore-Kind", string(kind), "Lore-Restored-From", from.Commit))
		return nil
	})
	return *from, res, err
}

// onBranch is the newest of versions the branch holds, nil for none.
func onBranch(versions []EntryVersion) *EntryVersion {
	for i := range versions {
		if !versions[i].OffBranch {
			return &versions[i]
		}
	}
	return nil
}

// historyPath is the kind of entry id names, id trimmed, and the store
// file it lives in.
func historyPath(s *mdstore.Store, id string) (entry.Kind, string, string, error) {
	if s.Repo() == nil {
		return "", "", "", errors.New("history and restore read git's history: the store is not in a git repository")
	}
	kind, id := entry.KindOfID(id)
	switch kind {
	case entry.KindMemory:
		if !entry.ValidMemoryID(id) {
			return kind, id, "", entry.NotFound(kind, id)
		}
		return kind, id, entry.MemoriesPath, nil
	case entry.KindLearning:
		return kind, id, entry.LearningPath(id), nil
	case entry.KindJournal:
		run, name, err := entry.ParseJournalKey(id)
		if err != nil {
			return kind, id, "", err
		}
		return kind, id, entry.JournalDir + "/" + run + "/" + name + ".md", nil
	}
	if id == "" || !entry.IsSlug(id) {
		return kind, id, "", entry.NotFound(kind, id)
	}
	return kind, id, entry.KnowledgePath(id), nil
}

// versionText is entry id as blob b holds it (a memory: its block), and
// whether it is there.
func versionText(s *mdstore.Store, kind entry.Kind, id string, b gitx.Hash) (string, bool, error) {
	if b.IsZero() {
		return "", false, nil
	}
	data, err := s.Repo().ReadBlob(b)
	if err != nil {
		return "", false, err
	}
	if kind != entry.KindMemory {
		return string(data), true, nil
	}
	if !bytes.Contains(data, []byte(id)) {
		return "", false, nil
	}
	f := entry.ParseMemoriesFile(data, entry.MemoriesPath)
	block, ok := f.ShownBlock(id)
	if !ok {
		return "", false, nil
	}
	return string(data[block.Start:block.End]), true, nil
}

// short is a commit's abbreviated name.
func short(commit string) string { return commit[:min(len(commit), 12)] }
