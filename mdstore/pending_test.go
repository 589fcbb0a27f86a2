package mdstore

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// mergeInProgress makes a repository with a store and stops a merge
// before its commit.
func mergeInProgress(t *testing.T) *loretest.Repo {
	t.Helper()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", entry.MemoriesPath: entry.MemoriesTemplate})
	r.Git("checkout", "-q", "-b", "side")
	r.Commit("side", map[string]string{"side.txt": "side\n"})
	r.Git("checkout", "-q", "main")
	r.Commit("main", map[string]string{"main.txt": "main\n"})
	r.Git("merge", "-q", "--no-commit", "--no-ff", "side")
	return r
}

func TestQueuedDuringAMergeCommittedAfterIt(t *testing.T) {
	t.Parallel()
	r := mergeInProgress(t)
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	status := r.Git("status", "--porcelain")
	m, res, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "queued", Tags: []string{"q"}})
	if err != nil || res.Mode != "queued" || res.Commit != "" || res.Queued != "a merge is in progress; lore commits it when the merge is over" {
		t.Fatalf("%+v %v", res, err)
	}
	if r.Git("status", "--porcelain") != status || strings.Contains(r.Read(entry.MemoriesPath), m.ID) {
		t.Fatal("lore touched the worktree or the index during the merge")
	}
	// The queue is seen by the next command, which cannot commit it yet.
	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	if p := s.Pending(); p.Queued != 1 || p.Operation != "a merge" {
		t.Fatalf("pending = %+v", p)
	}
	if f, err := s.Flush(true); err != nil || len(f.Committed) != 0 || f.Left != 1 || f.Operation != "a merge" {
		t.Fatalf("flush during the merge: %+v %v", f, err)
	}
	r.Git("commit", "-q", "--no-edit")
	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	f, err := s.Flush(false)
	if err != nil || len(f.Committed) != 1 || f.Committed[0] != "lore: add fix "+m.ID || f.Left != 0 {
		t.Fatalf("flush: %+v %v", f, err)
	}
	if got := r.Git("log", "-1", "--format=%s%n%b"); !strings.Contains(got, "lore: add fix "+m.ID) || !strings.Contains(got, "Lore-Id: "+m.ID) {
		t.Fatalf("commit:\n%s", got)
	}
	r.AssertClean()
	if _, err := os.Stat(r.Path(".git/lore/pending")); !os.IsNotExist(err) {
		t.Fatalf("pending directory left: %v", err)
	}
}

// TestQueuedChangeHEADHoldsIsDropped: a queued change that is in HEAD
// already (a flush killed after its commit, before it removed the file)
// commits nothing.
func TestQueuedChangeHEADHoldsIsDropped(t *testing.T) {
	t.Parallel()
	r := mergeInProgress(t)
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	m, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "queued", Tags: []string{"q"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Git("commit", "-q", "--no-edit")
	r.Write(entry.MemoriesPath, string(entry.InsertMemory([]byte(entry.MemoriesTemplate), m)))
	r.Git("commit", "-q", "-am", "the same memory, committed by hand")
	head := r.Git("rev-parse", "HEAD")
	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	f, err := s.Flush(true)
	if err != nil || f.Dropped != 1 || len(f.Committed) != 0 {
		t.Fatalf("flush: %+v %v", f, err)
	}
	if r.Git("rev-parse", "HEAD") != head {
		t.Fatal("a commit was made")
	}
	r.AssertClean()
}

// TestAWriteWaitsBehindTheQueue: a queued change that cannot be committed
// (its file has a conflict left by git stash pop) holds back the next
// write too, which is queued behind it; once the conflict is resolved the
// two are committed in order.
func TestAWriteWaitsBehindTheQueue(t *testing.T) {
	t.Parallel()
	r := mergeInProgress(t)
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	first, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "first", Tags: []string{"q"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Git("commit", "-q", "--no-edit")
	r.Write(entry.MemoriesPath, entry.MemoriesTemplate+"stashed\n")
	r.Git("stash", "-q")
	r.Write(entry.MemoriesPath, entry.MemoriesTemplate+"mine\n")
	r.Git("commit", "-q", "-am", "mine")
	if _, err := r.GitErr("stash", "pop", "-q"); err == nil {
		t.Fatal("expected a conflict")
	}

	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	second, res, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "second", Tags: []string{"q"}})
	if err != nil || res.Mode != "queued" || !strings.Contains(res.Queued, "1 earlier change is not committed yet") || !strings.Contains(res.Queued, "unresolved merge conflicts") {
		t.Fatalf("%+v %v", res, err)
	}
	if p := s.Pending(); p.Queued != 2 {
		t.Fatalf("pending = %+v", p)
	}
	r.Write(entry.MemoriesPath, entry.MemoriesTemplate+"mine\n")
	r.Git("add", entry.MemoriesPath)
	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	f, err := s.Flush(true)
	if err != nil || len(f.Committed) != 2 {
		t.Fatalf("flush: %+v %v", f, err)
	}
	if got := r.Git("log", "--format=%s", "-2"); got != "lore: add fix "+second.ID+"\nlore: add fix "+first.ID {
		t.Fatalf("log:\n%s", got)
	}
	if got := r.Git("show", "HEAD:"+entry.MemoriesPath); !strings.Contains(got, "### "+first.ID) || !strings.Contains(got, "### "+second.ID) || !strings.HasSuffix(got, "mine") {
		t.Fatalf("HEAD:\n%s", got)
	}
}

