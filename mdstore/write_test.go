package mdstore

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/mdstore/entry"
)

func TestKnowledgeDedupRules(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	add := func(title, tags, body string) (entry.Knowledge, entry.KnowledgeAction) {
		t.Helper()
		k, action, _, err := s.AddKnowledge(entry.NewKnowledge{Title: title, Tags: entry.SplitTags(tags), Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return k, action
	}
	k, action := add("Cargo bench requires nightly", "testing,cargo,nightly", "Use rustup run nightly.")
	if action != entry.KnowledgeCreated || k.Slug != "cargo-bench-requires-nightly" {
		t.Fatalf("%s %s", action, k.Slug)
	}
	// 1. The same title, in another case: the body is replaced, tags merged.
	k, action = add("CARGO BENCH REQUIRES NIGHTLY", "cargo,toolchain", "Set channel = \"nightly\".")
	if action != entry.KnowledgeReplaced || k.Slug != "cargo-bench-requires-nightly" || strings.Join(k.Tags, ",") != "testing,cargo,nightly,toolchain" || k.Body != "Set channel = \"nightly\"." {
		t.Fatalf("%s %+v", action, k)
	}
	// 2. A title containing the other and >50% tag overlap: that entry is updated.
	k, action = add("Cargo bench requires nightly on CI", "cargo,nightly,ci", "CI needs it too.")
	if action != entry.KnowledgeUpdated || k.Slug != "cargo-bench-requires-nightly" || k.Title != "CARGO BENCH REQUIRES NIGHTLY" && k.Title != "Cargo bench requires nightly" {
		t.Fatalf("%s %+v", action, k)
	}
	// A substring title with little tag overlap is a new entry.
	k, action = add("Cargo bench", "benchmarks", "Different topic.")
	if action != entry.KnowledgeCreated || k.Slug != "cargo-bench" {
		t.Fatalf("%s %+v", action, k)
	}
	// The same entry again changes nothing and makes no commit.
	before := git("rev-list", "--count", "HEAD")
	_, action = add("Cargo bench", "benchmarks", "Different topic.")
	if action != entry.KnowledgeUnchanged || git("rev-list", "--count", "HEAD") != before {
		t.Fatalf("%s: a commit was made", action)
	}
	// A different title with the same slug gets a suffix.
	k, action = add("Cargo: bench!", "other", "Same slug, other entry.")
	if action != entry.KnowledgeCreated || k.Slug != "cargo-bench-2" {
		t.Fatalf("%s %+v", action, k)
	}
	ks, warnings, _ := s.Knowledge()
	if len(ks) != 3 || len(warnings) != 0 {
		t.Fatalf("%d entries, warnings %v", len(ks), warnings)
	}
	if got := git("log", "--format=%s", "-5"); got != "lore: add knowledge cargo-bench-2\nlore: add knowledge cargo-bench\nlore: update knowledge cargo-bench-requires-nightly\nlore: update knowledge cargo-bench-requires-nightly\nlore: add knowledge cargo-bench-requires-nightly" {
		t.Fatalf("log:\n%s", got)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

func TestLearningsNearDuplicateAndUnknownCategory(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	l, dup, res, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"SQLite", "foreign keys"}, Task: "t-abc123",
		Body: "Enable PRAGMA foreign_keys = ON at connection time, or the constraints are silently ignored."})
	if err != nil || dup || !entry.ValidLearningID(l.ID) || res.Commit == "" || strings.Join(l.Tags, ",") != "sqlite,foreign keys" {
		t.Fatalf("%+v %v %v", l, dup, err)
	}
	// Same category, nearly the same words: not added, the existing id is reported.
	again, dup, res, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"sqlite"},
		Body: "Enable PRAGMA foreign_keys = ON at connection time, or foreign key constraints are silently ignored."})
	if err != nil || !dup || again.ID != l.ID || res.Commit != "" {
		t.Fatalf("%+v %v %+v %v", again, dup, res, err)
	}
	// The same words in another category are a different learning.
	if _, dup, _, err := s.AddLearning(entry.NewLearning{Category: "tool_usage", Tags: []string{"sqlite"}, Body: l.Body}); err != nil || dup {
		t.Fatalf("%v %v", dup, err)
	}
	// Unknown categories are kept as written.
	other, _, _, err := s.AddLearning(entry.NewLearning{Category: "deployment_gotcha", Tags: []string{"deploy"}, Body: "Staging needs the VPN."})
	if err != nil || other.Category != "deployment_gotcha" {
		t.Fatalf("%+v %v", other, err)
	}
	got, err := s.Learning(other.ID)
	if err != nil || got.Category != "deployment_gotcha" || got.Status != "active" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, _, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Body: "no tags"}); err == nil {
		t.Fatal("a learning without tags was accepted")
	}
	if n := git("rev-list", "--count", "HEAD"); n != "4" {
		t.Fatalf("%s commits", n)
	}
}

