package mdstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"

	"gopkg.in/yaml.v3"
)

func TestConfigCommitModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ mode, status string }{
		{"stage", "A  .agent/memories.md"},
		{"none", "?? .agent/"},
	} {
		dir, git := gitRepo(t)
		os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
		os.WriteFile(filepath.Join(dir, entry.ConfigPath), []byte("# settings\ncommit: "+tc.mode+"\n"), 0o644)
		s, err := Open(dir, testOptions(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		_, res, err := s.AddMemory(NewMemory{Type: entry.Pattern, Content: "x"})
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
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
	cases := map[string]string{
		"# c\ncommit: yes\n":           ".agent/config.yaml:2: commit: must be auto, stage or none (got \"yes\")",
		"lock_timeout: soon\n":         ".agent/config.yaml:1: lock_timeout: must be a positive duration such as 10s or 500ms (got \"soon\")",
		"commit: auto\n  bad: [indent": ".agent/config.yaml:2: not valid YAML",
		"- a list\n":                   ".agent/config.yaml:1: expected a mapping",
		// yaml.v3 let the last of a key twice win, without a word.
		"commit: none\nlearn: false\ncommit: auto\n":                ".agent/config.yaml:3: commit: set twice (first at line 1): keep one",
		"memories:\n  inject: auto\n  inject: none\n":               ".agent/config.yaml:3: memories.inject: set twice (first at line 2): keep one",
		"learn: true\nprune:\n  recent_use_days: 30\nlearn: true\n": ".agent/config.yaml:4: learn: set twice (first at line 1): keep one",
	}
	for content, want := range cases {
		os.WriteFile(filepath.Join(dir, entry.ConfigPath), []byte(content), 0o644)
		_, err := Open(dir, testOptions(t.TempDir()))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: err = %v, want prefix %q", content, err, want)
		}
	}
	os.WriteFile(filepath.Join(dir, entry.ConfigPath), []byte("commit: none\ncommmit: auto\nlearn: false\n"), 0o644)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if w := s.Config().Warnings; len(w) != 1 || w[0].String() != `.agent/config.yaml:2: unknown setting "commmit" ignored` {
		t.Fatalf("warnings = %v", w)
	}
}

func TestPrimeConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, entry.Dir), 0o755)
	write := func(s string) { os.WriteFile(filepath.Join(dir, entry.ConfigPath), []byte(s), 0o644) }
	load := func() config.Config {
		t.Helper()
		s, err := Open(dir, testOptions(t.TempDir()))
		if err != nil {
			t.Fatal(err)
		}
		return s.Config()
	}
	if c := load(); c.Memories.Inject != config.InjectAuto || !c.Memories.SkillInjection || !c.Learn || c.Memories.Budget != 0 || c.Budgets != config.DefaultBudgets() {
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
	wantBudgets := config.DefaultBudgets()
	wantBudgets.JournalTokens, wantBudgets.AttemptsChars = 1000, 0
	want := config.MemoriesConfig{Inject: config.InjectManual, Budget: 1500, Filter: config.MemoriesFilter{Types: []entry.MemoryType{entry.Fix, entry.Decision}, Tags: []string{"sqlite", "db"}, RecentDays: 30}}
	if fmt.Sprint(c.Memories) != fmt.Sprint(want) || c.Learn || c.Budgets != wantBudgets || len(c.Warnings) != 0 {
		t.Fatalf("got %+v", c)
	}
	write("memories:\n  enabled: false\n  inject: auto\nskill_injection: false\n")
	if c := load(); c.Memories.Inject != config.InjectNone || c.Memories.SkillInjection {
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

func TestModelsConfig(t *testing.T) {
	t.Parallel()
	for content, want := range map[string][]string{
		"":                                     {"haiku", "sonnet", "opus"},
		"models:\n":                            {"haiku", "sonnet", "opus"},
		"models: [gpt-4o-mini, gpt-4o]\n":      {"gpt-4o-mini", "gpt-4o"},
		"models:\n  - small\n  - Large\n":      {"small", "Large"},
		"models: haiku, sonnet ,opus\n":        {"haiku", "sonnet", "opus"},
		"models: opus\n":                       {"opus"},
		"models: [\"claude-sonnet-4-5\", 4]\n": {"claude-sonnet-4-5", "4"},
	} {
		c, err := config.Parse([]byte(content), entry.ConfigPath)
		if err != nil || !reflect.DeepEqual(c.Models, want) || len(c.Warnings) != 0 {
			t.Errorf("%q: models %q, warnings %v, err %v; want %q", content, c.Models, c.Warnings, err, want)
		}
	}
	for content, want := range map[string]string{
		"models: []\n":                     `.agent/config.yaml:1: models: must name at least one model`,
		"models: \"\"\n":                   `.agent/config.yaml:1: models: must be a list of model names, cheapest first (got an empty name)`,
		"models: haiku,,opus\n":            `.agent/config.yaml:1: models: must be a list of model names, cheapest first (got an empty name)`,
		"models: [haiku, \"\"]\n":          `.agent/config.yaml:1: models: must be a list of model names, cheapest first (got an empty name)`,
		"models:\n  - haiku\n  -\n":        `.agent/config.yaml:2: models: must be a list of model names, cheapest first (line 3 is not a name)`,
		"models: [haiku, [sonnet]]\n":      `.agent/config.yaml:1: models: must be a list of model names, cheapest first (line 1 is not a name)`,
		"models: {haiku: 1}\n":             `.agent/config.yaml:1: models: must be a list of model names, cheapest first, such as [haiku, sonnet, opus]`,
		"models: [haiku, sonnet, Haiku]\n": `.agent/config.yaml:1: models: names "Haiku" twice`,
		"models: [claude sonnet]\n":        `.agent/config.yaml:1: models: a model name has no spaces (got "claude sonnet")`,
	} {
		_, err := config.Parse([]byte(content), entry.ConfigPath)
		if err == nil || err.Error() != want {
			t.Errorf("%q: err = %v, want %q", content, err, want)
		}
	}
}

// Each share of Budgets is named alike in config.yaml's budgets block and
// in prime's JSON, and every share but the total has a key.
func TestBudgetKeysNameEveryShare(t *testing.T) {
	t.Parallel()
	typ := reflect.TypeOf(config.Budgets{})
	var b config.Budgets
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		name := f.Tag.Get("json")
		if f.Name == "TotalTokens" {
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
	if len(config.BudgetKeys()) != typ.NumField()-1 {
		t.Errorf("%d keys for %d shares", len(config.BudgetKeys()), typ.NumField()-1)
	}
}

// yaml.v3 says where a syntax error is only in its message: yamlProblem
// must read the messages yaml.v3 really writes.
func TestErrorLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		doc  string
		line int
		msg  string
	}{
		{"a: [unclosed\nb: c\n", 1, "did not find expected ',' or ']'"},
		{"a: b\n  c: d\n", 2, "mapping values are not allowed in this context"},
		{"a: \"x\n", 2, "found unexpected end of stream"},
		{"\tbad: tab\n", 0, "found character that cannot start any token"}, // yaml.v3 names no line here
	}
	for _, c := range cases {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(c.doc), &n)
		if err == nil {
			t.Fatalf("%q parsed", c.doc)
		}
		if line, msg := yamlfm.ErrorLine(err); line != c.line || !strings.Contains(msg, c.msg) {
			t.Errorf("%q: yamlProblem(%q) = %d, %q; want %d, %q", c.doc, err, line, msg, c.line, c.msg)
		}
	}
	if line, msg := yamlfm.ErrorLine(errors.New("yaml: unknown anchor 'x' referenced")); line != 0 || msg != "unknown anchor 'x' referenced" {
		t.Errorf("no line: %d, %q", line, msg)
	}
}
