package mdstore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"lore/internal/fsx"
	"lore/internal/gitx"
	"lore/internal/loretest"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// Issue 15: files that are not what they seem. The store reads regular
// files only, through no symbolic link, each at most its ReadLimit, and
// says what it skipped and why; it writes nothing through a link.

// warned fails the test unless ws holds exactly the warnings want
// ("path: message"), in any order.
func warned(t *testing.T, what string, ws []entry.Warning, want ...string) {
	t.Helper()
	var got []string
	for _, w := range ws {
		got = append(got, w.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s: warnings %q, want %q", what, got, want)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// A committed link to /dev/zero as memories.md, as a knowledge entry,
// as config.yaml; a FIFO, a file over the cap, a link to a skill outside:
// every reader finishes, with a warning naming each, and reads the rest.
func TestFilesThatAreNotWhatTheySeemAreSkippedWithAWarning(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Write(entry.KnowledgePath("good"), "---\ntitle: \"Good\"\ntags: [\"x\"]\n---\n\nA real entry.\n")
	r.Write(entry.KnowledgePath("huge"), "---\ntitle: \"Huge\"\ntags: [\"x\"]\n---\n\n"+strings.Repeat("word ", entry.FileReadLimit/5)+"\n")
	r.Write(".agent/skills/deploy/SKILL.md", "---\nname: deploy\ndescription: Ship it.\n---\n")
	symlink(t, "/dev/zero", r.Path(entry.MemoriesPath))
	symlink(t, "/dev/zero", r.Path(entry.KnowledgePath("zero")))
	symlink(t, "/dev/stdin", r.Path(entry.LearningPath("l-abcdef")))
	symlink(t, "/dev/zero", r.Path(entry.ConfigPath))
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "SKILL.md"), []byte("---\nname: outside\ndescription: Not ours.\n---\n"), 0o644)
	symlink(t, outside, r.Path(".claude/skills/outside"))
	symlink(t, "../../.agent/skills/deploy", r.Path(".claude/skills/deploy")) // a SkillLink: said nothing of
	r.Git("add", "-A")
	r.Git("commit", "-q", "-m", "files that are not what they seem")
	if err := syscall.Mkfifo(r.Path(entry.JournalPath("run-00000001", 1, "")), 0o644); err != nil {
		os.MkdirAll(r.Path(entry.JournalDir+"/run-00000001"), 0o755)
		if err := syscall.Mkfifo(r.Path(entry.JournalPath("run-00000001", 1, "")), 0o644); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	defer loretest.NoHang(t, "reading the store")()

	s, err := Open(r.Dir, realClock(t))
	if err != nil {
		t.Fatal(err)
	}
	warned(t, "config.yaml", s.Config().Warnings, ".agent/config.yaml: skipped: a symbolic link; the defaults apply")
	if s.Config().Commit != config.CommitAuto {
		t.Errorf("config %+v, want the defaults", s.Config())
	}
	ms, ws, err := s.Memories()
	if err != nil || len(ms) != 0 {
		t.Fatalf("memories %v, %v", ms, err)
	}
	warned(t, "memories", ws, ".agent/memories.md: skipped: a symbolic link")

	entries := []string{
		".agent/knowledge/huge.md: skipped: larger than 1 MiB",
		".agent/knowledge/zero.md: skipped: a symbolic link",
		".agent/learnings/l-abcdef.md: skipped: a symbolic link",
		".agent/journal/run-00000001/0001.md: skipped: not a regular file (a named pipe)",
	}
	for _, when := range []string{"first read", "from the cache"} {
		e, ws, err := s.Entries()
		if err != nil || len(e.Knowledge) != 1 || e.Knowledge[0].Slug != "good" || len(e.Learnings)+len(e.Journal) != 0 {
			t.Fatalf("%s: entries %+v, %v", when, e, err)
		}
		warned(t, "entries, "+when, ws, entries...)
	}
	k, kw, _ := s.Knowledge()
	l, lw, _ := s.Learnings()
	j, jw, _ := s.Journal()
	if len(k) != 1 || len(l)+len(j) != 0 {
		t.Errorf("the loaders read %d, %d, %d entries", len(k), len(l), len(j))
	}
	warned(t, "the loaders", append(append(kw, lw...), jw...), entries...)

	skills, ws, err := s.Skills()
	if err != nil || len(skills) != 1 || skills[0].Path != ".agent/skills/deploy/SKILL.md" {
		t.Fatalf("skills %+v, %v", skills, err)
	}
	warned(t, "skills", ws, ".claude/skills/outside: skipped: a symbolic link")

	// Named on the command line: an error that says why.
	if _, err := s.KnowledgeEntry("zero"); err == nil || err.Error() != ".agent/knowledge/zero.md: not read: a symbolic link" {
		t.Errorf("show of a link: %v", err)
	}
	if _, err := s.KnowledgeEntry("huge"); err == nil || err.Error() != ".agent/knowledge/huge.md: not read: larger than 1 MiB" {
		t.Errorf("show of a huge file: %v", err)
	}

	// lore validate: every one of them is an error, but the SkillLink.
	files, err := s.ValidationFiles(false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range entry.Validate(files, config.Validate) {
		if strings.Contains(p.Message, "lore does not read it") {
			got = append(got, p.Path+": "+string(p.Severity)+": "+strings.SplitN(p.Message, ":", 2)[0])
		}
	}
	want := []string{
		".agent/config.yaml: error: a symbolic link",
		".agent/journal/run-00000001/0001.md: error: not a regular file (a named pipe)",
		".agent/knowledge/huge.md: error: larger than 1 MiB",
		".agent/knowledge/zero.md: error: a symbolic link",
		".agent/learnings/l-abcdef.md: error: a symbolic link",
		".agent/memories.md: error: a symbolic link",
		".claude/skills/outside: error: a symbolic link",
	}
	if !slices.Equal(got, want) {
		t.Errorf("validate:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The staged files, as the pre-commit hook sees them: the links are
	// there as git holds them (mode 120000), the FIFO is not.
	files, err = s.ValidationFiles(true)
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, p := range entry.Validate(files, config.Validate) {
		if strings.Contains(p.Message, "lore does not read it") {
			got = append(got, p.Path+": "+string(p.Severity)+": "+strings.SplitN(p.Message, ":", 2)[0])
		}
	}
	want = slices.DeleteFunc(want, func(s string) bool { return strings.Contains(s, "named pipe") })
	if !slices.Equal(got, want) {
		t.Errorf("validate --staged:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// .agent or .agent/knowledge as a link to a directory outside the
// repository: nothing there is read or shown, nothing is written there,
// and the index never holds both .agent and .agent/….
func TestALinkedStoreDirectoryIsNeitherReadNorWritten(t *testing.T) {
	t.Parallel()
	for _, link := range []string{entry.Dir, entry.KnowledgeDir} {
		t.Run(link, func(t *testing.T) {
			r := loretest.NewRepo(t)
			r.Commit("initial", map[string]string{"README.md": "# p\n"})
			outside := t.TempDir()
			secret := "---\ntitle: \"Outside\"\ntags: [\"x\"]\n---\n\nNot the repository's.\n"
			inside := outside
			if link == entry.Dir {
				inside = filepath.Join(outside, "knowledge")
				os.WriteFile(filepath.Join(outside, "memories.md"), []byte(entry.MemoriesTemplate), 0o644)
			}
			os.MkdirAll(inside, 0o755)
			os.WriteFile(filepath.Join(inside, "outside.md"), []byte(secret), 0o644)
			symlink(t, outside, r.Path(link))
			r.Git("add", "-A")
			r.Git("commit", "-q", "-m", "a link")
			before := snapshot(t, outside)
			head, index := r.Git("rev-parse", "HEAD"), r.Git("ls-files", "-s")

			s, err := Open(r.Dir, testOptions(r.Home))
			if err != nil {
				t.Fatal(err)
			}
			k, ws, err := s.Knowledge()
			if err != nil || len(k) != 0 {
				t.Fatalf("knowledge %+v, %v", k, err)
			}
			e, ews, err := s.Entries()
			if err != nil || len(e.Knowledge) != 0 {
				t.Fatalf("entries %+v, %v", e, err)
			}
			if link == entry.Dir {
				warned(t, "open", s.Config().Warnings, ".agent: skipped: a symbolic link")
				warned(t, "knowledge", ws)
				warned(t, "entries", ews)
			} else {
				warned(t, "knowledge", ws, ".agent/knowledge: skipped: a symbolic link")
				warned(t, "entries", ews, ".agent/knowledge: skipped: a symbolic link")
			}
			if _, err := s.KnowledgeEntry("outside"); !errors.Is(err, entry.ErrNotFound) && (err == nil || !strings.Contains(err.Error(), "not read: a symbolic link")) {
				t.Errorf("show through the link: %v", err)
			}

			_, _, err = s.AddMemory(NewMemory{Type: entry.Pattern, Content: "through the link?"})
			var ue *gitx.UnsafePathError
			var se *fsx.SkipError
			if link == entry.Dir && !errors.As(err, &ue) && !errors.As(err, &se) {
				t.Errorf("add: %v, want a refusal", err)
			}
			_, _, _, err = s.AddKnowledge(entry.NewKnowledge{Title: "New", Body: "Where?", Tags: []string{"x"}})
			if err == nil || !strings.Contains(err.Error(), link+" is a symbolic link") {
				t.Errorf("knowledge add: %v", err)
			}
			_, _, _, err = s.AddLearning(entry.NewLearning{Category: "pattern", Tags: []string{"t"}, Body: "A learning.", Runs: []string{"r1"}})
			if link == entry.Dir && err == nil {
				t.Error("learning add wrote through .agent")
			}
			if after := snapshot(t, outside); after != before {
				t.Errorf("lore wrote outside the repository:\n%s\nwas\n%s", after, before)
			}
			r.AssertHealthy()
			idx := r.Git("ls-files", "-s")
			if link == entry.Dir && (r.Git("rev-parse", "HEAD") != head || idx != index) {
				t.Errorf("HEAD or the index changed:\n%s", idx)
			}
			if strings.Contains(idx, "120000") && strings.Contains(idx, link+"/") {
				t.Errorf("the index holds both %s and files below it:\n%s", link, idx)
			}

			// The person's next git commit -a keeps every memory.
			r.Write("README.md", "# p, edited\n")
			r.Git("commit", "-q", "-a", "-m", "the person's commit")
			r.AssertHealthy()
			if got := r.Git("ls-tree", "-r", "--name-only", "HEAD"); got != r.Git("ls-tree", "-r", "--name-only", "HEAD~1") {
				t.Errorf("git commit -a changed the files of the branch:\n%s", got)
			}
		})
	}
}

// snapshot lists every file under dir with its content.
func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString(p + "\n" + string(data) + "\n")
		}
		return nil
	})
	return b.String()
}

// lore --root .git (or anywhere in a git directory), or a root reached
// through a link: refused before anything is read or written.
func TestARootInsideTheGitDirectoryOrThroughALinkIsRefused(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	outside := t.TempDir()
	symlink(t, outside, r.Path("linked"))
	r.Git("add", "linked")
	r.Git("commit", "-q", "-m", "a link")
	os.MkdirAll(r.Path("sub/.GIT/x"), 0o755)
	for _, root := range []string{r.Path(".git"), r.Path(".git/refs"), r.Path("linked"), r.Path("sub/.GIT/x")} {
		_, err := Open(root, testOptions(r.Home))
		if err == nil {
			t.Errorf("Open(%s) succeeded", root)
			continue
		}
		if !strings.Contains(err.Error(), "the store's root") {
			t.Errorf("Open(%s): %v", root, err)
		}
	}
	r.AssertClean()
	emptyOutside(t, outside)
	if _, err := os.Stat(r.Path(".git/.agent")); err == nil {
		t.Error("lore wrote .git/.agent")
	}
}

func emptyOutside(t *testing.T, dir string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("%s holds %v", dir, entries)
	}
}

// Outside git the state directory is .agent/.lore: a .agent that is a
// link is refused when the store is opened, before a lock, a usage count
// or the current run is written through it.
func TestOutsideGitALinkedAgentIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	outside := t.TempDir()
	symlink(t, outside, filepath.Join(dir, entry.Dir))
	for _, open := range []func() (*Store, error){
		func() (*Store, error) { return Open(dir, testOptions(t.TempDir())) },
		func() (*Store, error) { return Find(dir, testOptions(t.TempDir())) },
	} {
		if _, err := open(); err == nil || !strings.Contains(err.Error(), ".agent: a symbolic link: outside a git repository") {
			t.Errorf("opened: %v", err)
		}
	}
	emptyOutside(t, outside)
}
