package gitx

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestAuthorFromEnvironmentWins(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Setenv("GIT_AUTHOR_NAME", "Env Author")
	r.Setenv("GIT_AUTHOR_EMAIL", "env@example.com")
	r.Setenv("GIT_COMMITTER_DATE", "@1700000000 +0200")
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("log", "-1", "--format=%an <%ae>|%cn <%ce>|%ct %ci"); got != "Env Author <env@example.com>|Test Person <test@example.com>|1700000000 2023-11-15 00:13:20 +0200" {
		t.Fatalf("log = %q", got)
	}
}

func TestAuthorFromGlobalConfigAndIncludeIf(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Git("config", "--unset", "user.name")
	r.Git("config", "--unset", "user.email")
	work := filepath.Join(r.Home, "work.gitconfig")
	if err := os.WriteFile(work, []byte("[user]\n\temail = work@example.com\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	global := "[user]\n\tname = Global Person\n\temail = home@example.com\n" +
		"[includeIf \"gitdir:" + filepath.Dir(r.Dir) + "/\"]\n\tpath = work.gitconfig\n"
	if err := os.WriteFile(filepath.Join(r.Home, ".gitconfig"), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := r.update(ModeCommit, memPath, appendLine("m"), "lore: add\n"); err != nil {
		t.Fatal(err)
	}
	want := r.Git("var", "GIT_AUTHOR_IDENT") // C git's own answer
	got := r.Git("log", "-1", "--format=%an <%ae>")
	if got != "Global Person <work@example.com>" || want[:len(got)] != got {
		t.Fatalf("author = %q, git var says %q", got, want)
	}
}

func TestIdentityFallbackWithoutConfig(t *testing.T) {
	t.Parallel()
	r := newTestRepoWithCommit(t)
	r.Git("config", "--unset", "user.name")
	r.Git("config", "--unset", "user.email")
	r.Setenv("USER", "agent")
	repo := r.open()
	author, _, err := repo.identities(time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if author.Name == "" || author.Email == "" {
		t.Fatalf("author = %+v", author)
	}
}

func TestParseGitDate(t *testing.T) {
	t.Parallel()
	cases := map[string]int64{
		"@1700000000 +0000":               1700000000,
		"1700000000 -0130":                1700000000,
		"2023-11-14T22:13:20Z":            1700000000,
		"2023-11-14 22:13:20 +0000":       1700000000,
		"Tue, 14 Nov 2023 22:13:20 +0000": 1700000000,
	}
	for in, want := range cases {
		got, err := parseGitDate(in)
		if err != nil || got.Unix() != want {
			t.Errorf("%q: got %v, %v", in, got, err)
		}
	}
	if _, err := parseGitDate("next tuesday"); err == nil {
		t.Error("accepted a bad date")
	}
}
