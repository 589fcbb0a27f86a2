// Package history is lore history and lore restore. Every change to the
// store is a commit, so nothing lore deletes, prunes or supersedes is
// gone: Versions reads an entry's versions back from git — along the
// branch, through deletes, restores, edits by hand and renames by hand,
// and from the commits a reset or a rebase took off it that only the
// reflog holds — WithPatches says what each changed of the entry alone,
// and Restore commits the last one that had it again (seed 002's
// "Cross-Run Persistence", with git as the archive).
package history

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"lore/internal/diff3"
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
	// By is who made the commit: "lore" (its subject starts "lore: ", as
	// every commit lore makes does) or "hand" (anything else: an edit
	// committed with git, a merge, another tool).
	By string `json:"by"`
	// Change is what the commit did to the entry: added, changed, deleted,
	// restored (added again after a delete, by lore restore or by hand),
	// "renamed from <path>"; for a learning whose status or superseded_by
	// changed, what they became ("status rejected", "superseded by l-…").
	Change string `json:"change"`
	// Path is the store file that holds the entry at this version (a
	// knowledge entry renamed by hand had another before).
	Path string `json:"path"`
	// Text is the entry as the commit left it: its file, or a memory's
	// block; "" once deleted.
	Text string `json:"text,omitempty"`
	// Patch is what the commit changed of the entry, as a unified diff
	// against the version before it: filled by WithPatches.
	Patch string `json:"patch,omitempty"`
	// OffBranch: the branch no longer reaches the commit (a git reset, a
	// rebase or an amend took it off); only the reflog holds it.
	OffBranch bool      `json:"off_branch,omitempty"`
	before    string    // the entry as the commit's first parent had it
	beforeAt  string    // and where, when elsewhere (a rename)
	blob      gitx.Hash // the file that holds it
	message   string    // the commit's whole message (a Supersedes trailer)
}

// Versions lists every version of entry id (a memory, a knowledge slug, a
// learning, a journal key "<run>/<file name>", a skill's name), newest
// first, along the first parents of HEAD — through its deletes, restores
// and edits by hand, and back through a knowledge entry's or a learning's
// renames — and those of commits the branch no longer reaches that its
// reflog still holds (OffBranch).
func Versions(s *mdstore.Store, id string) ([]EntryVersion, error) {
	_, _, _, out, err := versions(s, id)
	return out, err
}

// WithPatches fills each version's Patch: what it changed of the entry,
// as a unified diff (three lines of context) against the version before.
func WithPatches(versions []EntryVersion) {
	for i := range versions {
		v := &versions[i]
		from, to := "a/"+v.Path, "b/"+v.Path
		if v.beforeAt != "" {
			from = "a/" + v.beforeAt
		}
		if v.before == "" {
			from = "/dev/null"
		}
		if v.Text == "" {
			to = "/dev/null"
		}
		v.Patch = diff3.Unified(v.before, v.Text, from, to, 3)
		if v.beforeAt != "" && v.Patch == "" {
			v.Patch = "rename from " + v.beforeAt + "\nrename to " + v.Path + "\n" // git's words for it
		}
	}
}

// versions is Versions, with the kind of entry id names, id trimmed and
// the store file it lives in now.
func versions(s *mdstore.Store, id string) (entry.Kind, string, string, []EntryVersion, error) {
	kind, id, paths, err := historyPaths(s, id)
	if err != nil {
		return kind, id, "", nil, err
	}
	for _, at := range paths {
		out, err := versionsAt(s, at.kind, id, at.path)
		if err != nil || len(out) > 0 {
			return at.kind, id, at.path, out, err
		}
	}
	return kind, id, "", nil, entry.NotFound(kind, id)
}

