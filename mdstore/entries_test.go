package mdstore

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"lore/internal/loretest"
)

func TestSlugify(t *testing.T) {
	cases := map[string]string{
		"Rust's testing: a guide!":     "rust-s-testing-a-guide",
		"Cargo bench requires nightly": "cargo-bench-requires-nightly",
		"  --Leading and trailing--  ": "leading-and-trailing",
		"SQLite WAL mode (concurrent)": "sqlite-wal-mode-concurrent",
		"Ünïcödé stays: 日本語":           "ünïcödé-stays-日本語",
		"!!!":                          "",
		strings.Repeat("word ", 30):    strings.TrimSuffix(strings.Repeat("word-", 16), "-"),
	}
	for in, want := range cases {
		if got := Slugify(in); got != want {
			t.Errorf("Slugify(%q) = %q, want %q", in, got, want)
		}
		if n := len([]rune(Slugify(in))); n > MaxSlugLength {
			t.Errorf("Slugify(%q) has %d characters", in, n)
		}
	}
}

func TestTruncateWords(t *testing.T) {
	body := strings.TrimSpace(strings.Repeat("one two\nthree ", 200)) // 600 words
	got := truncateWords(body, MaxKnowledgeWords)
	if !strings.HasSuffix(got, " [truncated]") || len(strings.Fields(got)) != MaxKnowledgeWords+1 {
		t.Fatalf("%d words, ends %q", len(strings.Fields(got)), got[len(got)-20:])
	}
	if !strings.Contains(got, "two\nthree") {
		t.Fatal("line breaks were not kept")
	}
	short := "only a few words"
	if truncateWords(short, MaxKnowledgeWords) != short {
		t.Fatal("a short body changed")
	}
}

func TestKnowledgeDedupRules(t *testing.T) {
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	add := func(title, tags, body string) (Knowledge, KnowledgeAction) {
		t.Helper()
		k, action, _, err := s.AddKnowledge(NewKnowledge{Title: title, Tags: SplitTags(tags), Body: body})
		if err != nil {
			t.Fatal(err)
		}
		return k, action
	}
	k, action := add("Cargo bench requires nightly", "testing,cargo,nightly", "Use rustup run nightly.")
	if action != KnowledgeCreated || k.Slug != "cargo-bench-requires-nightly" {
		t.Fatalf("%s %s", action, k.Slug)
	}
	// 1. The same title, in another case: the body is replaced, tags merged.
	k, action = add("CARGO BENCH REQUIRES NIGHTLY", "cargo,toolchain", "Set channel = \"nightly\".")
	if action != KnowledgeReplaced || k.Slug != "cargo-bench-requires-nightly" || strings.Join(k.Tags, ",") != "testing,cargo,nightly,toolchain" || k.Body != "Set channel = \"nightly\"." {
		t.Fatalf("%s %+v", action, k)
	}
	// 2. A title containing the other and >50% tag overlap: that entry is updated.
	k, action = add("Cargo bench requires nightly on CI", "cargo,nightly,ci", "CI needs it too.")
	if action != KnowledgeUpdated || k.Slug != "cargo-bench-requires-nightly" || k.Title != "CARGO BENCH REQUIRES NIGHTLY" && k.Title != "Cargo bench requires nightly" {
		t.Fatalf("%s %+v", action, k)
	}
	// A substring title with little tag overlap is a new entry.
	k, action = add("Cargo bench", "benchmarks", "Different topic.")
	if action != KnowledgeCreated || k.Slug != "cargo-bench" {
		t.Fatalf("%s %+v", action, k)
	}
	// The same entry again changes nothing and makes no commit.
	before := git("rev-list", "--count", "HEAD")
	_, action = add("Cargo bench", "benchmarks", "Different topic.")
	if action != KnowledgeUnchanged || git("rev-list", "--count", "HEAD") != before {
		t.Fatalf("%s: a commit was made", action)
	}
	// A different title with the same slug gets a suffix.
	k, action = add("Cargo: bench!", "other", "Same slug, other entry.")
	if action != KnowledgeCreated || k.Slug != "cargo-bench-2" {
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

func TestKnowledgeFileGolden(t *testing.T) {
	k := Knowledge{Title: "Cargo bench requires nightly", Tags: []string{"testing", "cargo", "nightly"}, Feature: "perf-optimization",
		CreatedAt: "2026-02-17T12:00:00Z", Body: "Running `cargo bench` requires the nightly Rust toolchain.\n\nUse `rustup run nightly cargo bench`."}
	data := RenderKnowledge(k)
	loretest.Golden(t, "testdata/knowledge.golden.md", string(data))
	back, err := parseKnowledge(data, KnowledgeDir+"/cargo-bench-requires-nightly.md")
	k.Slug, k.Path = "cargo-bench-requires-nightly", KnowledgeDir+"/cargo-bench-requires-nightly.md"
	if err != nil || !reflect.DeepEqual(back, k) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, back, k)
	}
	// The seed's own example reads.
	seed := "---\ntitle: \"Cargo bench requires nightly\"\ntags: [testing, cargo, nightly]\nfeature: \"perf-optimization\"\ncreated_at: \"2026-02-17T12:00:00Z\"\n---\n\nRunning `cargo bench` requires the nightly Rust toolchain.\n"
	if got, err := parseKnowledge([]byte(seed), "x.md"); err != nil || got.Title != k.Title || len(got.Tags) != 3 {
		t.Fatalf("seed example: %v %+v", err, got)
	}
}

