package fresh_test

import (
	"os"
	"testing"
)

// skillFile is a SKILL.md.
func skillFile(name, description string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n\n# " + name + "\n\nSteps.\n"
}

// Skills are SKILL.md files in a directory of their own under
// .agent/skills or .claude/skills; like memories.md they are looked at
// before every search, whatever the store's size.
func TestSkillsAreSeen(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		r.write(".agent/skills/deploy/SKILL.md", skillFile("deploy", "Ship a release."))
		r.write(".agent/skills/deploy/notes.md", "Not a skill: only SKILL.md is.\n")
		r.write(".agent/skills/README.md", "Not a skill either.\n")
		wantChanges(t, "the first build", r.rebuild(), []string{"deploy"}, nil)

		// Claude Code's skills, in a directory that did not exist at the
		// build.
		r.write(".claude/skills/review/SKILL.md", skillFile("review", "Read a change."))
		ch := r.expect("a skill under .claude/skills", []string{"review"}, nil)
		if d := doc(t, ch.Docs, "review"); d.ID != ".claude/skills/review/SKILL.md" || d.Content != "Read a change." {
			t.Fatalf("the new skill's document: %+v", d)
		}

		// Edited in place: the directory does not change, the file is
		// stat'ed anyway.
		r.write(".agent/skills/deploy/SKILL.md", skillFile("deploy", "Ship a release, then tag it."))
		ch = r.expect("a skill edited in place", []string{"deploy"}, nil)
		if d := doc(t, ch.Docs, "deploy"); d.Content != "Ship a release, then tag it." {
			t.Fatalf("the edited skill's document: %+v", d)
		}
		r.write(".agent/skills/deploy/notes.md", "Still not a skill.\n")
		r.expect("a file beside a skill edited", nil, nil)

		// A second skill in a directory that has one.
		r.write(".agent/skills/rollback/SKILL.md", skillFile("rollback", "Undo a release."))
		r.expect("a second skill", []string{"rollback"}, nil)

		// Removed: its SKILL.md, then a skill's whole directory.
		if err := os.Remove(r.path(".agent/skills/rollback/SKILL.md")); err != nil {
			t.Fatal(err)
		}
		r.expect("a SKILL.md removed", nil, []string{".agent/skills/rollback/SKILL.md"})
		if err := os.RemoveAll(r.path(".agent/skills/deploy")); err != nil {
			t.Fatal(err)
		}
		r.expect("a skill directory removed", nil, []string{".agent/skills/deploy/SKILL.md"})
		if err := os.RemoveAll(r.path(".claude")); err != nil {
			t.Fatal(err)
		}
		r.expect(".claude removed", nil, []string{".claude/skills/review/SKILL.md"})
	})
}
