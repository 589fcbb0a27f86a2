package fresh_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"lore/index"
	"lore/index/fresh"
	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// Symbolic links and other files that are not what they seem (issue 15).
// No reader of the store follows a link: the check, index.LoadDocs (the
// scan lore falls back to) and mdstore skip the same files, so the index
// and the scan find the same entries. A link where lore would read a file
// or a directory is skipped with a warning, but for a skill linked from
// one skill directory to the other (mdstore.SkillLink), which is read
// where it is, once.

// held follows what an index holds: the documents of the first build,
// then each check's changes.
type held map[string]index.Doc

func (h held) apply(ch *fresh.Changes) {
	for _, id := range ch.Remove {
		for k, d := range h {
			if k == id || d.ID == id {
				delete(h, k)
			}
		}
	}
	for _, d := range ch.Docs {
		h[d.ID] = d
	}
}

// agrees fails the test unless the index holds what the scan finds.
func (h held) agrees(t *testing.T, r *storeRepo, what string) {
	t.Helper()
	docs, _, err := index.LoadDocs(r.root)
	if err != nil {
		t.Fatal(err)
	}
	var scan, idx []string
	for _, d := range docs {
		scan = append(scan, d.ID+"="+d.Content)
	}
	for _, d := range h {
		idx = append(idx, d.ID+"="+d.Content)
	}
	slices.Sort(scan)
	slices.Sort(idx)
	if !slices.Equal(scan, idx) {
		t.Fatalf("%s: the index holds %q, the scan finds %q", what, idx, scan)
	}
}

// step checks the store, applies what changed to h, and wants the index
// to agree with the scan.
func (h held) step(t *testing.T, r *storeRepo, what string) *fresh.Changes {
	t.Helper()
	ch := r.check()
	h.apply(ch)
	h.agrees(t, r, what)
	r.settle()
	return ch
}

func build(t *testing.T, r *storeRepo) (held, *fresh.Changes) {
	t.Helper()
	ch := r.rebuildAt(r.clock.Now().UnixNano())
	h := held{}
	h.apply(ch)
	h.agrees(t, r, "the first build")
	r.settle()
	return h, ch
}

// wantWarning wants a warning for path saying why among ws.
func wantWarning(t *testing.T, what string, ws []entry.Warning, path, why string) {
	t.Helper()
	for _, w := range ws {
		if w.Path == path && w.Message == why {
			return
		}
	}
	t.Fatalf("%s: no warning %s: %s among %v", what, path, why, ws)
}

// A skill directory that is a link to a directory elsewhere (skills
// shared between projects) is not followed: neither indexed nor scanned,
// whatever is done to what it points to, and the first look says why.
// Once a test of a known bug that wanted such a skill indexed.
func TestALinkedSkillDirectoryIsNotFollowed(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		shared := t.TempDir()
		if err := os.WriteFile(shared+"/SKILL.md", []byte(skillFile("shared", "Used by every project.")), 0o644); err != nil {
			t.Fatal(err)
		}
		r.write(".claude/skills/local/SKILL.md", skillFile("local", "Only here."))
		if err := os.Symlink(shared, r.path(".claude/skills/shared")); err != nil {
			t.Fatal(err)
		}
		h, ch := build(t, r)
		wantChanges(t, "the first build", ch, []string{"local"}, nil)
		wantWarning(t, "the first build", ch.Warnings, ".claude/skills/shared", "skipped: a symbolic link")

		if err := os.WriteFile(shared+"/SKILL.md", []byte(skillFile("shared", "Used by every project, edited.")), 0o644); err != nil {
			t.Fatal(err)
		}
		wantChanges(t, "the linked skill edited", h.step(t, r, "the linked skill edited"), nil, nil)
		if err := os.Remove(r.path(".claude/skills/shared")); err != nil {
			t.Fatal(err)
		}
		wantChanges(t, "the link removed", h.step(t, r, "the link removed"), nil, nil)
		if err := os.Symlink(shared, r.path(".claude/skills/shared")); err != nil {
			t.Fatal(err)
		}
		ch = h.step(t, r, "the link made again")
		wantChanges(t, "the link made again", ch, nil, nil)
		wantWarning(t, "the link made again", ch.Warnings, ".claude/skills/shared", "skipped: a symbolic link")

		// A skill that was indexed, replaced by a link to a copy of it
		// elsewhere, is dropped.
		if err := os.RemoveAll(r.path(".claude/skills/local")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(shared, r.path(".claude/skills/local")); err != nil {
			t.Fatal(err)
		}
		wantChanges(t, "a skill replaced by a link", h.step(t, r, "a skill replaced by a link"), nil, []string{".claude/skills/local/SKILL.md"})
	})
}