// versionsAt is the versions of entry id of kind, which lives in store
// file p.
func versionsAt(s *mdstore.Store, kind entry.Kind, id, p string) ([]EntryVersion, error) {
	// Every version of the file, newest first, followed back through a
	// rename; for a memory, of its block in memories.md, which changes
	// with every other memory too: the walk ends a day before the time
	// its id was made at (no commit before can have it).
	cutoff := memoryCutoff(kind, id)
	texts := &entryTexts{s: s, kind: kind, id: id}
	var all []EntryVersion
	var err error
	at, from := p, gitx.ZeroHash
	for at != "" {
		var renamed string
		visit := func(v gitx.Version) bool {
			if !cutoff.IsZero() && v.When.Before(cutoff) {
				return false
			}
			text, _, rerr := texts.read(v.Blob)
			if rerr != nil {
				err = rerr
				return false
			}
			all = append(all, EntryVersion{Commit: v.Commit.String(), When: v.When, Author: v.Author, Subject: v.Subject, Path: at, Text: text, blob: v.Blob, message: v.Message})
			if kind != entry.KindMemory && v.Before.IsZero() && !v.Parent.IsZero() {
				if renamed, rerr = renamedFrom(s, v, at, text); rerr != nil {
					err = rerr
					return false
				}
				if renamed != "" {
					from = v.Parent
					return false
				}
			}
			return true
		}
		var walkErr error
		if from.IsZero() {
			walkErr = s.Repo().History(s.GitPath(at), visit)
		} else {
			walkErr = s.Repo().HistoryFrom(from, s.GitPath(at), visit)
		}
		if walkErr != nil {
			return nil, walkErr
		}
		if err != nil {
			return nil, err
		}
		if renamed != "" {
			all[len(all)-1].beforeAt = renamed
		}
		at = renamed
	}
	// A version is a commit that left the entry otherwise than the one
	// before it did, or moved it.
	var out []EntryVersion
	for i, v := range all {
		if i+1 < len(all) {
			v.before = all[i+1].Text
		}
		if v.Text == v.before && v.beforeAt == "" {
			continue
		}
		existed := false
		for _, older := range all[min(i+1, len(all)):] {
			existed = existed || older.Text != ""
		}
		v.By = byOf(v.Subject)
		v.Change = changeOf(v.Text, v.before, existed && v.before == "", learningOf(kind, v.Text, p), learningOf(kind, v.before, p))
		if by := supersededBy(v.message, id); v.Change == "deleted" && by != "" {
			v.Change = "superseded by " + by
		}
		if v.beforeAt != "" {
			v.Change = "renamed from " + v.beforeAt
			if v.Text != v.before {
				v.Change += ", changed"
			}
		}
		out = append(out, v)
	}
	off, err := offBranchVersions(s, kind, id, p)
	if err != nil {
		return nil, err
	}
	return mergeVersions(out, off), nil
}

// memoryCutoff is the time before which no commit can hold memory id: a
// day before the Unix time its id was made with; zero for another kind.
func memoryCutoff(kind entry.Kind, id string) time.Time {
	if kind != entry.KindMemory {
		return time.Time{}
	}
	digits, _, _ := strings.Cut(strings.TrimPrefix(id, "mem-"), "-")
	secs, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || secs <= 0 {
		return time.Time{}
	}
	return time.Unix(secs, 0).Add(-24 * time.Hour)
}

// renamedFrom is the store file beside p that commit v, which added p,
// removed and whose text the new one mostly keeps (the same blob, or half
// its lines, as git's rename detection asks): where p was renamed from by
// hand; "" for none.
func renamedFrom(s *mdstore.Store, v gitx.Version, p, text string) (string, error) {
	removed, err := s.Repo().RemovedBeside(v.Commit, s.GitPath(p))
	if err != nil {
		return "", err
	}
	best, bestScore := "", 0.5
	for _, r := range removed {
		name := path.Join(path.Dir(p), path.Base(r.Path))
		if r.Blob == v.Blob {
			return name, nil
		}
		data, err := s.Repo().ReadBlob(r.Blob)
		if err != nil {
			return "", err
		}
		if score := diff3.LineSimilarity(string(data), text); score >= bestScore {
			best, bestScore = name, score
		}
	}
	return best, nil
}

// byOf is who made a commit with this subject: "lore" or "hand".
func byOf(subject string) string {
	if strings.HasPrefix(subject, "lore: ") {
		return "lore"
	}
	return "hand"
}

