package progress

import (
	"os"
	"strings"
	"testing"
)

func read(t *testing.T, name string) Log {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(data)
}

// TestCourtSense: a real log with labels inline and a nested learnings
// list; the loop script's "## Iteration 1" section is no entry.
func TestCourtSense(t *testing.T) {
	log := read(t, "courtsense-progress.txt")
	if !strings.HasPrefix(log.Patterns, "- Tailwind CSS v4 uses") || !strings.HasSuffix(log.Patterns, "black-translucent status bar, viewport-fit=cover") {
		t.Errorf("patterns: %q", log.Patterns)
	}
	if len(log.Entries) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(log.Entries), log.Entries)
	}
	e := log.Entries[0]
	if e.Story != "US-001" || e.Heading != "## 2026-02-07 - US-001" {
		t.Errorf("entry 1: story %q heading %q", e.Story, e.Heading)
	}
	if len(e.Files) != 10 || e.Files[0] != "package.json" || e.Files[9] != ".gitignore" {
		t.Errorf("files: %q", e.Files)
	}
	if len(e.Learnings) != 4 || !strings.HasPrefix(e.Learnings[1].Text, "`create-vite` v8 requires Node 20.19+") || e.Learnings[1].Category != "other" {
		t.Errorf("learnings: %+v", e.Learnings)
	}
	if !strings.HasPrefix(e.Text, "## 2026-02-07 - US-001\n- What was implemented: Full project") || !strings.HasSuffix(e.Text, "path` import in vite.config.ts") {
		t.Errorf("text: %q", e.Text)
	}
	if f := log.Entries[1].Files; len(f) != 6 || f[0] != "package.json" || f[5] != "public/icons/apple-touch-icon.svg" {
		t.Errorf("entry 2 files: %q", f)
	}
}

// TestBookmarks: labels as bold lines over lists; "## Key Files" is no
// entry.
func TestBookmarks(t *testing.T) {
	log := read(t, "bookmarks-progress.txt")
	if !strings.Contains(log.Patterns, "- Supabase client: Use `@/lib/supabase`") {
		t.Errorf("patterns: %q", log.Patterns)
	}
	var stories []string
	for _, e := range log.Entries {
		stories = append(stories, e.Story)
	}
	if strings.Join(stories, " ") != "SETUP-001 SETUP-002 SETUP-003" {
		t.Fatalf("stories %q", stories)
	}
	e := log.Entries[0]
	if len(e.Files) != 2 || e.Files[0] != "src/lib/utils.test.ts" || e.Files[1] != "package.json" {
		t.Errorf("files: %q", e.Files)
	}
	if len(e.Learnings) != 3 || !strings.HasPrefix(e.Learnings[0].Text, "Vitest config was already set up") {
		t.Errorf("learnings: %+v", e.Learnings)
	}
}

// TestGroupsAndTemplates: a learnings list grouped as the snarktank
// prompt suggests gives each leaf its group's category; a fresh log's
// placeholder is no pattern.
func TestGroupsAndTemplates(t *testing.T) {
	src := `# Progress Log
## Codebase Patterns
(add reusable patterns here)

---
## [2026-01-23 01:16:17] - TST-002: Add hub test helpers
- What was implemented
  - Added an in-memory Redis mock.
- Files changed:
  - services/hub/src/redis.js
- **Learnings for future iterations:**
  - Patterns discovered
    - Redis access is centralized in services/hub/src/redis.js.
  - Gotchas encountered
    - The web tests fail on App.test.jsx.
---
`
	log := Parse([]byte(src))
	if log.Patterns != "" {
		t.Errorf("patterns from a placeholder: %q", log.Patterns)
	}
	if len(log.Entries) != 1 {
		t.Fatalf("entries: %+v", log.Entries)
	}
	e := log.Entries[0]
	if e.Story != "TST-002" || len(e.Files) != 1 || e.Files[0] != "services/hub/src/redis.js" {
		t.Errorf("story %q files %q", e.Story, e.Files)
	}
	want := []Learning{{"success_pattern", "Redis access is centralized in services/hub/src/redis.js."}, {"pitfall", "The web tests fail on App.test.jsx."}}
	if len(e.Learnings) != 2 || e.Learnings[0] != want[0] || e.Learnings[1] != want[1] {
		t.Errorf("learnings %+v, want %+v", e.Learnings, want)
	}
	if strings.HasSuffix(e.Text, "---") {
		t.Errorf("text keeps the rule: %q", e.Text)
	}
}