func TestLearningsNearDuplicateAndUnknownCategory(t *testing.T) {
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	l, dup, res, err := s.AddLearning(NewLearning{Category: "pitfall", Tags: []string{"SQLite", "foreign keys"}, Task: "t-abc123",
		Body: "Enable PRAGMA foreign_keys = ON at connection time, or the constraints are silently ignored."})
	if err != nil || dup || !ValidLearningID(l.ID) || res.Commit == "" || strings.Join(l.Tags, ",") != "sqlite,foreign keys" {
		t.Fatalf("%+v %v %v", l, dup, err)
	}
	// Same category, nearly the same words: not added, the existing id is reported.
	again, dup, res, err := s.AddLearning(NewLearning{Category: "pitfall", Tags: []string{"sqlite"},
		Body: "Enable PRAGMA foreign_keys = ON at connection time, or foreign key constraints are silently ignored."})
	if err != nil || !dup || again.ID != l.ID || res.Commit != "" {
		t.Fatalf("%+v %v %+v %v", again, dup, res, err)
	}
	// The same words in another category are a different learning.
	if _, dup, _, err := s.AddLearning(NewLearning{Category: "tool_usage", Tags: []string{"sqlite"}, Body: l.Body}); err != nil || dup {
		t.Fatalf("%v %v", dup, err)
	}
	// Unknown categories are kept as written.
	other, _, _, err := s.AddLearning(NewLearning{Category: "deployment_gotcha", Tags: []string{"deploy"}, Body: "Staging needs the VPN."})
	if err != nil || other.Category != "deployment_gotcha" {
		t.Fatalf("%+v %v", other, err)
	}
	got, err := s.Learning(other.ID)
	if err != nil || got.Category != "deployment_gotcha" || got.Status != "active" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, _, _, err := s.AddLearning(NewLearning{Category: "pitfall", Body: "no tags"}); err == nil {
		t.Fatal("a learning without tags was accepted")
	}
	if n := git("rev-list", "--count", "HEAD"); n != "4" {
		t.Fatalf("%s commits", n)
	}
}

func TestLearningFileGolden(t *testing.T) {
	conf, rate := 0.85, 0.9
	l := Learning{ID: "l-1a2b3c", Category: "success_pattern", Tags: []string{"rust", "sqlite", "foreign keys"}, Task: "t-abc123",
		CreatedAt: "2026-02-17T12:00:00Z", Status: "active", Kind: "strategy", TaskType: "test-fix", Confidence: &conf, SuccessRate: &rate,
		SourceRuns: []string{"run-0a1b2c3d"}, Body: "Enable PRAGMA foreign_keys = ON at connection time.", Path: LearningsDir + "/l-1a2b3c.md"}
	data := RenderLearning(l)
	loretest.Golden(t, "testdata/learning.golden.md", string(data))
	back, err := parseLearning(data, l.Path)
	if err != nil || !reflect.DeepEqual(back, l) {
		t.Fatalf("round trip: %v\n%+v", err, back)
	}
}

