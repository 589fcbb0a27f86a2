package mdstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

func TestMalformedFilesAreReportedWithLineAndSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(p, content string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(content), 0o644)
	}
	write(entry.KnowledgeDir+"/good.md", "---\ntitle: Good\ntags: [a]\n---\n\nbody\n")
	write(entry.KnowledgeDir+"/no-tags.md", "---\ntitle: No tags\n---\n\nbody\n")
	write(entry.KnowledgeDir+"/upper.md", "---\ntitle: Upper\ntags: [Mixed]\n---\n\nbody\n")
	write(entry.KnowledgeDir+"/bad-yaml.md", "---\ntitle: [unclosed\ntags: [a]\n---\nbody\n")
	write(entry.KnowledgeDir+"/no-frontmatter.md", "just text\n")
	write(entry.LearningsDir+"/l-000001.md", "---\nid: l-000001\ncategory: pitfall\ntags: [a]\nstatus: maybe\n---\n\nbody\n")
	write(entry.JournalDir+"/run-1/0001.md", "---\nrun_id: run-1\niteration: 1\noutcome: exploded\n---\n")
	write(entry.JournalDir+"/run-1/0002.md", "---\nrun_id: run-1\niteration: 2\noutcome: done\nduration_secs: -3\n---\n")
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
	var got strings.Builder
	for _, w := range append(append(kw, lw...), jw...) {
		got.WriteString(w.String() + "\n")
	}
	loretest.Golden(t, "testdata/malformed.warnings", got.String())
}

func TestSkillsDiscovery(t *testing.T) {
	t.Parallel()
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
		"broken: " + entry.NoDescription,
		"deploy-check: Verify deployment prerequisites before pushing to staging",
		"git-commit: Commit changes following the project's conventions",
		"no-frontmatter: " + entry.NoDescription,
	}
	if os.Getuid() == 0 { // root reads the locked file anyway
		want = append(want[:2:2], append([]string{"git-commit: Commit changes following the project's conventions", "locked: " + entry.NoDescription}, want[3:]...)...)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("skills:\n%s", strings.Join(got, "\n"))
	}
	if os.Getuid() != 0 && (len(warnings) != 1 || !strings.Contains(warnings[0].String(), "locked/SKILL.md")) {
		t.Fatalf("warnings: %v", warnings)
	}
}
