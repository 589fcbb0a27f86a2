package gitconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConfigFile(t *testing.T) {
	text := "\ufeff# a comment\n" +
		"[core]\n\tbare = false\n\tfilemode\n" +
		"[User]\n  Name = \"Ada  Lovelace\" ; trailing comment\n  email=ada@example.com#no space needed\n" +
		"[includeIf \"gitdir:~/work/\"]\n\tpath = work.inc\n" +
		"[remote \"Origin\"] url = a\\\n b\n" +
		"[branch.Main]\n\tremote = origin\n" +
		"[alias]\n\tlg = \"log --format=\\\"%h %s\\\"\\t\\n\"\n" +
		"[empty]\n\tvalue =\n"
	entries, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%s|%s|%s|%q|%v", e.section, e.subsection, e.key, e.value, e.bare))
	}
	want := []string{
		`core||bare|"false"|false`,
		`core||filemode|""|true`,
		`user||name|"Ada  Lovelace"|false`,
		`user||email|"ada@example.com"|false`,
		`includeif|gitdir:~/work/|path|"work.inc"|false`,
		`remote|Origin|url|"a b"|false`,
		`branch|main|remote|"origin"|false`,
		`alias||lg|"log --format=\"%h %s\"\t\n"|false`,
		`empty||value|""|false`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s", strings.Join(got, "\n"))
	}
	for _, bad := range []string{"key = outside a section\n", "[unterminated\n", "[s]\nk = \"open quote\n", "[s]\nk = bad \\q escape\n"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestConfigBooleansAndIncludeOrder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "inc"), []byte("[user]\n\tname = Included\n"), 0o644)
	// The include stands between two settings: the later one wins, as in git.
	os.WriteFile(filepath.Join(dir, "config"), []byte("[user]\n\tname = First\n[include]\n\tpath = inc\n[user]\n\temail = e@x\n[commit]\n\tgpgsign\n[core]\n\tbare =\n"), 0o644)
	c, err := Load(Source{CommonDir: dir, GitDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.Get("user.name"); v != "Included" {
		t.Fatalf("user.name = %q", v)
	}
	if !c.Bool("commit.gpgsign", false) {
		t.Fatal("a bare key is true")
	}
	if c.Bool("core.bare", true) {
		t.Fatal("an empty value is false")
	}
}

func FuzzParseConfigFile(f *testing.F) {
	f.Add("[user]\n\tname = \"a\\tb\" # c\n[x \"y\"] k\n")
	f.Add("[s.t]\nk = a\\\nb\n")
	f.Fuzz(func(t *testing.T, text string) {
		entries, err := Parse(text) // must not panic or hang
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.section == "" || e.key == "" || e.line < 1 {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"**/work/**", "/home/me/work/repo/.git", true},
		{"/home/*/work/**", "/home/me/work/repo/.git", true},
		{"/home/*/work/**", "/home/me/x/work/repo/.git", false},
		{"feature/**", "feature/a/b", true},
		{"main", "main", true},
		{"ma?n", "main", true},
		{"[mn]ain", "main", true},
	}
	for _, c := range cases {
		if got := globMatch(c.pattern, c.name, false); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v", c.pattern, c.name, got)
		}
	}
}

func TestSetSectionKeepsTheRestOfTheFile(t *testing.T) {
	text := "[core]\n\tbare = false\n# a comment of the user's\n[merge \"other\"]\n\tdriver = x" // no final line break
	got := SetSection(text, "merge", "lore", []Setting{{Key: "driver", Value: "lore merge-driver %O"}, {Key: "name", Value: " spaced "}})
	want := text + "\n[merge \"lore\"]\n\tdriver = lore merge-driver %O\n\tname = \" spaced \"\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	if again := SetSection(got, "merge", "lore", []Setting{{Key: "driver", Value: "lore merge-driver %O"}}); again != got {
		t.Errorf("setting what is set changed the text:\n%q", again)
	}
	if back := RemoveSection(got, "merge", "lore"); back != text+"\n" {
		t.Errorf("removed:\n%q\nwant\n%q", back, text+"\n")
	}
	if legacy := RemoveSection("[merge.lore]\n\tdriver = x\n[core]\n", "merge", "lore"); legacy != "[core]\n" {
		t.Errorf("the legacy [merge.lore] header: %q", legacy)
	}
}
