package gitx

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
	entries, err := parseConfigFile(text)
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
		if _, err := parseConfigFile(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestConfigBooleansAndIncludeOrder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "inc"), []byte("[user]\n\tname = Included\n"), 0o644)
	// The include stands between two settings: the later one wins, as in git.
	os.WriteFile(filepath.Join(dir, "config"), []byte("[user]\n\tname = First\n[include]\n\tpath = inc\n[user]\n\temail = e@x\n[commit]\n\tgpgsign\n[core]\n\tbare =\n"), 0o644)
	c, err := loadConfig(configSource{commonDir: dir, gitDir: dir, getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := c.get("user.name"); v != "Included" {
		t.Fatalf("user.name = %q", v)
	}
	if !c.bool("commit.gpgsign", false) {
		t.Fatal("a bare key is true")
	}
	if c.bool("core.bare", true) {
		t.Fatal("an empty value is false")
	}
}

func FuzzParseConfigFile(f *testing.F) {
	f.Add("[user]\n\tname = \"a\\tb\" # c\n[x \"y\"] k\n")
	f.Add("[s.t]\nk = a\\\nb\n")
	f.Fuzz(func(t *testing.T, text string) {
		entries, err := parseConfigFile(text) // must not panic or hang
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
