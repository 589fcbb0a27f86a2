package lifecycle

import (
	"strings"
	"testing"

	"lore/mdstore/entry"
)

// TestMarkdownSections: a CLAUDE.md's sections are found by goldmark, so
// a "## " in a fenced block is not one; a section's subsections are part
// of it, cut from the source as written; MEMORY.md's index of links is
// not an entry, but a section with text beside its links is.
func TestMarkdownSections(t *testing.T) {
	src := "# Project\n\nIntro.\n\n## Build & test\n\nRun `make`.\n\n```sh\n## not a heading\nmake test\n```\n\n### Slow\n\n*Docker* needed.\n\n" +
		"## Index\n\n- [Testing](feedback_testing.md) — real databases\n- [Release](project_release.md)\n\n" +
		"## Links and notes\n\n- [Testing](feedback_testing.md)\n\nThe cache question is open.\n\n## Empty\n\n## Build & Test\n\nAgain.\n\n## Développement\n\nÀ faire.\n\n## ???\n\nWhat.\n"
	ks := readMarkdownSections("CLAUDE.md", []byte(src), claudeProjectTag)
	uniqueSlugs(ks, 0)
	var got []string
	for _, k := range ks {
		got = append(got, k.Slug+"|"+k.Title)
	}
	want := []string{"build-test|Build & test", "links-and-notes|Links and notes", "build-test-2|Build & Test",
		"d-veloppement|Développement", "claude-md-section|???"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("sections:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if body := ks[0].Body; !strings.Contains(body, "## not a heading\nmake test") || !strings.HasSuffix(body, "### Slow\n\n*Docker* needed.") {
		t.Errorf("the section's body is not its text as written:\n%s", body)
	}
	for _, k := range ks {
		if err := checkFile("knowledge "+k.Slug, entry.KnowledgePath(k.Slug), entry.RenderKnowledge(k)); err != nil {
			t.Errorf("%s: %v", k.Slug, err)
		}
	}
}

// TestRalphDecisions: the template in the fenced block is no decision;
// each DEC-NNN is a decision memory whose id is the same on every read
// and differs between decisions of one day.
func TestRalphDecisions(t *testing.T) {
	src := "# Decisions Log\n\n```\n## DEC-XXX (YYYY-MM-DDTHH:MMZ)\n- Decision: <short statement>\n```\n\n" +
		"## DEC-001 (2026-01-31)\n- Decision: A.\n- Confidence: 78\n\n## DEC-002 (2026-01-31)\n- Decision: B.\n\n## DEC-011 (2026-02-21T00:23Z)\n- Decision: C.\n"
	ms, err := readRalphDecisions("decisions.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	again, _ := readRalphDecisions("decisions.md", []byte(src))
	if len(ms) != 3 || ms[0].ID == ms[1].ID || ms[0].ID != again[0].ID || !strings.HasPrefix(ms[2].ID, "mem-1771633380-") {
		t.Fatalf("decisions: %+v", ms)
	}
	for i, m := range ms {
		if err := checkMemory(m, i); err != nil {
			t.Errorf("%s: %v", m.ID, err)
		}
	}
	if _, err := readRalphDecisions("decisions.md", []byte("## DEC-001 (soon)\n- Decision: A.\n")); err == nil || !strings.Contains(err.Error(), "decisions.md:1:") {
		t.Errorf("an undated decision: %v", err)
	}
}

// FuzzMarkdownSections: whatever a CLAUDE.md holds, its sections read
// without a panic, each with a slug lore can write and a body cut from
// the source.
func FuzzMarkdownSections(f *testing.F) {
	f.Add("# P\n\n## A\n\ntext\n\n## B\n\n- [x](y.md)\n")
	f.Add("## DEC-001 (2026-01-31)\n- Decision: A.\n")
	f.Add("```\n## no\n```\n## yes\n\nbody")
	f.Add("## ???\n\nsome text\n\n## !!!\n\nmore\n")
	f.Fuzz(func(t *testing.T, src string) {
		ks := readMarkdownSections("CLAUDE.md", []byte(src), claudeProjectTag)
		uniqueSlugs(ks, 0)
		seen := map[string]bool{}
		for _, k := range ks {
			if !entry.IsSlug(k.Slug) || len(k.Slug) > entry.MaxSlugLength || seen[k.Slug] {
				t.Errorf("slug %q", k.Slug)
			}
			seen[k.Slug] = true
			if !strings.Contains(src, k.Body) {
				t.Errorf("body %q is not in the source", k.Body)
			}
		}
		_, _ = readRalphDecisions("decisions.md", []byte(src))
	})
}