// .claude/skills, or .claude itself, as a link to a directory of skills
// elsewhere: nothing there is indexed or scanned. Once a test of a known
// bug that wanted those skills indexed.
func TestALinkedSkillsRootIsNotFollowed(t *testing.T) {
	t.Parallel()
	for _, link := range []string{".claude/skills", ".claude"} {
		t.Run(strings.ReplaceAll(link, "/", "_"), func(t *testing.T) {
			sweeps(t, func(t *testing.T, sweep int) {
				r := newStoreRepo(t, sweep)
				shared := t.TempDir()
				skills := shared
				if link == ".claude" {
					skills = filepath.Join(shared, "skills")
				}
				if err := os.MkdirAll(skills+"/review", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(skills+"/review/SKILL.md", []byte(skillFile("review", "Read a change.")), 0o644); err != nil {
					t.Fatal(err)
				}
				os.MkdirAll(filepath.Dir(r.path(link)), 0o755)
				if err := os.Symlink(shared, r.path(link)); err != nil {
					t.Fatal(err)
				}
				h, ch := build(t, r)
				wantChanges(t, "the first build", ch, nil, nil)
				if err := os.WriteFile(skills+"/review/SKILL.md", []byte(skillFile("review", "Read a change twice.")), 0o644); err != nil {
					t.Fatal(err)
				}
				wantChanges(t, "a linked skill edited", h.step(t, r, "a linked skill edited"), nil, nil)
				if err := os.Remove(r.path(link)); err != nil {
					t.Fatal(err)
				}
				wantChanges(t, "the link removed", h.step(t, r, "the link removed"), nil, nil)

				// .claude was a directory, indexed; it is moved aside and
				// a link to where it went put in its place: the same
				// directory, the same stamps, and still not read.
				r.write(".claude/skills/local/SKILL.md", skillFile("local", "Only here."))
				wantChanges(t, "a skill of its own", h.step(t, r, "a skill of its own"), []string{"local"}, nil)
				aside := filepath.Join(t.TempDir(), "claude")
				if err := os.Rename(r.path(".claude"), aside); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(aside, r.path(".claude")); err != nil {
					t.Fatal(err)
				}
				wantChanges(t, ".claude linked to where it was", h.step(t, r, ".claude linked to where it was"), nil, []string{".claude/skills/local/SKILL.md"})
			})
		})
	}
}

// An entry file that is a link to a file elsewhere is not read: an edit
// of what it points to changes nothing, and an indexed entry replaced by
// a link is dropped. Once a test of a known bug that wanted the edit
// seen.
func TestALinkedEntryFileIsNotRead(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		target := t.TempDir() + "/shared.md"
		if err := os.WriteFile(target, []byte(knowledgeFile("Shared", "One.")), 0o644); err != nil {
			t.Fatal(err)
		}
		r.write(knowledgePath("own"), knowledgeFile("Own", "Mine."))
		if err := os.Symlink(target, r.path(knowledgePath("shared"))); err != nil {
			t.Fatal(err)
		}
		h, ch := build(t, r)
		wantChanges(t, "the first build", ch, []string{"own"}, nil)
		wantWarning(t, "the first build", ch.Warnings, knowledgePath("shared"), "skipped: a symbolic link")
		if err := os.WriteFile(target, []byte(knowledgeFile("Shared", "Two, edited through the link.")), 0o644); err != nil {
			t.Fatal(err)
		}
		ch = h.step(t, r, "the linked file edited")
		wantChanges(t, "the linked file edited", ch, nil, nil)
		// Said after every check, as the scan says it every time, though
		// the directory did not change.
		wantWarning(t, "the linked file edited", ch.Warnings, knowledgePath("shared"), "skipped: a symbolic link")
		if err := os.Remove(r.path(knowledgePath("shared"))); err != nil {
			t.Fatal(err)
		}
		if ch = h.step(t, r, "the link removed"); len(ch.Warnings) != 0 {
			t.Fatalf("the link removed: warnings %v", ch.Warnings)
		}

		if err := os.Remove(r.path(knowledgePath("own"))); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", r.path(knowledgePath("own"))); err != nil {
			t.Fatal(err)
		}
		ch = h.step(t, r, "an entry replaced by a link to /dev/zero")
		wantChanges(t, "an entry replaced by a link to /dev/zero", ch, nil, []string{knowledgePath("own")})
		wantWarning(t, "an entry replaced by a link", ch.Warnings, knowledgePath("own"), "skipped: a symbolic link")

		// memories.md, watched before every search, made a link.
		m := r.addMemory("a memory to lose")
		h.step(t, r, "a memory added")
		if err := os.Remove(r.path(entry.MemoriesPath)); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", r.path(entry.MemoriesPath)); err != nil {
			t.Fatal(err)
		}
		ch = h.step(t, r, "memories.md made a link")
		wantChanges(t, "memories.md made a link", ch, nil, []string{memoryDocID(m.ID)})
	})
}

