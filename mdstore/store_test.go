package mdstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
)

// gitRepo makes a repository with one commit and returns its directory
// and a function that runs C git in it.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	return r.Dir, r.Git
}

// testOptions gives a store a fixed clock and id source.
func testOptions(home string) Options {
	return Options{
		Now:    func() time.Time { return time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC) },
		Random: bytes.NewReader(bytes.Repeat([]byte{0xbe, 0xef, 0x01, 0x02}, 64)),
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
	}
}

func TestStoreAddCommitsOneMemory(t *testing.T) {
	dir, git := gitRepo(t)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	m, res, err := s.AddMemory(NewMemory{Type: "Decision", Content: "  Chose Go for lore.\r\nSingle static binary.  ", Tags: []string{" Arch ", "lang", "arch"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "mem-1800007200-beef" || m.Type != Decision || m.Content != "Chose Go for lore.\nSingle static binary." || strings.Join(m.Tags, ",") != "arch,lang" || m.Created != "2027-01-15" {
		t.Fatalf("memory = %+v", m)
	}
	if res.Mode != "commit" || res.Commit == "" || res.Branch != "main" {
		t.Fatalf("result = %+v", res)
	}
	if got := git("log", "-1", "--format=%s%n%b"); got != "lore: add decision mem-1800007200-beef\nChose Go for lore.\nSingle static binary.\n\nLore-Id: mem-1800007200-beef\nLore-Kind: memory" {
		t.Fatalf("message:\n%s", got)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
	want := strings.Replace(MemoriesTemplate, "## Decisions\n", "## Decisions\n\n### mem-1800007200-beef\n> Chose Go for lore.\n> Single static binary.\n<!-- tags: arch, lang | created: 2027-01-15 -->\n", 1)
	if got := git("show", "HEAD:.agent/memories.md"); got+"\n" != want {
		t.Fatalf("file:\n%s", got)
	}

	// A second add with the same random source must not reuse the id.
	m2, _, err := s.AddMemory(NewMemory{Type: Decision, Content: "another"})
	if err != nil {
		t.Fatal(err)
	}
	if m2.ID == m.ID {
		t.Fatal("id reused")
	}
	got, _, err := s.Memory(m.ID)
	if err != nil || got.Content != m.Content {
		t.Fatalf("Memory(%s) = %+v, %v", m.ID, got, err)
	}
}

func TestStoreRefusesBadInputAndChangesNothing(t *testing.T) {
	dir, git := gitRepo(t)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	cases := []NewMemory{
		{Type: "insight", Content: "x"},
		{Type: Pattern, Content: "   "},
		{Type: Pattern, Content: "x", Tags: []string{"a|b"}},
		{Type: Pattern, Content: "x", Tags: []string{"a", " "}},
		{Type: Pattern, Content: "x", Tags: []string{"end-->"}},
		{Type: Pattern, Content: "bad \xff utf-8"},
	}
	for _, in := range cases {
		_, _, err := s.AddMemory(in)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("%+v: err = %v", in, err)
		}
	}
	if got := git("rev-list", "--count", "HEAD"); got != "1" {
		t.Fatal("a commit was made")
	}
	if _, err := os.Stat(filepath.Join(dir, MemoriesPath)); !os.IsNotExist(err) {
		t.Fatal("memories.md was written")
	}
}

func TestStoreDelete(t *testing.T) {
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	if _, _, err := s.Init(false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, MemoriesPath))
	m, _, err := s.AddMemory(NewMemory{Type: Fix, Content: "restart docker", Tags: []string{"docker"}})
	if err != nil {
		t.Fatal(err)
	}
	deleted, res, err := s.DeleteMemory(m.ID)
	if err != nil || deleted.Content != "restart docker" || res.Commit == "" {
		t.Fatalf("delete: %+v %+v %v", deleted, res, err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, MemoriesPath))
	if !bytes.Equal(before, after) {
		t.Fatalf("file after add+delete:\n%s", after)
	}
	if got := git("log", "--format=%s", "-3"); got != "lore: delete fix "+m.ID+"\nlore: add fix "+m.ID+"\nlore: init memory store" {
		t.Fatalf("log:\n%s", got)
	}
	if _, _, err := s.DeleteMemory(m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if got := git("rev-list", "--count", "HEAD"); got != "4" {
		t.Fatalf("commits = %s", got)
	}
}

func TestStoreInit(t *testing.T) {
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	created, res, err := s.Init(false)
	if err != nil || !created || res.Commit == "" {
		t.Fatalf("init: %v %+v %v", created, res, err)
	}
	if got := git("show", "HEAD:.agent/memories.md"); got+"\n" != MemoriesTemplate {
		t.Fatalf("template:\n%s", got)
	}
	s.AddMemory(NewMemory{Type: Pattern, Content: "keep me"})
	created, _, err = s.Init(false)
	if err != nil || created {
		t.Fatalf("second init: %v %v", created, err)
	}
	if ms, _, _ := s.Memories(); len(ms) != 1 {
		t.Fatal("init without --force changed the file")
	}
	created, _, err = s.Init(true)
	if err != nil || !created {
		t.Fatalf("forced init: %v %v", created, err)
	}
	if ms, _, _ := s.Memories(); len(ms) != 0 {
		t.Fatal("forced init kept memories")
	}
	if got := git("log", "-1", "--format=%s"); got != "lore: reinit memory store" {
		t.Fatalf("log: %s", got)
	}
}

func TestStoreOutsideGit(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if s.InRepository() {
		t.Fatal("thinks it is in a repository")
	}
	_, res, err := s.AddMemory(NewMemory{Type: Context, Content: "no git here"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "files" || len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "not a git repository") {
		t.Fatalf("result = %+v", res)
	}
	if ms, _, _ := s.Memories(); len(ms) != 1 || ms[0].Content != "no git here" {
		t.Fatalf("memories = %+v", ms)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, Dir))
	if len(entries) != 1 {
		t.Fatalf(".agent holds %d entries (a lock left behind?)", len(entries))
	}
}

func TestStoreInSubdirectoryOfRepository(t *testing.T) {
	dir, git := gitRepo(t)
	sub := filepath.Join(dir, "services", "api")
	os.MkdirAll(sub, 0o755)
	s, err := Open(sub, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddMemory(NewMemory{Type: Pattern, Content: "api memory"}); err != nil {
		t.Fatal(err)
	}
	if got := git("diff", "--name-only", "HEAD^", "HEAD"); got != "services/api/.agent/memories.md" {
		t.Fatalf("committed %q", got)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

func TestConfigCommitModes(t *testing.T) {
	for _, tc := range []struct{ mode, status string }{
		{"stage", "A  .agent/memories.md"},
		{"none", "?? .agent/"},
	} {
		dir, git := gitRepo(t)
		os.MkdirAll(filepath.Join(dir, Dir), 0o755)
		os.WriteFile(filepath.Join(dir, ConfigPath), []byte("# settings\ncommit: "+tc.mode+"\n"), 0o644)
		s, err := Open(dir, testOptions(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		_, res, err := s.AddMemory(NewMemory{Type: Pattern, Content: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if res.Commit != "" || git("rev-list", "--count", "HEAD") != "1" {
			t.Fatalf("%s: committed", tc.mode)
		}
		if got := git("status", "--porcelain", "--", ".agent/memories.md"); got != tc.status && !(tc.mode == "none" && got == "?? .agent/memories.md") {
			t.Fatalf("%s: status %q", tc.mode, got)
		}
	}
}

func TestInvalidConfigNamesKeyAndLine(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Dir), 0o755)
	cases := map[string]string{
		"# c\ncommit: yes\n":           ".agent/config.yaml:2: commit: must be auto, stage or none (got \"yes\")",
		"lock_timeout: soon\n":         ".agent/config.yaml:1: lock_timeout: must be a positive duration such as 10s or 500ms (got \"soon\")",
		"commit: auto\n  bad: [indent": ".agent/config.yaml:2: not valid YAML",
		"- a list\n":                   ".agent/config.yaml:1: expected a mapping",
	}
	for content, want := range cases {
		os.WriteFile(filepath.Join(dir, ConfigPath), []byte(content), 0o644)
		_, err := Open(dir, testOptions(t.TempDir()))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", content, err, want)
		}
	}
	os.WriteFile(filepath.Join(dir, ConfigPath), []byte("commit: none\ncommmit: auto\nlearn: false\n"), 0o644)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Config().Warnings; len(w) != 1 || w[0].String() != `.agent/config.yaml:2: unknown setting "commmit" ignored` {
		t.Fatalf("warnings = %v", w)
	}
}

func TestPrimeConfig(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, Dir), 0o755)
	write := func(s string) { os.WriteFile(filepath.Join(dir, ConfigPath), []byte(s), 0o644) }
	load := func() Config {
		t.Helper()
		s, err := Open(dir, testOptions(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		return s.Config()
	}
	if c := load(); c.Memories.Inject != InjectAuto || !c.Memories.SkillInjection || !c.Learn || c.Memories.Budget != 0 || c.Budgets != DefaultBudgets() {
		t.Fatalf("defaults: %+v", c)
	}
	write(`memories:
  enabled: true
  inject: Manual
  budget: 1500
  skill_injection: false
  filter:
    types: [fix, decision]
    tags:
      - sqlite
      - db
    recent: 30
learn: false
budgets:
  journal_tokens: 1000
  previous_attempts_chars: 0
`)
	c := load()
	wantBudgets := DefaultBudgets()
	wantBudgets.Journal, wantBudgets.Attempts = 1000, 0
	want := MemoriesConfig{Inject: InjectManual, Budget: 1500, Filter: MemoriesFilter{Types: []MemoryType{Fix, Decision}, Tags: []string{"sqlite", "db"}, RecentDays: 30}}
	if fmt.Sprint(c.Memories) != fmt.Sprint(want) || c.Learn || c.Budgets != wantBudgets || len(c.Warnings) != 0 {
		t.Fatalf("got %+v", c)
	}
	write("memories:\n  enabled: false\n  inject: auto\nskill_injection: false\n")
	if c := load(); c.Memories.Inject != InjectNone || c.Memories.SkillInjection {
		t.Fatalf("enabled: false: %+v", c.Memories)
	}
	write("memories:\n  inject: auto\n  colour: blue\n  filter:\n    size: 3\n")
	if c := load(); len(c.Warnings) != 2 || c.Warnings[0].String() != `.agent/config.yaml:3: unknown setting "memories.colour" ignored` ||
		c.Warnings[1].String() != `.agent/config.yaml:5: unknown setting "memories.filter.size" ignored` {
		t.Fatalf("warnings %v", c.Warnings)
	}

	bad := map[string]string{
		"memories:\n  inject: always\n":              `.agent/config.yaml:2: memories.inject: must be auto, manual or none (got "always")`,
		"memories: yes\n":                            `.agent/config.yaml:1: memories: must be a mapping of settings`,
		"memories:\n  budget: -5\n":                  `.agent/config.yaml:2: memories.budget: must be a whole number of tokens (0: no total), 0 or more (got "-5")`,
		"memories:\n  budget: lots\n":                `.agent/config.yaml:2: memories.budget: must be a whole number`,
		"memories:\n  skill_injection: maybe\n":      `.agent/config.yaml:2: memories.skill_injection: must be true or false (got "maybe")`,
		"memories:\n  enabled: 1\n":                  `.agent/config.yaml:2: memories.enabled: must be true or false`,
		"memories:\n  filter:\n    types: [fixes]\n": `.agent/config.yaml:3: memories.filter.types: unknown memory type "fixes"`,
		"memories:\n  filter:\n    tags: {a: b}\n":   `.agent/config.yaml:3: memories.filter.tags: must be a list such as [a, b]`,
		"memories:\n  filter:\n    recent: 1.5\n":    `.agent/config.yaml:3: memories.filter.recent: must be a whole number of days (0: no limit), 0 or more (got "1.5")`,
		"learn: no way\n":                            `.agent/config.yaml:1: learn: must be true or false (got "no way")`,
		"skill_injection: 0\n":                       `.agent/config.yaml:1: skill_injection: must be true or false`,
		"budgets:\n  journal: 100\n":                 `.agent/config.yaml:2: budgets.journal: unknown section budget (use previous_attempts_chars,`,
		"budgets:\n  skills_chars: many\n":           `.agent/config.yaml:2: budgets.skills_chars: must be a whole number of characters, 0 or more (got "many")`,
		"budgets:\n  knowledge_tokens: -1\n":         `.agent/config.yaml:2: budgets.knowledge_tokens: must be a whole number of tokens, 0 or more (got "-1")`,
		"budgets: [1, 2]\n":                          `.agent/config.yaml:1: budgets: must be a mapping of settings`,
	}
	for content, want := range bad {
		write(content)
		_, err := Open(dir, testOptions(t.TempDir()))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", content, err, want)
		}
	}
}

// Each share of Budgets is named alike in config.yaml's budgets block and
// in prime's JSON, and every share but the total has a key.
func TestBudgetKeysNameEveryShare(t *testing.T) {
	typ := reflect.TypeOf(Budgets{})
	var b Budgets
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name := f.Tag.Get("json")
		if f.Name == "Total" {
			if b.Share(name) != nil {
				t.Errorf("the total is a share")
			}
			continue
		}
		p := b.Share(name)
		if p == nil {
			t.Errorf("field %s (%q) is not a key of the budgets block", f.Name, name)
			continue
		}
		*p = i + 1
		if got := int(reflect.ValueOf(b).Field(i).Int()); got != i+1 {
			t.Errorf("key %q sets another field than %s", name, f.Name)
		}
	}
	if len(BudgetKeys()) != typ.NumField()-1 {
		t.Errorf("%d keys for %d shares", len(BudgetKeys()), typ.NumField()-1)
	}
}
