package index_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"lore/index"
	"lore/mdstore/entry"
)

// Scanning the files answers every query as a Scan of what LoadDocs read,
// with the same warnings, though it holds only what matches.
func TestScanFilesAnswersAsLoadDocs(t *testing.T) {
	root := t.TempDir()
	write := func(p, text string) {
		t.Helper()
		p = filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".agent/memories.md", "# Memories\n\n## Patterns\n\n### mem-1737372000-a1b2\n> Deploying copies the BackoffJitterFn config.\n<!-- tags: deploy, config | created: 2025-01-20 -->\n\n### mem-1737372001-a1b3\n> The gondola lifts need grease.\n<!-- tags: misc | created: 2025-01-21 -->\n\n## Decisions\n\n## Fixes\n\n## Context\n")
	for i := range 300 {
		topic := []string{"gondola", "kestrel", "walrus", "flaky tests", "deployed"}[i%5]
		write(fmt.Sprintf(".agent/knowledge/entry-%03d.md", i), fmt.Sprintf("---\ntitle: \"Entry %d\"\ntags: [\"misc\"]\n---\n\nPlain words about the %s.\n", i, topic))
	}
	write(".agent/learnings/l-0a0b0c.md", "---\nid: l-0a0b0c\ncategory: pitfall\ntags: [kestrel]\ncreated_at: \"2026-01-02T03:04:05Z\"\n---\n\nA kestrel hovers; \u212aelvin does not.\n")
	write(".agent/knowledge/broken.md", "---\ntitle: [unclosed\n---\n\nbody\n")
	if err := os.Symlink("/dev/zero", filepath.Join(root, ".agent/knowledge/link.md")); err != nil {
		t.Fatal(err)
	}
	docs, wantWarnings, err := index.LoadDocs(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(wantWarnings) < 2 {
		t.Fatalf("the store should have two warnings: %v", wantWarnings)
	}
	files, err := index.ListFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	if files.Len() != 303 {
		t.Errorf("%d files listed, want 303", files.Len())
	}
	for _, q := range []index.Query{
		{Text: "gondola"}, {Text: "gondla"}, {Text: "copy deploying"}, {Text: "kelvin"}, {Text: "backoff jitter"},
		{Text: "zzzqqq"}, {Text: "plain words", Limit: 3}, {Text: "kestrel", Kinds: []entry.Kind{entry.KindLearning}},
		{Text: "walrus", Strict: true}, {Tags: []string{"deploy"}}, {},
	} {
		want, err := index.NewScan(docs...).Search(q)
		if err != nil {
			t.Fatal(err)
		}
		got, warnings, err := files.Scan(q)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%+v:\nfiles %+v\nloaded %+v", q, got, want)
		}
		if fmt.Sprint(warnings) != fmt.Sprint(wantWarnings) {
			t.Errorf("%+v: warnings %v, want %v", q, warnings, wantWarnings)
		}
	}
}
