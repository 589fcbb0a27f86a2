package entry

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"lore/internal/loretest"
)

func TestSlugify(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

func TestKnowledgeFileGolden(t *testing.T) {
	t.Parallel()
	k := Knowledge{Title: "Cargo bench requires nightly", Tags: []string{"testing", "cargo", "nightly"}, Feature: "perf-optimization",
		CreatedAt: "2026-02-17T12:00:00Z", Body: "Running `cargo bench` requires the nightly Rust toolchain.\n\nUse `rustup run nightly cargo bench`."}
	data := RenderKnowledge(k)
	loretest.Golden(t, "testdata/knowledge.golden.md", string(data))
	back, err := ParseKnowledge(data, KnowledgeDir+"/cargo-bench-requires-nightly.md")
	k.Slug, k.Path = "cargo-bench-requires-nightly", KnowledgeDir+"/cargo-bench-requires-nightly.md"
	if err != nil || !reflect.DeepEqual(back, k) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, back, k)
	}
	// The seed's own example reads.
	seed := "---\ntitle: \"Cargo bench requires nightly\"\ntags: [testing, cargo, nightly]\nfeature: \"perf-optimization\"\ncreated_at: \"2026-02-17T12:00:00Z\"\n---\n\nRunning `cargo bench` requires the nightly Rust toolchain.\n"
	if got, err := ParseKnowledge([]byte(seed), "x.md"); err != nil || got.Title != k.Title || len(got.Tags) != 3 {
		t.Fatalf("seed example: %v %+v", err, got)
	}
}

func TestLearningFileGolden(t *testing.T) {
	t.Parallel()
	conf, rate := 0.85, 0.9
	l := Learning{ID: "l-1a2b3c", Category: "success_pattern", Tags: []string{"rust", "sqlite", "foreign keys"}, Task: "t-abc123",
		CreatedAt: "2026-02-17T12:00:00Z", Status: "active", Kind: "strategy", TaskType: "test-fix", Confidence: &conf, SuccessRate: &rate,
		SourceRuns: []string{"run-0a1b2c3d"}, Body: "Enable PRAGMA foreign_keys = ON at connection time.", Path: LearningsDir + "/l-1a2b3c.md"}
	data := RenderLearning(l)
	loretest.Golden(t, "testdata/learning.golden.md", string(data))
	back, err := ParseLearning(data, l.Path)
	if err != nil || !reflect.DeepEqual(back, l) {
		t.Fatalf("round trip: %v\n%+v", err, back)
	}
}

func TestJournalFileGolden(t *testing.T) {
	t.Parallel()
	e := JournalEntry{RunID: "run-0a1b2c3d", Iteration: 4, TaskID: "t-def456", Outcome: "failed", Model: "opus", NextModel: "sonnet",
		DurationSecs: 198.3, CostUSD: 1.1155, FilesModified: []string{"src/parser.rs"}, Difficulty: "hard", CreatedAt: "2026-02-17T12:00:00Z",
		Failure: &Failure{WhatTried: "Created all four tables in one batch", WhyFailed: "SQLite rejected the foreign key: \"iteration_outcomes\" did not exist yet",
			ErrorCategory: "dependency_error", RelevantFiles: []string{"src/dag/db.rs"}, StackTrace: "FOREIGN KEY constraint failed\n  at db.rs:45",
			RetrySuggestion: "Create iteration_outcomes first."},
		Notes: "Verification failed on an edge case.", Path: JournalPath("run-0a1b2c3d", 4, "4fa9c2")}
	data := RenderJournal(e)
	loretest.Golden(t, "testdata/journal.golden.md", string(data))
	back, err := ParseJournal(data, e.Path)
	if err != nil || !reflect.DeepEqual(back, e) {
		t.Fatalf("round trip: %v\n%+v\n%+v", err, back, e)
	}
}

// TestJournalRevertedAt: lore revert's mark is written after ingest_key,
// read back, and held to RFC 3339 like the other times.
func TestJournalRevertedAt(t *testing.T) {
	t.Parallel()
	e := JournalEntry{RunID: "run-0a1b2c3d", Iteration: 2, Outcome: "done", FilesModified: []string{}, CreatedAt: "2026-02-17T12:00:00Z",
		IngestKey: "k", RevertedAt: "2026-02-18T09:30:00Z", Path: JournalPath("run-0a1b2c3d", 2, "")}
	data := RenderJournal(e)
	if !strings.Contains(string(data), "ingest_key: \"k\"\nreverted_at: \"2026-02-18T09:30:00Z\"\n") {
		t.Fatalf("written:\n%s", data)
	}
	if back, err := ParseJournal(data, e.Path); err != nil || !reflect.DeepEqual(back, e) {
		t.Fatalf("round trip: %v\n%+v", err, back)
	}
	bad := strings.Replace(string(data), "2026-02-18T09:30:00Z", "yesterday", 1)
	var fe *FileError
	if _, err := ParseJournal([]byte(bad), e.Path); !errors.As(err, &fe) || !strings.Contains(fe.Msg, "reverted_at must be an RFC 3339 time") {
		t.Fatalf("a reverted_at that is no time: %v", err)
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
		if k, err := ParseKnowledge(data, KnowledgeDir+"/x.md"); err == nil {
			if back, err := ParseKnowledge(RenderKnowledge(k), k.Path); err != nil || !reflect.DeepEqual(back, k) {
				t.Fatalf("knowledge round trip: %v\n%+v\n%+v", err, k, back)
			}
		}
		if l, err := ParseLearning(data, LearningsDir+"/l-1a2b3c.md"); err == nil {
			if back, err := ParseLearning(RenderLearning(l), l.Path); err != nil || !reflect.DeepEqual(back, l) {
				t.Fatalf("learning round trip: %v\n%+v\n%+v", err, l, back)
			}
		}
		if e, err := ParseJournal(data, JournalDir+"/run-0a1b2c3d/0004.md"); err == nil {
			if back, err := ParseJournal(RenderJournal(e), e.Path); err != nil || !reflect.DeepEqual(back, e) {
				t.Fatalf("journal round trip: %v\n%+v\n%+v", err, e, back)
			}
		}
	})
}