// TestQueuedJournalEntriesNumberOnFromTheQueue: two iterations recorded
// during an operation get 1 and 2, not 1 twice: the queue is part of what
// a change decides from.
func TestQueuedJournalEntriesNumberOnFromTheQueue(t *testing.T) {
	t.Parallel()
	r := mergeInProgress(t)
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	var keys []string
	for range 2 {
		e, _, res, err := s.AddJournal(entry.JournalEntry{RunID: "run-1", Outcome: "done"})
		if err != nil || res.Mode != "queued" {
			t.Fatalf("%+v %v", res, err)
		}
		keys = append(keys, e.Key()[:len("run-1/0001")])
	}
	if strings.Join(keys, " ") != "run-1/0001 run-1/0002" {
		t.Fatalf("keys: %v", keys)
	}
}

// TestUnsignedChangesWaitForTheSigner: with commit.gpgSign and a signer
// that fails, a write is queued, not staged, and says why; the next write
// waits behind it; once signing works both are committed, signed, in
// order.
func TestUnsignedChangesWaitForTheSigner(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", entry.MemoriesPath: entry.MemoriesTemplate})
	r.SigningKey()
	r.Git("config", "gpg.program", "false")
	opts := testOptions(t.TempDir())
	opts.Getenv = r.Getenv // GNUPGHOME
	s, _ := Open(r.Dir, opts)
	first, res, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "first", Tags: []string{"q"}})
	if err != nil || res.Mode != "queued" || !strings.Contains(res.Queued, "commit.gpgSign is set and lore could not sign the commit (git commit-tree -S: error: gpg failed to sign the data") {
		t.Fatalf("%+v %v", res, err)
	}
	s, _ = Open(r.Dir, opts)
	second, res, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "second", Tags: []string{"q"}})
	if err != nil || res.Mode != "queued" || !strings.Contains(res.Queued, "1 earlier change is not committed yet (lore could not sign the commit") {
		t.Fatalf("%+v %v", res, err)
	}
	if got := r.Git("status", "--porcelain", "--untracked-files=all"); got != "" {
		t.Fatalf("status: %q", got)
	}
	r.Git("config", "--unset", "gpg.program")
	s, _ = Open(r.Dir, opts)
	if f, err := s.Flush(false); err != nil || len(f.Committed) != 2 {
		t.Fatalf("flush: %+v %v", f, err)
	}
	if got := r.Git("log", "--format=%G? %s", "-2"); got != "G lore: add fix "+second.ID+"\nG lore: add fix "+first.ID {
		t.Fatalf("log:\n%s", got)
	}
	r.AssertClean()
}

// TestCommitsARacingResetTookOffAreCommittedAgain: git stash runs git
// reset --hard, which reads HEAD when it starts and moves the branch back
// there when it ends; a lore commit in between is taken off the branch,
// and the reflog says "reset: moving to HEAD". The next write commits it
// again, with its message; so does git rebase --abort. A reset the
// person asked for is left alone.
func TestCommitsARacingResetTookOffAreCommittedAgain(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", entry.MemoriesPath: entry.MemoriesTemplate})
	opts := testOptions(t.TempDir())
	opts.Random = rand.New(rand.NewSource(36))
	s, _ := Open(r.Dir, opts)
	lost, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "taken off by a racing reset", Tags: []string{"q"}})
	if err != nil {
		t.Fatal(err)
	}
	k, _, _, err := s.AddKnowledge(entry.NewKnowledge{Title: "Also lost", Tags: []string{"q"}, Body: "Then back."})
	if err != nil {
		t.Fatal(err)
	}
	// What git reset --hard does when lore committed after it read HEAD.
	r.Git("update-ref", "-m", "reset: moving to HEAD", "refs/heads/main", "HEAD~2")
	r.Git("read-tree", "-u", "--reset", "HEAD")
	if strings.Contains(r.Git("show", "HEAD:"+entry.MemoriesPath), lost.ID) {
		t.Fatal("the simulated reset did not take the commit off")
	}

	kept, res, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "after the reset", Tags: []string{"q"}})
	if err != nil || res.Commit == "" {
		t.Fatalf("%+v %v", res, err)
	}
	if !strings.Contains(strings.Join(res.Notices, "\n"), "took 2 of lore's commits off the branch") {
		t.Fatalf("notices: %q", res.Notices)
	}
	if got := r.Git("log", "--format=%s", "-3"); got != "lore: add fix "+kept.ID+"\nlore: add knowledge also-lost\nlore: add fix "+lost.ID {
		t.Fatalf("log:\n%s", got)
	}
	if got := r.Git("show", "HEAD:"+k.Path); !strings.Contains(got, "Then back.") {
		t.Fatalf("knowledge:\n%s", got)
	}
	r.AssertClean()

	// git rebase --abort puts the branch back where the rebase found it,
	// before a commit lore made as it began.
	mark := r.Git("rev-parse", "HEAD")
	aborted, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "committed as a rebase began", Tags: []string{"q"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Git("update-ref", "-m", "rebase (abort): returning to refs/heads/main", "refs/heads/main", mark)
	r.Git("read-tree", "-u", "--reset", "HEAD")
	if _, res, err = s.AddMemory(NewMemory{Type: entry.Fix, Content: "after the abort", Tags: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.Git("show", "HEAD:"+entry.MemoriesPath), aborted.ID) {
		t.Fatalf("the commit git rebase --abort took off is still off; notices %q", res.Notices)
	}
	r.AssertClean()

	// A reset the person asked for takes the commit off for good.
	r.Git("reset", "-q", "--hard", "HEAD~1")
	if _, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "after an undo", Tags: []string{"q"}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Git("show", "HEAD:"+entry.MemoriesPath), "after the abort") {
		t.Fatal("lore brought back a commit the person reset away")
	}
	r.AssertClean()
}

