package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
)

// revertLoop is a run of three iterations, and lore's commits made while
// the second ran, in a repository C git checks.
type revertLoop struct {
	r            *loretest.Repo
	s            *mdstore.Store
	kept, edited entry.Memory   // memories from before the run: one the second iteration edits, one it deletes
	gone, during entry.Memory   // the one it deletes; one its agent adds
	retired      entry.Learning // from before the run, rejected during the second iteration
}

func newRevertLoop(t *testing.T) *revertLoop {
	t.Helper()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n", entry.MemoriesPath: entry.MemoriesTemplate})
	s, err := mdstore.Open(r.Dir, storeOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	l := &revertLoop{r: r, s: s}
	add := func(content string) entry.Memory {
		m, _, err := s.AddMemory(mdstore.NewMemory{Type: entry.Fix, Content: content, Tags: []string{"t"}})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	l.kept = add("kept as it is")
	l.edited = add("edited during the second iteration")
	l.gone = add("deleted during the second iteration")
	l.retired, _, _, err = s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"old"}, Body: "Rejected while the second iteration ran, active again after its revert."})
	if err != nil {
		t.Fatal(err)
	}
	cite := cites.Cite{File: "README.md", Blob: strings.Repeat("a", 40), Commit: strings.Repeat("b", 40)}
	ingest := func(n int, output string) {
		t.Helper()
		in := mdstore.IngestInput{RunID: "run-revert", Iteration: n, Output: output,
			CitesOf: func(text string) []cites.Cite {
				if strings.Contains(text, "README") {
					return []cites.Cite{cite}
				}
				return nil
			}}
		if _, _, err := s.Ingest(in); err != nil {
			t.Fatal(err)
		}
	}
	ingest(1, `<knowledge tags="a" title="First knowledge">Written by the first iteration.</knowledge>
<task-done>t-1</task-done>`)
	// The second iteration's agent runs lore itself.
	l.during = add("added during the second iteration")
	content := "edited by the second iteration"
	if _, _, err := Edit(s, l.edited.ID, Change{Content: &content}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.DeleteMemory(l.gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SetStatus(s, l.retired.ID, "rejected", "wrong"); err != nil {
		t.Fatal(err)
	}
	ingest(2, `<knowledge tags="b" title="Second knowledge">Written by the second iteration; see README.</knowledge>
<learning category="pitfall" tags="x">The second iteration learned that revert works per entry.</learning>
<task-done>t-2</task-done>`)
	// A commit by hand between, of another file; then a third iteration
	// that writes other entries.
	r.Commit("by hand", map[string]string{"README.md": "# p, changed\n"})
	ingest(3, `<knowledge tags="c" title="Third knowledge">Written by the third iteration.</knowledge>
<task-done>t-3</task-done>`)
	return l
}

func (l *revertLoop) commits(t *testing.T) int {
	n, err := strconv.Atoi(strings.TrimSpace(l.r.Git("rev-list", "--count", "HEAD")))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestRevertUndoesOneIterationEntryByEntry(t *testing.T) {
	t.Parallel()
	l := newRevertLoop(t)
	before := l.commits(t)
	head := l.r.Git("rev-parse", "HEAD")
	plan, err := PlanRevert(l.s, "run-revert/2")
	if err != nil {
		t.Fatal(err)
	}
	// The plan changes nothing.
	if l.r.Git("rev-parse", "HEAD") != head || l.r.Git("status", "--porcelain") != "" {
		t.Fatal("planning changed the repository")
	}
	got := map[string]string{}
	for _, e := range plan.Entries {
		got[e.Name()] = e.Action
	}
	want := map[string]string{
		l.during.ID:                  "removed",
		l.edited.ID:                  "put back",
		l.gone.ID:                    "restored",
		"knowledge second-knowledge": "removed",
		"learning " + l.retired.ID:   "put back",
		"the citations of knowledge/second-knowledge.md": "removed",
	}
	for name, action := range want {
		if got[name] != action {
			t.Errorf("%s: %q, want %q (plan %+v)", name, got[name], action, plan.Entries)
		}
	}
	learnings := 0
	for _, e := range plan.Entries {
		if e.Kind == entry.KindLearning && e.ID != l.retired.ID && e.Action == "removed" {
			learnings++
		}
	}
	if learnings != 1 || len(plan.Entries) != len(want)+1 {
		t.Errorf("plan: %+v", plan.Entries)
	}
	// Five commits: the four lore made while the iteration ran, and its ingest.
	if len(plan.Commits) != 5 || !strings.HasPrefix(plan.Commits[4].Subject, "lore: ingest run-revert/0002") {
		t.Fatalf("commits: %+v", plan.Commits)
	}
	if _, err := plan.Apply(l.s); err != nil {
		t.Fatal(err)
	}

	// What C git sees: one commit more, nothing left over, a sound repository.
	if after := l.commits(t); after != before+1 {
		t.Errorf("%d commits, then %d", before, after)
	}
	if st := l.r.Git("status", "--porcelain"); st != "" {
		t.Errorf("git status: %s", st)
	}
	l.r.Git("fsck", "--strict", "--no-progress")
	msg := l.r.Git("log", "-1", "--format=%B")
	if !strings.HasPrefix(msg, "lore: revert run-revert/0002\n") || !strings.Contains(msg, "Lore-Kind: revert\n") ||
		!strings.Contains(msg, "Run-Id: run-revert\n") || !strings.Contains(msg, "Iteration: 2\n") || strings.Count(msg, "\nReverts: ") != 5 {
		t.Errorf("message:\n%s", msg)
	}
	for _, c := range plan.Commits {
		if !strings.Contains(msg+"\n", "Reverts: "+c.Commit+"\n") {
			t.Errorf("no Reverts trailer for %s", c.Commit)
		}
	}

	// The entries, as git's HEAD has them.
	mem := l.r.Git("show", "HEAD:"+entry.MemoriesPath)
	for _, m := range []entry.Memory{l.kept, l.edited, l.gone} {
		if !strings.Contains(mem, entry.FormatMemory(m)) {
			t.Errorf("memory %s is not as it was:\n%s", m.ID, mem)
		}
	}
	if strings.Contains(mem, l.during.ID) {
		t.Errorf("the memory added during the iteration is still there")
	}
	files := l.r.Git("ls-tree", "-r", "--name-only", "HEAD", ".agent")
	for _, p := range []string{"knowledge/first-knowledge.md", "knowledge/third-knowledge.md"} {
		if !strings.Contains(files, p) {
			t.Errorf("%s is gone:\n%s", p, files)
		}
	}
	if strings.Contains(files, "second-knowledge") || strings.Count(files, "learnings/") != 1 {
		t.Errorf("the iteration's entries are still there:\n%s", files)
	}
	if c := l.r.Git("show", "HEAD:"+cites.Path); strings.Contains(c, "second-knowledge") {
		t.Errorf("its citations are still there:\n%s", c)
	}
	if lf := l.r.Git("show", "HEAD:"+l.retired.Path); lf != strings.TrimSpace(string(entry.RenderLearning(l.retired))) {
		t.Errorf("the learning rejected during the iteration is not as it was:\n%s", lf)
	}
	je, err := l.s.JournalEntry("run-revert/2")
	if err != nil || je.RevertedAt == "" || je.Outcome != "done" {
		t.Fatalf("the journal entry: %+v %v", je, err)
	}
	if data, err := os.ReadFile(filepath.Join(l.r.Dir, je.Path)); err != nil || !strings.Contains(string(data), "reverted_at: \""+je.RevertedAt+"\"") {
		t.Errorf("%s: %s %v", je.Path, data, err)
	}

	// Twice is refused, changing nothing.
	_, err = PlanRevert(l.s, "run-revert/0002")
	if !errors.Is(err, ErrAlreadyReverted) || !strings.Contains(err.Error(), "lore revert "+je.Key()+": the iteration was already reverted, at "+je.RevertedAt) {
		t.Errorf("a second revert: %v", err)
	}
}

// TestRevertIsRefusedWhenALaterCommitChangedAnEntry: the first
// iteration's knowledge entry, and a memory, changed after it.
func TestRevertIsRefusedWhenALaterCommitChangedAnEntry(t *testing.T) {
	t.Parallel()
	l := newRevertLoop(t)
	// The fourth iteration updates the third's knowledge entry.
	if _, _, err := l.s.Ingest(mdstore.IngestInput{RunID: "run-revert", Iteration: 4, Output: `<knowledge tags="c" title="Third knowledge">Updated by the fourth iteration.</knowledge>
<task-done>t-4</task-done>`}); err != nil {
		t.Fatal(err)
	}
	head := l.r.Git("rev-parse", "HEAD")
	_, err := PlanRevert(l.s, "run-revert/3")
	var conflict *RevertConflictError
	if !errors.As(err, &conflict) || conflict.Entry != "knowledge third-knowledge" || !strings.HasPrefix(conflict.Subject, "lore: ingest run-revert/0004") {
		t.Fatalf("revert of an iteration a later one built on: %v", err)
	}
	if !strings.Contains(err.Error(), "lore revert run-revert/0003-") || !strings.Contains(err.Error(), " was changed after the iteration by "+conflict.Commit[:7]+" \"lore: ingest") {
		t.Errorf("message: %v", err)
	}
	if l.r.Git("rev-parse", "HEAD") != head || l.r.Git("status", "--porcelain") != "" {
		t.Error("a refused revert changed the repository")
	}
	// A memory the second iteration added, edited by hand afterwards.
	mem := l.r.Read(entry.MemoriesPath)
	l.r.Commit("edit by hand", map[string]string{entry.MemoriesPath: strings.Replace(mem, "added during the second iteration", "added during the second iteration, edited by hand", 1)})
	head = l.r.Git("rev-parse", "HEAD")
	_, err = PlanRevert(l.s, "run-revert/2")
	if !errors.As(err, &conflict) || conflict.Entry != l.during.ID || conflict.Subject != "edit by hand" {
		t.Fatalf("revert of an iteration whose memory was edited by hand: %v", err)
	}
	if l.r.Git("rev-parse", "HEAD") != head || l.r.Git("status", "--porcelain") != "" {
		t.Error("a refused revert changed the repository")
	}
	// The first iteration: only its ingest commit; its knowledge entry is
	// no other iteration's, so it reverts.
	plan, err := PlanRevert(l.s, "run-revert/1")
	if err != nil || len(plan.Commits) != 1 || len(plan.Entries) != 1 || plan.Entries[0].Name() != "knowledge first-knowledge" {
		t.Fatalf("the first iteration: %+v %v", plan, err)
	}
}

func TestRevertOfAnUnknownIterationSaysSo(t *testing.T) {
	t.Parallel()
	l := newRevertLoop(t)
	_, err := PlanRevert(l.s, "run-revert/9")
	var missing *entry.NotFoundError
	if !errors.As(err, &missing) {
		t.Fatalf("an iteration that is not there: %v", err)
	}
}