func TestDeleteEntries(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	k, _, _, _ := s.AddKnowledge(entry.NewKnowledge{Title: "T", Tags: []string{"a"}, Body: "b"})
	l, _, _, _ := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"a"}, Body: "b"})
	if _, _, err := s.DeleteKnowledge(k.Slug); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.DeleteLearning(l.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.DeleteLearning(l.ID); !errors.Is(err, entry.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if got := git("log", "--format=%s", "-2"); got != "lore: delete learning "+l.ID+"\nlore: delete knowledge t" {
		t.Fatalf("log:\n%s", got)
	}
	if got := git("ls-files", ".agent"); got != "" {
		t.Fatalf("files left: %s", got)
	}
}

// A duration or cost that is not a finite number of 0 or more is refused
// (NaN compares false with everything, so "< 0" let it through).
func TestJournalRefusesNaNAndInfinities(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, err := Open(dir, testOptions(dir))
	if err != nil {
		t.Fatal(err)
	}
	head := git("rev-parse", "HEAD")
	for _, e := range []entry.JournalEntry{
		{RunID: "r1", Outcome: "done", DurationSecs: math.NaN()},
		{RunID: "r1", Outcome: "done", CostUSD: math.Inf(1)},
		{RunID: "r1", Outcome: "done", DurationSecs: math.Inf(-1)},
		{RunID: "r1", Outcome: "done", CostUSD: -0.5},
	} {
		var ie *entry.InputError
		if _, _, _, err := s.AddJournal(e); !errors.As(err, &ie) {
			t.Errorf("%+v: %v, want an input error", e, err)
		}
	}
	if git("rev-parse", "HEAD") != head || git("status", "--porcelain") != "" {
		t.Error("a refused entry changed the repository")
	}
}

// A tag from a command is one line of printable text: control characters
// are refused, runs of spaces become one.
func TestInputTags(t *testing.T) {
	t.Parallel()
	got, err := entry.InputTags([]string{" Foreign   Keys ", "db\u00a0layer", "db"})
	if err != nil || strings.Join(got, "|") != "foreign keys|db layer|db" {
		t.Errorf("got %q, %v", got, err)
	}
	for _, bad := range []string{"tab\tinside", "esc\x1b[31m", "bell\a", "line\nbreak", ""} {
		var ie *entry.InputError
		if _, err := entry.InputTags([]string{"ok", bad}); !errors.As(err, &ie) {
			t.Errorf("%q accepted", bad)
		}
	}
}

// A new entry's slug is free of every file that holds the name: an entry
// committed, a file on disk only, one that does not parse, a link — the
// slug is looked up, not listed, and a name that does not read still
// counts.
func TestKnowledgeSlugAvoidsEveryTakenName(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	n := 0
	add := func(title string) string {
		t.Helper()
		n++ // tags shared with no other entry: each title is a new entry
		k, action, _, err := s.AddKnowledge(entry.NewKnowledge{Title: title, Tags: []string{fmt.Sprintf("t%d", n)}, Body: "About " + title + "."})
		if err != nil || action != entry.KnowledgeCreated {
			t.Fatalf("%s: %s %v", title, action, err)
		}
		return k.Slug
	}
	add("Alpha")
	knowledge := filepath.Join(dir, entry.Dir, "knowledge")
	os.WriteFile(filepath.Join(knowledge, "beta.md"), []byte("untracked, no frontmatter\n"), 0o644)
	os.Symlink("/etc/hostname", filepath.Join(knowledge, "gamma.md"))
	for title, want := range map[string]string{"Alpha": "alpha-2", "Beta": "beta-2", "Gamma": "gamma-2"} {
		// A title equal to Alpha's would replace it: punctuation makes
		// another title with the same slug.
		if title == "Alpha" {
			title = "Alpha!"
		}
		if got := add(title); got != want {
			t.Errorf("%s: slug %s, want %s", title, got, want)
		}
	}
	for _, name := range []string{"beta.md", "gamma.md"} {
		if _, err := os.Lstat(filepath.Join(knowledge, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if out := git("status", "--porcelain", "--", entry.Dir+"/knowledge/beta.md"); !strings.Contains(out, "??") {
		t.Errorf("beta.md should still be untracked: %q", out)
	}
}
