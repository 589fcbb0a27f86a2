package mdstore

import (
	"math/rand"
	"os"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// TestAStaleIndexIsNeitherMissedNorCarriedForward: a git stash that held
// the index across two of lore's commits writes it back two versions
// behind. lore sees it as stale (not a person's staged change), and the
// next lore write leaves the committed version in the index rather than
// the stale one plus its own memory — a version no commit ever had,
// which a plain git commit would then take for the person's and commit,
// dropping the two memories. Found by four lore add loops beside git
// stash; git stash pop; git add; git commit: 9 of 1,657 memories lost.
func TestAStaleIndexIsNeitherMissedNorCarriedForward(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", entry.MemoriesPath: entry.MemoriesTemplate})
	opts := testOptions(t.TempDir())
	opts.Random = rand.New(rand.NewSource(36))
	s, _ := Open(r.Dir, opts)
	add := func(content string) entry.Memory {
		t.Helper()
		m, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: content})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := add("The upload test needs the S3 fake")
	held, err := os.ReadFile(r.Path(".git/index"))
	if err != nil {
		t.Fatal(err)
	}
	second := add("Run the migrations before the seeds")
	third := add("Keep the fixtures small")
	secondCommit := r.Git("log", "--format=%H", "--grep", second.ID, "-1")
	if err := os.WriteFile(r.Path(".git/index"), held, 0o644); err != nil {
		t.Fatal(err)
	}

	stale, err := s.StaleStaged()
	if err != nil || len(stale) != 1 || stale[0].Path != entry.MemoriesPath || stale[0].Commit != secondCommit {
		t.Fatalf("stale = %+v, %v; want memories.md behind %s", stale, err, secondCommit)
	}
	fourth := add("Pin the linter version")
	if got := r.Git("status", "--porcelain", ".agent"); got != "" {
		t.Fatalf("after lore's write, git status says\n%s", got)
	}

	// The person's plain commit (no hook) keeps every memory.
	r.Write("u.txt", "u\n")
	r.Git("add", "u.txt")
	r.Git("commit", "-q", "-m", "u")
	committed := r.Git("show", "HEAD:.agent/memories.md")
	for _, m := range []entry.Memory{first, second, third, fourth} {
		if !strings.Contains(committed, m.ID) {
			t.Errorf("HEAD lost %s (%s)", m.ID, m.Content)
		}
	}

	// A person's staged deletion is theirs, and lore's write keeps it
	// staged: the worktree holds it too.
	edited := strings.Replace(r.Read(entry.MemoriesPath), "### "+first.ID+"\n", "### gone\n", 1)
	r.Write(entry.MemoriesPath, edited)
	r.Git("add", entry.MemoriesPath)
	fifth := add("Deploys go out on Tuesdays")
	staged := r.Git("show", ":"+entry.MemoriesPath)
	if strings.Contains(staged, "### "+first.ID) || !strings.Contains(staged, fifth.ID) {
		t.Fatalf("the person's staged edit was not kept under lore's memory:\n%s", staged)
	}
	r.AssertHealthy()
}
