package hooks

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore"
)

func TestAttributesAreAddedOnceAndTheRestKept(t *testing.T) {
	old := "*.png binary\n# mine\n.agent/memories.md   merge=lore"
	got := string(addAttributes([]byte(old)))
	want := old + "\n\n" + attributesComment + "\n.agent/**/*.md merge=lore\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if addAttributes([]byte(got)) != nil {
		t.Error("a second pass changed the file again")
	}
	if got := string(addAttributes(nil)); got != attributesComment+"\n"+strings.Join(MergeAttributes, "\n")+"\n" {
		t.Errorf("a new file: %q", got)
	}
}

// lore init and lore hooks install commit .gitattributes through the
// store and register the driver in the clone's configuration; git then
// names lore's driver for the store's files.
func TestGitSendsTheStoreFilesToTheDriver(t *testing.T) {
	r := loretest.NewRepo(t)
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Init(false, AttributesEdit); err != nil {
		t.Fatal(err)
	}
	lore := "/opt/lore's tools/100%/lore"
	if changed, err := RegisterMergeDriver(s.Repo(), lore); err != nil || !changed {
		t.Fatalf("register: %v, %v", changed, err)
	}
	for _, p := range []string{".agent/memories.md", ".agent/knowledge/x.md", ".agent/journal/run-1/0001.md"} {
		if got := r.Git("check-attr", "merge", "--", p); got != p+": merge: lore" {
			t.Errorf("git check-attr: %s", got)
		}
	}
	if got := r.Git("config", "merge.lore.driver"); got != mergeDriverCommand(lore) {
		t.Errorf("driver %q", got)
	}
	if ok, err := HasMergeAttributes(s); err != nil || !ok {
		t.Errorf("HasMergeAttributes: %v, %v", ok, err)
	}
	if changed, res, err := s.EditFiles(AttributesEdit); err != nil || changed || res.Commit != "" {
		t.Errorf("a second edit: %v, %+v, %v", changed, res, err)
	}
	reopen := func() *mdstore.Store { // the configuration is read when a repository is opened
		s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	got := RegisteredMergeDriver(reopen().Repo())
	if recorded, ours := DriverLore(got); recorded != lore || !ours {
		t.Errorf("driver command %q records %q (%v)", got, recorded, ours)
	}
	for _, other := range []string{"", legacyDriverCommand, "mytool %A %O %B", "lore_want='/x'; something else"} {
		if recorded, ours := DriverLore(other); ours {
			t.Errorf("DriverLore(%q) = %q, lore's", other, recorded)
		}
	}
	r.AssertClean()
}

// The driver's command decides from lore's exit status whether lore
// merged: 0 clean, 1 conflicts left (what lore wrote stays); above 1 lore
// did not merge (it could not start, or failed before writing), and git
// merge-file merges by lines, leaving markers around both sides. A lore
// stand-in at the recorded path exits with each status; C git merges.
func TestMergeDriverFallsBackOnlyWhenLoreDidNotMerge(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	fake := filepath.Join(t.TempDir(), "lore")
	for _, tt := range []struct {
		status   int
		wantFile string // "" for git merge-file's markers around both sides
	}{
		{0, "merged by lore\n"},
		{1, "lore left markers\n"},
		{2, ""},
		{127, ""},
	} {
		t.Run(strconv.Itoa(tt.status), func(t *testing.T) {
			script := "#!/bin/sh\n[ \"$1\" = merge-driver ] || exit 9\n"
			if tt.wantFile != "" {
				script += "printf '" + strings.TrimSuffix(tt.wantFile, "\n") + "\\n' > \"$3\"\n"
			}
			script += "exit " + strconv.Itoa(tt.status) + "\n"
			if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			r := loretest.NewRepo(t)
			r.Setenv("PATH", filepath.Dir(gitPath)+string(filepath.ListSeparator)+"/usr/bin"+string(filepath.ListSeparator)+"/bin")
			r.Commit("base", map[string]string{".gitattributes": "*.md merge=lore\n", "f.md": "a\nb\nc\n"})
			s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := RegisterMergeDriver(s.Repo(), fake); err != nil {
				t.Fatal(err)
			}
			r.Git("checkout", "-q", "-b", "side")
			r.Commit("side", map[string]string{"f.md": "a\ntheirs\nc\n"})
			r.Git("checkout", "-q", "main")
			r.Commit("main", map[string]string{"f.md": "a\nours\nc\n"})
			out, err := r.GitErr("merge", "--no-edit", "side")
			if (err == nil) != (tt.status == 0) {
				t.Fatalf("git merge: %v\n%s", err, out)
			}
			got := r.Read("f.md")
			want := tt.wantFile
			if want == "" {
				want = "a\n<<<<<<< ours\nours\n=======\ntheirs\n>>>>>>> theirs\nc\n"
				if !strings.Contains(out, "lore merge-driver failed (exit status "+strconv.Itoa(tt.status)+"): git merge-file merges f.md by lines") {
					t.Errorf("git merge said:\n%s", out)
				}
			}
			if got != want {
				t.Fatalf("f.md:\n%s\nwant:\n%s\ngit merge said:\n%s", got, want, out)
			}
			if tt.status != 0 && r.Git("diff", "--name-only", "--diff-filter=U") != "f.md" {
				t.Fatalf("f.md is not unmerged")
			}
		})
	}
}

// CheckMergeDriver registers the driver where .gitattributes sends files
// to it and the configuration has none, runs lore by name, or runs a lore
// that is gone; it leaves a driver of someone else's, and a clone whose
// attributes do not name it.
func TestCheckMergeDriver(t *testing.T) {
	r := loretest.NewRepo(t)
	open := func() *mdstore.Store {
		s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	running := filepath.Join(t.TempDir(), "lore")
	if err := os.WriteFile(running, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := CheckMergeDriver(open(), func() string { return running }); c != (DriverCheck{}) {
		t.Fatalf("no .gitattributes: %+v", c)
	}
	if out, _ := r.GitErr("config", "--get-regexp", "^merge\\."); out != "" {
		t.Fatal("registered without attributes")
	}
	r.Commit("attributes", map[string]string{".gitattributes": "*.png binary\n.agent/**/*.md merge=lore\n"})
	for _, step := range []struct {
		name   string
		before func()
		want   DriverFix
	}{
		{"none", func() {}, DriverAdded},
		{"current", func() {}, DriverKept},
		{"by name", func() { r.Git("config", "merge.lore.driver", legacyDriverCommand) }, DriverUpgraded},
		{"gone", func() { r.Git("config", "merge.lore.driver", mergeDriverCommand("/nowhere/lore")) }, DriverRepaired},
		{"go run", func() {
			r.Git("config", "merge.lore.driver", mergeDriverCommand("/tmp/go-build1/b001/exe/lore"))
		}, DriverGoRun},
		{"previous", func() { r.Git("config", "merge.lore.driver", previousDriverCommand(running)) }, DriverUpdated},
		{"someone else's", func() { r.Git("config", "merge.lore.driver", "mytool %O %A %B") }, DriverKept},
	} {
		step.before()
		before, _ := r.GitErr("config", "merge.lore.driver")
		c := CheckMergeDriver(open(), func() string { return running })
		if c.Fix != step.want || c.Err != nil {
			t.Fatalf("%s: %+v, want %q", step.name, c, step.want)
		}
		got := RegisteredMergeDriver(open().Repo())
		switch {
		case step.want == DriverKept && got != before:
			t.Fatalf("%s: the driver changed to %q", step.name, got)
		case step.want != DriverKept && got != mergeDriverCommand(running):
			t.Fatalf("%s: the driver is %q", step.name, got)
		}
	}
	r.AssertClean()
}
