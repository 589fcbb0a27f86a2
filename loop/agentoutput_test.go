package loop

import (
	"path/filepath"
	"reflect"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore"
)

// TestRepositoryFiles: the files an agent's output names, made paths of
// the repository as --files are (Store.RepoFile): absolute, or relative to
// the agent's directory when the output says it, each once, never
// .agent/, and those outside it set apart as written.
func TestRepositoryFiles(t *testing.T) {
	repo := loretest.NewRepo(t)
	s, err := Open(OpenOptions{Dir: repo.Dir, Store: mdstore.Options{Getenv: repo.Getenv}}, Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	root := s.Root()
	in := func(parts ...string) string { return filepath.Join(append([]string{root}, parts...)...) }
	files := []string{in("src", "a.go"), "b.go", "../top.go", "../../escape.go", in("src", "a.go"), in(".agent", "memories.md"),
		"../.agent/learnings/l-1.md", "/elsewhere/c.go", in(".agentish", "d.go"), root}
	inside, outside := repositoryFiles(s, in("src"), files)
	if want := []string{"src/a.go", "src/b.go", "top.go", ".agentish/d.go"}; !reflect.DeepEqual(inside, want) {
		t.Errorf("inside %q, want %q", inside, want)
	}
	if want := []string{"../../escape.go", "/elsewhere/c.go", root}; !reflect.DeepEqual(outside, want) {
		t.Errorf("outside %q, want %q", outside, want)
	}
	// No working directory said (or not an absolute one): the top's.
	inside, outside = repositoryFiles(s, "relative/dir", []string{"b.go", "../escape.go"})
	if !reflect.DeepEqual(inside, []string{"b.go"}) || !reflect.DeepEqual(outside, []string{"../escape.go"}) {
		t.Errorf("inside %q outside %q", inside, outside)
	}
}
