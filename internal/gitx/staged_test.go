package gitx

import (
	"strings"
	"testing"
)

// stagedInHead is "path:InHead" for each staged file under .agent.
func stagedInHead(t *testing.T, r *testRepo) string {
	t.Helper()
	files, err := r.open().StagedFiles(".agent")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		mark := "changed"
		if f.InHead {
			mark = "in HEAD"
		}
		out = append(out, f.Path+" "+mark)
	}
	return strings.Join(out, ", ")
}

// TestStagedFilesSayWhatTheCommitChanges: a staged file is InHead when
// HEAD's tree holds the same blob with the same mode at its path, so that
// the pre-commit hook can judge what a commit changes.
func TestStagedFilesSayWhatTheCommitChanges(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.Write(".agent/a.md", "a\n")
	r.Git("add", ".agent/a.md")
	if got := stagedInHead(t, r); got != ".agent/a.md changed" {
		t.Fatalf("on an unborn branch: %s", got)
	}
	r.Commit("initial", map[string]string{".agent/a.md": "a\n", ".agent/k/b.md": "b\n", ".agent/k/c.md": "c\n", "README.md": "r\n"})
	if got := stagedInHead(t, r); got != ".agent/a.md in HEAD, .agent/k/b.md in HEAD, .agent/k/c.md in HEAD" {
		t.Fatalf("after the commit: %s", got)
	}
	r.Write(".agent/k/b.md", "b, changed\n")
	r.Write(".agent/k/d.md", "d\n")
	r.Git("add", ".agent")
	r.Git("update-index", "--chmod=+x", ".agent/k/c.md")
	if got := stagedInHead(t, r); got != ".agent/a.md in HEAD, .agent/k/b.md changed, .agent/k/c.md changed, .agent/k/d.md changed" {
		t.Fatalf("with changes staged: %s", got)
	}
	// What git diff --cached says changes is what is not InHead.
	if got := r.Git("diff", "--cached", "--name-only"); got != ".agent/k/b.md\n.agent/k/c.md\n.agent/k/d.md" {
		t.Fatalf("git diff --cached: %q", got)
	}
}
