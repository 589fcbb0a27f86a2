package gitx

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// TestMergeBaseIsGitMergeBase: on a history of branches that merge each
// other (criss-cross merges left out, where git itself has several
// answers), MergeBase gives what git merge-base gives, for every pair of
// branch tips along the way.
func TestMergeBaseIsGitMergeBase(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.Commit("initial", map[string]string{"f0": "0\n"})
	rng := rand.New(rand.NewPCG(7, 36))
	branches := []string{"main", "b1", "b2", "b3"}
	for _, b := range branches[1:] {
		r.Git("branch", b)
	}
	var tips []string
	for i := 0; i < 36; i++ {
		b := branches[rng.IntN(len(branches))]
		r.Git("checkout", "-q", b)
		if rng.IntN(4) == 0 {
			other := branches[rng.IntN(len(branches))]
			if other != b {
				if _, err := r.GitErr("merge", "-q", "--no-ff", "-m", "merge "+other, other); err != nil {
					r.Git("merge", "--abort")
				}
			}
		} else {
			r.Commit(fmt.Sprintf("c%d", i), map[string]string{fmt.Sprintf("f%d", i): "x\n"})
		}
		tips = append(tips, r.Git("rev-parse", "HEAD"))
	}
	repo := r.open()
	checked := 0
	for i := 0; i < 80; i++ {
		a, b := tips[rng.IntN(len(tips))], tips[rng.IntN(len(tips))]
		all := r.Git("merge-base", "--all", a, b)
		if len(all) != 40 { // several bases: git's answer is one of them
			continue
		}
		got, err := repo.MergeBase(plumbing.NewHash(a), plumbing.NewHash(b))
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != all {
			t.Fatalf("MergeBase(%s, %s) = %s, git merge-base says %s", a[:7], b[:7], got, all)
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("only %d pairs had one merge base", checked)
	}
}