// TestAnUnreplayableQueuedChangeIsSetAside: a queued change lore can
// never commit (its file over the limit, its name too long) used to hold
// back every change after it for good. It is set aside, with why, where
// lore validate finds it; the changes after it are committed. A change
// held back by something that passes (a lock, a conflict) keeps its place
// (TestAWriteWaitsBehindTheQueue).
func TestAnUnreplayableQueuedChangeIsSetAside(t *testing.T) {
	t.Parallel()
	r := mergeInProgress(t)
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	after, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "queued after the bad ones"})
	if err != nil {
		t.Fatal(err)
	}
	r.Git("commit", "-q", "--no-edit")
	pending := r.Path(".git/lore/pending")
	queued, _ := filepath.Glob(filepath.Join(pending, "*.json"))
	if len(queued) != 1 {
		t.Fatalf("queued: %v", queued)
	}
	os.Rename(queued[0], filepath.Join(pending, "0000000000000003.json"))
	plant := func(name string, c pendingChange) {
		data, _ := json.Marshal(c)
		if err := os.WriteFile(filepath.Join(pending, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("0000000000000001.json", pendingChange{Version: 1, Message: "lore: add learning l-abcdef\n",
		Edits: []Edit{{Path: entry.LearningPath("l-abcdef"), Op: OpPut, Content: "---\nid: l-abcdef\n---\n\n" + strings.Repeat("word ", 400_000)}}})
	plant("0000000000000002.json", pendingChange{Version: 1, Message: "lore: import\n",
		Edits: []Edit{{Path: entry.JournalDir + "/run-1/" + strings.Repeat("a", 300) + ".md", Op: OpPut, Content: "x"}}})
	os.WriteFile(filepath.Join(pending, "0000000000000000.json"), []byte("{not json"), 0o644)

	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	f, err := s.Flush(true)
	if err != nil || len(f.Committed) != 1 || f.Committed[0] != "lore: add fix "+after.ID || f.SetAside != 2 || f.Left != 0 {
		t.Fatalf("flush: %+v %v", f, err)
	}
	if len(f.Notices) != 3 || !strings.Contains(f.Notices[1], "would be 1.9 MiB, over the 64 KiB") || !strings.Contains(f.Notices[2], "is 303 bytes, over the 230") {
		t.Fatalf("notices:\n%s", strings.Join(f.Notices, "\n"))
	}
	if got := r.Git("log", "-1", "--format=%s"); got != "lore: add fix "+after.ID {
		t.Fatalf("HEAD: %s", got)
	}
	r.AssertClean()
	aside, err := s.SetAside()
	if err != nil || len(aside) != 3 {
		t.Fatalf("%v %v", aside, err)
	}
	for i, want := range []string{"not a change lore queued", "would be 1.9 MiB", "is 303 bytes"} {
		if a := aside[i]; a.Path != r.Path(fmt.Sprintf(".git/lore/pending/failed/%016d.json", i)) || !strings.Contains(a.Why, want) {
			t.Fatalf("set aside %d: %+v", i, a)
		}
	}
	// The next write commits at once.
	s, _ = Open(r.Dir, testOptions(t.TempDir()))
	if p := s.Pending(); p != (Pending{}) {
		t.Fatalf("pending: %+v", p)
	}
	if _, res, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "next"}); err != nil || res.Commit == "" {
		t.Fatalf("%+v %v", res, err)
	}
}