// offBranchVersions are the versions of entry id that commits only the
// branch's reflog holds made, newest first.
func offBranchVersions(s *mdstore.Store, kind entry.Kind, id, p string) ([]EntryVersion, error) {
	var out []EntryVersion
	var err error
	texts := &entryTexts{s: s, kind: kind, id: id}
	walkErr := s.Repo().OffBranchHistory(s.GitPath(p), func(v gitx.Version) bool {
		text, _, rerr := texts.read(v.Blob)
		if rerr != nil {
			err = rerr
			return false
		}
		older, _, rerr := texts.read(v.Before)
		if rerr != nil {
			err = rerr
			return false
		}
		if text == older {
			return true
		}
		out = append(out, EntryVersion{Commit: v.Commit.String(), When: v.When, Author: v.Author, Subject: v.Subject, By: byOf(v.Subject), Path: p, Text: text,
			before: older, blob: v.Blob, OffBranch: true, Change: changeOf(text, older, false, learningOf(kind, text, p), learningOf(kind, older, p))})
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

// supersededBy is the entry a commit (its message) wrote to replace id:
// its Lore-Id, when it has a "Supersedes: id" trailer; "" otherwise.
func supersededBy(message, id string) string {
	t := gitx.ParseTrailers(message)
	if !slices.Contains(t["Supersedes"], id) {
		return ""
	}
	return t.Last("Lore-Id")
}

// changeOf says what a version (newer) did to the one before it (older,
// "" for none; again when an older version had it): added, restored,
// deleted, changed, or a learning's new status or superseded_by.
func changeOf(newer, older string, again bool, nl, ol *entry.Learning) string {
	switch {
	case older == "" && again:
		return "restored"
	case older == "":
		return "added"
	case newer == "":
		return "deleted"
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
	kind, id, p, versions, err := versions(s, id)
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

// located is a store file an entry may live in, and the kind it holds.
type located struct {
	kind entry.Kind
	path string
}

// historyPaths is the kind of entry id names, id trimmed, and the store
// files it may live in, the likelier first: a name that is no knowledge
// entry's may be a skill's.
func historyPaths(s *mdstore.Store, id string) (entry.Kind, string, []located, error) {
	if s.Repo() == nil {
		return "", "", nil, errors.New("history and restore read git's history: the store is not in a git repository")
	}
	kind, id := entry.KindOfID(id)
	one := func(p string) []located { return []located{{kind, p}} }
	switch kind {
	case entry.KindMemory:
		if !entry.ValidMemoryID(id) {
			return kind, id, nil, entry.NotFound(kind, id)
		}
		return kind, id, one(entry.MemoriesPath), nil
	case entry.KindLearning:
		return kind, id, one(entry.LearningPath(id)), nil
	case entry.KindJournal:
		run, name, err := entry.ParseJournalKey(id)
		if err != nil {
			return kind, id, nil, err
		}
		return kind, id, one(entry.JournalDir + "/" + run + "/" + name + ".md"), nil
	}
	if id == "" || !entry.IsSlug(id) {
		return kind, id, nil, entry.NotFound(kind, id)
	}
	paths := one(entry.KnowledgePath(id))
	for _, d := range entry.SkillDirs {
		paths = append(paths, located{entry.KindSkill, d + "/" + id + "/SKILL.md"})
	}
	return kind, id, paths, nil
}

// entryTexts reads entry id of kind out of its file's versions.
type entryTexts struct {
	s    *mdstore.Store
	kind entry.Kind
	id   string
	// closed is the last memory block read when its metadata comment
	// closes it: a version that holds the same bytes at a line's start,
	// and the id nowhere else, holds the same block (the parser reads a
	// block from its heading to that comment, whatever is around it), and
	// is not parsed again. memories.md changes with every memory: a walk
	// of its history would parse every version of the whole file.
	closed string
}

// read is entry id as blob b holds it (a memory: its block), and whether
// it is there.
func (t *entryTexts) read(b gitx.Hash) (string, bool, error) {
	if b.IsZero() {
		return "", false, nil
	}
	data, err := t.s.Repo().ReadBlob(b)
	if err != nil {
		return "", false, err
	}
	if t.kind != entry.KindMemory {
		return string(data), true, nil
	}
	id := []byte(t.id)
	at := bytes.Index(data, id)
	if at < 0 {
		return "", false, nil
	}
	if t.closed != "" && !bytes.Contains(data[at+len(id):], id) {
		if start := bytes.LastIndexByte(data[:at], '\n') + 1; bytes.HasPrefix(data[start:], []byte(t.closed)) {
			return t.closed, true, nil
		}
	}
	f := entry.ParseMemoriesFile(data, entry.MemoriesPath)
	block, ok := f.ShownBlock(t.id)
	if !ok {
		return "", false, nil
	}
	text := string(data[block.Start:block.End])
	// Closed: the block alone parses without a word (one without its
	// metadata comment, or with a bad one, is warned about).
	t.closed = ""
	if alone := entry.ParseMemoriesText(text, entry.MemoriesPath); len(alone.Warnings) == 0 && len(alone.Memories) == 1 {
		t.closed = text
	}
	return text, true, nil
}

// short is a commit's abbreviated name.
func short(commit string) string { return commit[:min(len(commit), 12)] }
