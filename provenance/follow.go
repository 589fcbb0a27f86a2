package provenance

import (
	"path"

	"lore/internal/diff3"
	"lore/internal/gitx"
)

// A cited file that is gone from its path may have moved with changes:
// git log --follow finds such a rename by content, and so does Follow.
// Read finds the files that moved unchanged (one walk of HEAD's tree);
// Follow, asked only for the gone citations that prime shows, lore stale
// lists and lore verify re-stamps, walks the file's history to the commit
// that removed it and looks there for a file added with at least half of
// its lines (git's rename threshold).

// maxHops bounds how many renames Follow follows.
const maxHops = 5

// maxRenameCandidates bounds the files added by one commit that Follow
// compares by content (those with the gone file's name or extension
// first).
const maxRenameCandidates = 200

// Renamed is where a gone cited file went: the path HEAD has it at, and
// the commit of the last rename.
type Renamed struct {
	To  string
	Via gitx.Version
}

// Follow says where c's file went, "" in To when it was removed, not
// renamed (or HEAD no longer has it anywhere). Answers are kept, by
// file and cited content.
func (r *Report) Follow(c Check) (Renamed, error) {
	if r == nil || r.repo == nil || c.State != Gone {
		return Renamed{}, nil
	}
	key := c.File + "\x00" + c.Blob
	if m, ok := r.follow[key]; ok {
		return m, nil
	}
	defer r.repo.KeepObjects()()
	var out Renamed
	p := c.File
	for range maxHops {
		removal, err := r.removal(p)
		if err != nil || removal.Commit.IsZero() {
			break
		}
		to, err := r.renamedTo(removal, p)
		if err != nil || to == "" {
			break
		}
		p, out.Via = to, removal
		blobs, err := r.repo.BlobsAt(r.Head, []string{to})
		if err != nil {
			break
		}
		if !blobs[to].IsZero() {
			out.To = to
			break
		}
	}
	if r.follow == nil {
		r.follow = map[string]Renamed{}
	}
	r.follow[key] = out
	return out, nil
}

// removal is the commit, along HEAD's first parents, that removed the
// file at p (its Before the file's last content); zero when none did.
func (r *Report) removal(p string) (gitx.Version, error) {
	var out gitx.Version
	err := r.repo.History(p, func(v gitx.Version) bool {
		if v.Blob.IsZero() && !v.Before.IsZero() {
			out = v
		}
		return false // the newest change only: a file gone at HEAD was removed last
	})
	return out, err
}

// renamedTo is the file commit v added that is most like the file it
// removed from p (at least half of their lines the same), "" for none.
func (r *Report) renamedTo(v gitx.Version, p string) (string, error) {
	changes, err := r.repo.ChangedFiles(v.Parent, v.Commit)
	if err != nil {
		return "", err
	}
	var added []gitx.FileChange
	for _, ch := range changes {
		if !ch.HadOld && ch.HasNew {
			if ch.NewBlob == v.Before {
				return ch.Path, nil
			}
			added = append(added, ch)
		}
	}
	if len(added) > maxRenameCandidates {
		var near []gitx.FileChange
		for _, ch := range added {
			if path.Base(ch.Path) == path.Base(p) || path.Ext(ch.Path) == path.Ext(p) {
				near = append(near, ch)
			}
		}
		added = near[:min(len(near), maxRenameCandidates)]
	}
	old, err := r.repo.ReadBlob(v.Before)
	if err != nil {
		return "", err
	}
	best, bestScore := "", 0.5
	for _, ch := range added {
		data, err := r.repo.ReadBlob(ch.NewBlob)
		if err != nil {
			return "", err
		}
		score := diff3.LineSimilarity(string(old), string(data))
		if score > bestScore || (score == bestScore && best == "") || (score == bestScore && path.Base(ch.Path) == path.Base(p)) {
			best, bestScore = ch.Path, score
		}
	}
	return best, nil
}