func TestJournalFileGolden(t *testing.T) {
	e := JournalEntry{RunID: "run-0a1b2c3d", Iteration: 4, TaskID: "t-def456", Outcome: "failed", Model: "opus", NextModel: "sonnet",
		DurationSecs: 198.3, CostUSD: 1.1155, FilesModified: []string{"src/parser.rs"}, Difficulty: "hard", CreatedAt: "2026-02-17T12:00:00Z",
		Failure: &Failure{WhatTried: "Created all four tables in one batch", WhyFailed: "SQLite rejected the foreign key: \"iteration_outcomes\" did not exist yet",
			ErrorCategory: "dependency_error", RelevantFiles: []string{"src/dag/db.rs"}, StackTrace: "FOREIGN KEY constraint failed\n  at db.rs:45",
			RetrySuggestion: "Create iteration_outcomes first."},
		Notes: "Verification failed on an edge case.", Path: JournalPath("run-0a1b2c3d", 4)}
	data := RenderJournal(e)
	loretest.Golden(t, "testdata/journal.golden.md", string(data))
	back, err := parseJournal(data, e.Path)
	if err != nil || !reflect.DeepEqual(back, e) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, back, e)
	}
}

func TestMalformedFilesAreReportedWithLineAndSkipped(t *testing.T) {
	dir := t.TempDir()
	write := func(p, content string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(content), 0o644)
	}
	write(KnowledgeDir+"/good.md", "---\ntitle: Good\ntags: [a]\n---\n\nbody\n")
	write(KnowledgeDir+"/no-tags.md", "---\ntitle: No tags\n---\n\nbody\n")
	write(KnowledgeDir+"/upper.md", "---\ntitle: Upper\ntags: [Mixed]\n---\n\nbody\n")
	write(KnowledgeDir+"/bad-yaml.md", "---\ntitle: [unclosed\ntags: [a]\n---\nbody\n")
	write(KnowledgeDir+"/no-frontmatter.md", "just text\n")
	write(LearningsDir+"/l-000001.md", "---\nid: l-000001\ncategory: pitfall\ntags: [a]\nstatus: maybe\n---\n\nbody\n")
	write(JournalDir+"/run-1/0001.md", "---\nrun_id: run-1\niteration: 1\noutcome: exploded\n---\n")
	write(JournalDir+"/run-1/0002.md", "---\nrun_id: run-1\niteration: 2\noutcome: done\nduration_secs: -3\n---\n")
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	ks, kw, _ := s.Knowledge()
	ls, lw, _ := s.Learnings()
	js, jw, _ := s.Journal()
	if len(ks) != 1 || len(ls) != 0 || len(js) != 0 {
		t.Fatalf("read %d knowledge, %d learnings, %d journal entries", len(ks), len(ls), len(js))
	}
	loretest.Golden(t, "testdata/malformed.warnings", warningsText(append(append(kw, lw...), jw...)))
}

func TestSkillsDiscovery(t *testing.T) {
	dir := t.TempDir()
	write := func(p, content string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(content), 0o644)
	}
	write(".agent/skills/deploy-check/SKILL.md", "---\nname: deploy-check\ndescription: Verify deployment prerequisites before pushing to staging\n---\n\n# Deploy Check\n")
	write(".claude/skills/git-commit/SKILL.md", "---\nname: git-commit\ndescription: >\n  Commit changes following\n  the project's conventions\n---\nsteps\n")
	write(".agent/skills/no-frontmatter/SKILL.md", "# Just steps\n")
	write(".claude/skills/broken/SKILL.md", "---\nname: [broken\n---\n")
	write(".agent/skills/empty-dir/README.md", "not a skill\n")
	unreadable := filepath.Join(dir, ".claude/skills/locked/SKILL.md")
	write(".claude/skills/locked/SKILL.md", "---\nname: locked\n---\n")
	os.Chmod(unreadable, 0o000)
	defer os.Chmod(unreadable, 0o644)
	s, _ := Open(dir, testOptions(t.TempDir()))
	skills, warnings, err := s.Skills()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range skills {
		got = append(got, sk.Name+": "+sk.Description)
	}
	want := []string{
		"broken: " + NoDescription,
		"deploy-check: Verify deployment prerequisites before pushing to staging",
		"git-commit: Commit changes following the project's conventions",
		"no-frontmatter: " + NoDescription,
	}
	if os.Getuid() == 0 { // root reads the locked file anyway
		want = append(want[:2:2], append([]string{"git-commit: Commit changes following the project's conventions", "locked: " + NoDescription}, want[3:]...)...)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("skills:\n%s", strings.Join(got, "\n"))
	}
	if os.Getuid() != 0 && (len(warnings) != 1 || !strings.Contains(warnings[0].String(), "locked/SKILL.md")) {
		t.Fatalf("warnings: %v", warnings)
	}
}