// A skill linked from .claude/skills to lore's own (so that Claude Code
// sees it) is one skill, read where it is, and no warning is said of the
// link — by the check, the scan and mdstore.Skills alike.
func TestASkillLinkedBetweenSkillDirectoriesIsReadOnce(t *testing.T) {
	t.Parallel()
	for _, link := range []struct{ path, target string }{
		{".claude/skills/deploy", "../../.agent/skills/deploy"},
		{".claude/skills", "../.agent/skills"},
	} {
		t.Run(strings.ReplaceAll(link.path, "/", "_"), func(t *testing.T) {
			r := newStoreRepo(t, fresh.DefaultSweepLimit)
			r.write(".agent/skills/deploy/SKILL.md", skillFile("deploy", "Ship a release."))
			os.MkdirAll(filepath.Dir(r.path(link.path)), 0o755)
			if err := os.Symlink(link.target, r.path(link.path)); err != nil {
				t.Fatal(err)
			}
			h, ch := build(t, r)
			wantChanges(t, "the first build", ch, []string{"deploy"}, nil)
			if d := doc(t, ch.Docs, "deploy"); d.ID != ".agent/skills/deploy/SKILL.md" {
				t.Fatalf("the skill's document: %+v", d)
			}
			_, scanWarnings, _ := index.LoadDocs(r.root)
			skills, skillWarnings, err := r.store.Skills()
			if err != nil {
				t.Fatal(err)
			}
			if len(ch.Warnings)+len(scanWarnings)+len(skillWarnings) > 0 {
				t.Fatalf("warnings of a link between skill directories: check %v, scan %v, skills %v", ch.Warnings, scanWarnings, skillWarnings)
			}
			if len(skills) != 1 || skills[0].Path != ".agent/skills/deploy/SKILL.md" {
				t.Fatalf("skills %+v, want deploy once", skills)
			}
			r.write(".agent/skills/deploy/SKILL.md", skillFile("deploy", "Ship a release, then tag it."))
			wantChanges(t, "the skill edited", h.step(t, r, "the skill edited"), []string{"deploy"}, nil)
		})
	}
}

// A FIFO or a file over the cap where an entry would be: skipped with a
// warning, never waited on nor read whole.
func TestAFIFOAndAFileOverTheCapAreSkipped(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		r.write(knowledgePath("own"), knowledgeFile("Own", "Mine."))
		r.write(knowledgePath("huge"), knowledgeFile("Huge", strings.Repeat("word ", entry.FileReadLimit/5)))
		if err := syscall.Mkfifo(r.path(knowledgePath("fifo")), 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		defer loretest.NoHang(t, "the check of a FIFO")()
		h, ch := build(t, r)
		wantChanges(t, "the first build", ch, []string{"own"}, nil)
		wantWarning(t, "the first build", ch.Warnings, knowledgePath("fifo"), "skipped: not a regular file")
		wantWarning(t, "the first build", ch.Warnings, knowledgePath("huge"), "skipped: larger than 1 MiB")
		r.write(knowledgePath("huge"), knowledgeFile("Huge", "Cut down."))
		wantChanges(t, "the huge file cut down", h.step(t, r, "the huge file cut down"), []string{"huge"}, nil)
	})
}
