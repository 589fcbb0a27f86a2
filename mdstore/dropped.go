package mdstore

import (
	"strings"

	"lore/internal/gitx"
)

// An agent that rewinds the branch (git reset --hard HEAD~2, a rebase
// that drops commits, an amend) takes lore's commits off it with the
// entries they wrote — the memories it added through lore while it ran,
// the iterations before it. lore run marks the branch before the agent
// runs and, after it, queues again what the rewind took (RestoreDropped),
// for the iteration's own write to commit first.

// BranchMark is where the branch stood before an agent ran.
type BranchMark struct {
	mark gitx.BranchMark
	ok   bool
}

// MarkBranch is where the branch stands now; a store outside git has
// none to mark.
func (s *Store) MarkBranch() (BranchMark, error) {
	if s.repo == nil {
		return BranchMark{}, nil
	}
	m, err := s.repo.Mark()
	if err != nil {
		return BranchMark{}, err
	}
	return BranchMark{mark: m, ok: true}, nil
}

// DroppedCommit is a commit of lore's that a rewind took off the branch.
type DroppedCommit struct {
	Commit  string `json:"commit"`
	Subject string `json:"subject"`
	// Queued says lore queued its change again: false when the branch
	// holds it anyway (a rebase that rewrote rather than dropped it).
	Queued bool `json:"queued"`
}

// RestoreDropped finds lore's commits that the branch held at m or since
// and no longer reaches, and queues their changes again — unless the
// branch holds them anyway — for the next write to commit, oldest first,
// with their messages. Where lore does not commit (config.yaml's commit),
// it only finds them.
func (s *Store) RestoreDropped(m BranchMark) ([]DroppedCommit, error) {
	if !m.ok || m.mark.Tip.IsZero() {
		return nil, nil
	}
	lost, err := s.repo.DroppedSince(m.mark)
	if err != nil || len(lost) == 0 {
		return nil, err
	}
	out := make([]DroppedCommit, len(lost))
	for i, c := range lost {
		subject, _, _ := strings.Cut(c.Message, "\n")
		out[i] = DroppedCommit{Commit: c.Commit.String(), Subject: subject}
	}
	if s.writeOptions().Mode != gitx.ModeCommit {
		return out, nil
	}
	queued := map[gitx.Hash]bool{}
	_, err = s.requeueLost(lost, func(c gitx.LostCommit) string {
		queued[c.Commit] = true
		return "a rewind of the branch (git reset, rebase or commit --amend) took commit " + c.Commit.String()[:7] + " off it"
	})
	for i, c := range lost {
		out[i].Queued = queued[c.Commit]
	}
	return out, err
}
