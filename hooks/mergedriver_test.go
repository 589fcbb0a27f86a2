package hooks

import (
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
	if changed, err := RegisterMergeDriver(s.Repo()); err != nil || !changed {
		t.Fatalf("register: %v, %v", changed, err)
	}
	for _, p := range []string{".agent/memories.md", ".agent/knowledge/x.md", ".agent/journal/run-1/0001.md"} {
		if got := r.Git("check-attr", "merge", "--", p); got != p+": merge: lore" {
			t.Errorf("git check-attr: %s", got)
		}
	}
	if got := r.Git("config", "merge.lore.driver"); got != "lore merge-driver %O %A %B %P" {
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
	if got := MergeDriverCommand(reopen().Repo()); got != "lore merge-driver %O %A %B %P" {
		t.Errorf("driver command %q", got)
	}
	r.AssertClean()
}
