package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/mdstore"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

func TestLearningStatusAndSupersede(t *testing.T) {
	t.Parallel()
	dir, git := storeRepo(t)
	s, _ := mdstore.Open(dir, storeOptions(t))
	add := func(body string) entry.Learning {
		t.Helper()
		l, dup, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"sqlite"}, Body: body})
		if err != nil || dup {
			t.Fatalf("%v %v", dup, err)
		}
		return l
	}
	old := add("Enable PRAGMA foreign_keys at connection time.")
	newer := add("Every connection needs PRAGMA foreign_keys = ON; the pool opens new ones.")

	// A hand-written comment in the file survives a change of status.
	p := filepath.Join(dir, filepath.FromSlash(old.Path))
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "category:", "# checked on 2027-01-14\ncategory:", 1)), 0o644)
	git("commit", "-qam", "a note by hand")

	l, res, err := SetStatus(s, old.ID, "rejected", "  the pool sets it for us  ")
	if err != nil || res == nil || res.Commit == "" || l.Status != "rejected" || l.StatusReason != "the pool sets it for us" {
		t.Fatalf("%+v %+v %v", l, res, err)
	}
	if got := git("log", "-1", "--format=%s%n%b"); !strings.HasPrefix(got, "lore: learning "+old.ID+" active -> rejected\nthe pool sets it for us") {
		t.Fatalf("commit message:\n%s", got)
	}
	var changed []string
	diff := git("diff", "--unified=0", "HEAD~1", "HEAD", "--", old.Path)
	for _, line := range strings.Split(diff, "\n") {
		if (strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-")) && !strings.HasPrefix(line, "+++") && !strings.HasPrefix(line, "---") {
			changed = append(changed, line)
		}
	}
	if got := strings.Join(changed, "\n"); got != "-status: active\n+status: rejected\n+status_reason: \"the pool sets it for us\"" {
		t.Fatalf("the commit changes more than the status:\n%s", diff)
	}
	if got, _ := s.Learning(old.ID); got.Status != "rejected" || got.StatusReason != "the pool sets it for us" || got.Shown() {
		t.Fatalf("read back: %+v", got)
	}
	if data, _ := os.ReadFile(p); !strings.Contains(string(data), "# checked on 2027-01-14\n") {
		t.Fatalf("the comment by hand is gone:\n%s", data)
	}
	// The same status and reason again: nothing to commit.
	head := git("rev-parse", "HEAD")
	if _, res, err := SetStatus(s, old.ID, "rejected", "the pool sets it for us"); err != nil || res != nil || git("rev-parse", "HEAD") != head {
		t.Fatalf("an unchanged status made a commit: %+v %v", res, err)
	}
	// Back to active, without a reason: the reason goes.
	if l, _, err := SetStatus(s, old.ID, "active", ""); err != nil || l.StatusReason != "" || !l.Shown() {
		t.Fatalf("%+v %v", l, err)
	}
	if data, _ := os.ReadFile(p); strings.Contains(string(data), "status_reason") {
		t.Fatalf("the reason stayed:\n%s", data)
	}

	// Refusals change nothing.
	head = git("rev-parse", "HEAD")
	var ie *entry.InputError
	if _, _, err := SetStatus(s, old.ID, "archived", ""); !errors.As(err, &ie) {
		t.Errorf("an unknown status: %v", err)
	}
	if _, _, err := SetStatus(s, old.ID, "rejected", "the CI token is ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o"); err == nil || !strings.Contains(err.Error(), "reason") {
		t.Errorf("a secret in the reason: %v", err)
	}
	if _, _, err := SetStatus(s, "l-ffffff", "rejected", ""); !errors.Is(err, entry.ErrNotFound) {
		t.Errorf("a missing learning: %v", err)
	}
	if _, _, err := Supersede(s, old.ID, old.ID); !errors.As(err, &ie) {
		t.Errorf("superseded by itself: %v", err)
	}
	if _, _, err := Supersede(s, old.ID, "l-ffffff"); !errors.Is(err, entry.ErrNotFound) {
		t.Errorf("superseded by a missing learning: %v", err)
	}
	if git("rev-parse", "HEAD") != head || git("status", "--porcelain") != "" {
		t.Fatal("a refused change changed the repository")
	}

	// Superseded: no longer shown, its status kept.
	l, res, err = Supersede(s, old.ID, newer.ID)
	if err != nil || res.Commit == "" || l.SupersededBy != newer.ID || l.Status != "active" || l.Shown() {
		t.Fatalf("%+v %+v %v", l, res, err)
	}
	if got := git("log", "-1", "--format=%s%n%(trailers:key=Lore-Superseded-By,valueonly)"); got != "lore: learning "+old.ID+" superseded by "+newer.ID+"\n"+newer.ID {
		t.Fatalf("commit message:\n%s", got)
	}
	// A learning that is not shown cannot supersede another.
	third := add("Foreign keys are off by default in SQLite, per connection.")
	if _, _, err := Supersede(s, third.ID, old.ID); !errors.As(err, &ie) || !strings.Contains(err.Error(), old.ID+" is itself superseded by "+newer.ID) {
		t.Errorf("superseded by a superseded learning: %v", err)
	}
	if _, _, err := s.DeleteLearning(newer.ID); err != nil {
		t.Fatal(err)
	}
	// Deleting the newer one clears the link to it, in the same commit
	// (seed 002: ON DELETE SET NULL); a link left dangling by hand is a
	// validation error.
	if got, _ := s.Learning(old.ID); got.SupersededBy != "" || got.Shown() != true {
		t.Fatalf("after the newer one was deleted: %+v", got)
	}
	if got := git("show", "--stat", "--format=%s", "HEAD"); !strings.Contains(got, old.ID+".md") || !strings.Contains(got, newer.ID+".md") {
		t.Fatalf("the delete did not clear the link in its commit:\n%s", got)
	}
	data, _ = os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), "status: active\n", "status: active\nsuperseded_by: l-fedcba\n", 1)), 0o644)
	files, err := s.ValidationFiles(false)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, pr := range entry.Validate(files, config.Validate) {
		found = found || pr.Path == old.Path && pr.Severity == entry.SeverityError && strings.Contains(pr.Message, "l-fedcba")
	}
	if !found {
		t.Fatalf("no error about the dangling superseded_by: %+v", entry.Validate(files, config.Validate))
	}
	git("checkout", "--", old.Path)
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

// A store in a subdirectory of the repository: its learnings are found
// under the store's paths (the transaction adds the prefix once).
func TestLearningStatusInASubdirectory(t *testing.T) {
	dir, git := storeRepo(t)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	s, err := mdstore.Open(sub, storeOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	l, _, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"io"}, Body: "Always close the files you open."})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := SetStatus(s, l.ID, "rejected", ""); err != nil {
		t.Fatal(err)
	}
	if got := git("show", "HEAD:sub/"+l.Path); !strings.Contains(got, "status: rejected") {
		t.Fatalf("sub/%s at HEAD:\n%s", l.Path, got)
	}
}