const fullOutput = `I added the failure_reports table and wired up the constraints.

<journal>
Chose to create iteration_outcomes before failure_reports.
Tests pass.
</journal>

<knowledge tags="testing,cargo,nightly" title="Cargo bench requires nightly">
Running cargo bench requires the nightly Rust toolchain.
</knowledge>

<learning category="success_pattern" tags="Rust, SQLite, foreign keys">
When adding tables with foreign keys in SQLite, enable PRAGMA foreign_keys = ON.
</learning>

<learning category="tool_usage" tags="cargo, testing">
Use cargo test --test name to run a single integration test file.
</learning>

<difficulty-estimate>moderate</difficulty-estimate>
<next-model>sonnet</next-model>
<task-done>t-abc123</task-done>`

func TestIngestRecordsOneIterationInOneCommit(t *testing.T) {
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	res, wr, err := s.Ingest(IngestInput{Output: fullOutput, RunID: "run-0a1b2c3d", Iteration: 3, Model: "opus", DurationSecs: 42, Files: []string{"src/db.rs"}})
	if err != nil {
		t.Fatal(err)
	}
	e := res.Journal
	if e.Outcome != "done" || e.TaskID != "t-abc123" || e.Difficulty != "moderate" || e.NextModel != "sonnet" || e.Failure != nil ||
		e.Notes != "Chose to create iteration_outcomes before failure_reports.\nTests pass." || len(res.Knowledge) != 1 || len(res.Learnings) != 2 {
		t.Fatalf("result: %+v", res)
	}
	if got := git("rev-list", "--count", "HEAD"); got != "2" || wr.Commit == "" {
		t.Fatalf("%s commits", got)
	}
	if got := git("show", "--name-only", "--format=%s%n%(trailers:only)", "HEAD"); !strings.Contains(got, "lore: ingest run-0a1b2c3d/0003 (done t-abc123)") ||
		!strings.Contains(got, "Run-Id: run-0a1b2c3d") || !strings.Contains(got, "Iteration: 3") || !strings.Contains(got, "Task-Id: t-abc123") ||
		!strings.Contains(got, ".agent/journal/run-0a1b2c3d/0003.md") || !strings.Contains(got, ".agent/knowledge/cargo-bench-requires-nightly.md") ||
		strings.Count(got, ".agent/learnings/l-") != 2 {
		t.Fatalf("commit:\n%s", got)
	}
	// The same iteration again: nothing new, no commit.
	again, wr, err := s.Ingest(IngestInput{Output: fullOutput, RunID: "run-0a1b2c3d", Iteration: 3, Model: "opus", DurationSecs: 42, Files: []string{"src/db.rs"}})
	if err != nil {
		t.Fatal(err)
	}
	if wr.Commit != "" || !again.JournalReplaced || again.Knowledge[0].Action != "unchanged" || again.Learnings[0].Action != "duplicate" || again.Learnings[1].Action != "duplicate" {
		t.Fatalf("second ingest: %+v %+v", again, wr)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

func TestIngestFailedWithoutReportGetsTheMinimalOne(t *testing.T) {
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	out := "I could not get the migration to run.\n<retry-suggestion>Split it in two.</retry-suggestion>\n<task-failed>t-0dfebf</task-failed>"
	res, _, err := s.Ingest(IngestInput{Output: out, RunID: "run-1", Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Journal.Failure
	if res.Journal.Outcome != "failed" || f == nil || f.WhyFailed != MinimalFailureReason || f.ErrorCategory != "unknown" || f.WhatTried != "" ||
		f.RetrySuggestion != "Split it in two." || !strings.HasPrefix(f.StackTrace, "I could not get the migration to run.") {
		t.Fatalf("%+v %+v", res.Journal, f)
	}
	// No task sigil at all: blocked, with the minimal report too.
	res, _, err = s.Ingest(IngestInput{Output: "I ran out of turns.", RunID: "run-1"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Journal.Outcome != "blocked" || res.Journal.Iteration != 2 || res.Journal.Failure == nil {
		t.Fatalf("%+v", res.Journal)
	}
}

func TestIngestWithoutRunStartsOne(t *testing.T) {
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	res, _, err := s.Ingest(IngestInput{Output: "<task-done>t-1</task-done>"})
	if err != nil || !res.RunStarted || !ValidRunID(res.Journal.RunID) || res.Journal.Iteration != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	run, _ := s.CurrentRun()
	res2, _, err := s.Ingest(IngestInput{Output: "<task-done>t-2</task-done>"})
	if err != nil || res2.RunStarted || res2.Journal.RunID != run || res2.Journal.Iteration != 2 {
		t.Fatalf("%+v %v", res2, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "lore", "current-run")); err != nil {
		t.Fatal("the current run is not kept under the git dir")
	}
}

func TestIngestSkipsBadSigilsAndKeepsTheRest(t *testing.T) {
	dir, _ := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	out := `<knowledge tags="a|b" title="Bad tags">body</knowledge>
<knowledge tags="ok" title="Good">body</knowledge>
<knowledge tags="ok" title="good">same title, later body</knowledge>
<learning category="Not A Word!" tags="x">body</learning>
<task-done>t-1</task-done>`
	res, _, err := s.Ingest(IngestInput{Output: out, RunID: "run-1", Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Knowledge) != 1 || len(res.Skipped) != 2 || len(res.Learnings) != 0 {
		t.Fatalf("%+v", res)
	}
	k, err := s.KnowledgeEntry("good")
	if err != nil || k.Body != "same title, later body" {
		t.Fatalf("%+v %v", k, err)
	}
}

func TestDeleteEntries(t *testing.T) {
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	k, _, _, _ := s.AddKnowledge(NewKnowledge{Title: "T", Tags: []string{"a"}, Body: "b"})
	l, _, _, _ := s.AddLearning(NewLearning{Category: "pitfall", Tags: []string{"a"}, Body: "b"})
	if _, _, err := s.DeleteKnowledge(k.Slug); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.DeleteLearning(l.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.DeleteLearning(l.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if got := git("log", "--format=%s", "-2"); got != "lore: delete learning "+l.ID+"\nlore: delete knowledge t" {
		t.Fatalf("log:\n%s", got)
	}
	if got := git("ls-files", ".agent"); got != "" {
		t.Fatalf("files left: %s", got)
	}
}

// FuzzFrontmatterCodecs: no input makes a parser panic, and whatever
// parses comes back the same after lore writes it.
func FuzzFrontmatterCodecs(f *testing.F) {
	for _, name := range []string{"knowledge.golden.md", "learning.golden.md", "journal.golden.md"} {
		f.Add(readTestdata(f, name))
	}
	f.Add([]byte("---\ntitle: x\ntags: a, b\n---\nbody"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if k, err := parseKnowledge(data, KnowledgeDir+"/x.md"); err == nil {
			if back, err := parseKnowledge(RenderKnowledge(k), k.Path); err != nil || !reflect.DeepEqual(back, k) {
				t.Fatalf("knowledge round trip: %v\n%+v\n%+v", err, k, back)
			}
		}
		if l, err := parseLearning(data, LearningsDir+"/l-1a2b3c.md"); err == nil {
			if back, err := parseLearning(RenderLearning(l), l.Path); err != nil || !reflect.DeepEqual(back, l) {
				t.Fatalf("learning round trip: %v\n%+v\n%+v", err, l, back)
			}
		}
		if e, err := parseJournal(data, JournalDir+"/run-0a1b2c3d/0004.md"); err == nil {
			if back, err := parseJournal(RenderJournal(e), e.Path); err != nil || !reflect.DeepEqual(back, e) {
				t.Fatalf("journal round trip: %v\n%+v\n%+v", err, e, back)
			}
		}
	})
}
