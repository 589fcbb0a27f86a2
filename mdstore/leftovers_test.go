package mdstore

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// TestDecisionsIgnoreWhatAFailedWriteLeftOnDisk: a write that failed (or
// was killed) after writing the files on disk left them there, not
// committed. The retry decides from the commit it builds on, so it does
// the work instead of answering from the leftovers ("Knowledge
// unchanged", "already says this", a skipped iteration, "Memory not
// found") and committing nothing.
func TestDecisionsIgnoreWhatAFailedWriteLeftOnDisk(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	s, err := Open(r.Dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Init(false); err != nil {
		t.Fatal(err)
	}
	m, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "restart docker", Tags: []string{"docker"}})
	if err != nil {
		t.Fatal(err)
	}
	first, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "run-1", Outcome: "done"})
	if err != nil || first.Iteration != 1 {
		t.Fatalf("%+v %v", first, err)
	}
	commits := func() string { return r.Git("rev-list", "--count", "HEAD") }

	// What the failed attempts left on disk.
	k := entry.Knowledge{Slug: "cargo-bench", Title: "Cargo bench", Tags: []string{"cargo"}, Body: "Needs nightly.", CreatedAt: "2027-01-15T10:00:00Z", Path: entry.KnowledgePath("cargo-bench")}
	r.Write(k.Path, string(entry.RenderKnowledge(k)))
	l := entry.Learning{ID: "l-abcdef", Category: "pitfall", Tags: []string{"sqlite"}, Status: "active", Body: "Foreign keys are off by default in SQLite.", CreatedAt: "2027-01-15T10:00:00Z", Path: entry.LearningPath("l-abcdef")}
	r.Write(l.Path, string(entry.RenderLearning(l)))
	r.Write(entry.JournalPath("run-1", 2, ""), string(entry.RenderJournal(entry.JournalEntry{RunID: "run-1", Iteration: 2, Outcome: "failed", FilesModified: []string{}, CreatedAt: "2027-01-15T10:00:00Z"})))
	memories, _ := entry.RemoveMemory([]byte(r.Read(entry.MemoriesPath)), m.ID)
	r.Write(entry.MemoriesPath, string(memories))

	before := commits()
	gotK, action, res, err := s.AddKnowledge(entry.NewKnowledge{Title: k.Title, Tags: k.Tags, Body: k.Body})
	if err != nil || action != entry.KnowledgeCreated || res.Commit == "" {
		t.Errorf("knowledge: %s %+v %v (the leftover was taken for the entry)", action, res, err)
	} else if got := r.Git("show", "HEAD:"+gotK.Path); !strings.Contains(got, `title: "Cargo bench"`) {
		t.Errorf("HEAD:%s:\n%s", gotK.Path, got)
	}
	gotL, dup, res, err := s.AddLearning(entry.NewLearning{Category: l.Category, Tags: l.Tags, Body: l.Body})
	if err != nil || dup || res.Commit == "" || gotL.ID == l.ID {
		t.Errorf("learning: %+v duplicate=%v %+v %v", gotL, dup, res, err)
	}
	je, replaced, res, err := s.AddJournal(entry.JournalEntry{RunID: "run-1", Outcome: "done"})
	if err != nil || je.Iteration != 2 || replaced || res.Commit == "" {
		t.Errorf("journal: iteration %d, replaced %v, %+v %v", je.Iteration, replaced, res, err)
	}
	if _, res, err := s.DeleteMemory(m.ID); err != nil || res.Commit == "" {
		t.Errorf("delete: %+v %v", res, err)
	} else if strings.Contains(r.Git("show", "HEAD:"+entry.MemoriesPath), m.ID) {
		t.Errorf("%s is still in HEAD", m.ID)
	}
	if got, _ := strconv.Atoi(commits()); strconv.Itoa(got-4) != before {
		t.Errorf("%d commits, want 4 more than %s", got, before)
	}
	r.AssertHealthy()
}

// TestIngestOnAFullDiskLeavesTheWorktreeAsItWas: the learning, the last
// file of an ingest, does not fit on its file system. The journal entry
// and the knowledge entry written before it are taken back, git status is
// what it was, and the same ingest once there is room commits it all.
func TestIngestOnAFullDiskLeavesTheWorktreeAsItWas(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", entry.MemoriesPath: entry.MemoriesTemplate})
	learnings := r.Path(entry.LearningsDir)
	if err := os.MkdirAll(learnings, 0o755); err != nil {
		t.Fatal(err)
	}
	loretest.MountTmpfs(t, learnings, "16k")
	filler := filepath.Join(learnings, "filler")
	if err := os.WriteFile(filler, make([]byte, 16<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	before := r.Git("status", "--porcelain", "--untracked-files=all")
	s, err := Open(r.Dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	in := IngestInput{RunID: "run-1", TaskID: "t-1", Output: `<task-done>t-1</task-done>
<journal>Did the thing.</journal>
<knowledge tags="cargo" title="Cargo bench">Needs nightly.</knowledge>
<learning category="pitfall" tags="sqlite">` + strings.Repeat("Foreign keys are off by default. ", 200) + `</learning>`}
	if _, _, err := s.Ingest(in); err == nil || !strings.Contains(err.Error(), "no space left on device") {
		t.Fatalf("err = %v", err)
	}
	if got := r.Git("status", "--porcelain", "--untracked-files=all"); got != before {
		t.Fatalf("status after the failure:\n%s\nbefore:\n%s", got, before)
	}
	if _, err := os.Stat(r.Path(".git/lore/pending")); !os.IsNotExist(err) {
		t.Errorf("pending directory left: %v", err)
	}
	os.Remove(filler)
	out, res, err := s.Ingest(in)
	if err != nil || res.Commit == "" || out.Journal.Iteration != 1 || len(out.Learnings) != 1 || out.Learnings[0].Action != "created" {
		t.Fatalf("retry: %+v %+v %v", out, res, err)
	}
	if got := r.Git("show", "--name-only", "--format=", "HEAD"); strings.Count(got, "\n") != 2 {
		t.Fatalf("the ingest committed:\n%s", got)
	}
	r.AssertClean()
}
