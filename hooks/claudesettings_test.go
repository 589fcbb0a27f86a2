package hooks

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestClaudeSettingsCreatedAndRemoved(t *testing.T) {
	root := t.TempDir()
	path := ClaudeSettingsPath(root)
	changed, err := InstallClaude(path)
	if err != nil || !changed {
		t.Fatalf("install: %v, %v", changed, err)
	}
	want := `{
  "hooks": {
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "lore prime --hook claude"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "lore ingest --hook claude"
          }
        ]
      }
    ]
  }
}
`
	if got := readFile(t, path); got != want {
		t.Fatalf("settings:\n%s\nwant\n%s", got, want)
	}
	if changed, err := InstallClaude(path); err != nil || changed {
		t.Fatalf("second install: %v, %v; want no change", changed, err)
	}
	st, _ := ClaudeStatus(path)
	if !st["SessionStart"] || !st["Stop"] {
		t.Fatalf("status %v", st)
	}
	if changed, err := UninstallClaude(path); err != nil || !changed {
		t.Fatalf("uninstall: %v, %v", changed, err)
	}
	if _, err := os.Stat(filepath.Dir(path)); err == nil {
		t.Fatal(".claude/ is still there, empty")
	}
}

// The user's settings — other keys, other hooks of the same events, their
// order, their numbers — come through install and uninstall unchanged.
func TestClaudeSettingsMergedWithTheUsers(t *testing.T) {
	root := t.TempDir()
	path := ClaudeSettingsPath(root)
	user := `{
  "model": "sonnet",
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ],
    "deny": []
  },
  "cleanupPeriodDays": 30,
  "hooks": {
    "Stop": [
      {
        "matcher": "",
        "hooks": [
          {
            "type": "command",
            "command": "./scripts/notify.sh",
            "timeout": 1.5
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "echo \u003cok\u003e"
          }
        ]
      }
    ]
  }
}
`
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(user), 0o644)
	if _, err := InstallClaude(path); err != nil {
		t.Fatal(err)
	}
	got := readFile(t, path)
	for _, want := range []string{`"model": "sonnet"`, `"cleanupPeriodDays": 30`, `"timeout": 1.5`, `"./scripts/notify.sh"`, `"lore ingest --hook claude"`, `"lore prime --hook claude"`, `"echo \u003cok\u003e"`} {
		if !strings.Contains(got, want) {
			t.Errorf("settings lost or lack %s:\n%s", want, got)
		}
	}
	if strings.Index(got, `"model"`) > strings.Index(got, `"permissions"`) || strings.Index(got, `"notify.sh`) > strings.Index(got, "lore ingest") {
		t.Errorf("the order changed:\n%s", got)
	}
	if _, err := UninstallClaude(path); err != nil {
		t.Fatal(err)
	}
	after := readFile(t, path)
	if strings.Contains(after, "lore ") {
		t.Fatalf("lore's hooks are still there:\n%s", after)
	}
	if after != user {
		t.Fatalf("after uninstall:\n%s\nwant\n%s", after, user)
	}
}

func TestClaudeSettingsThatDoNotParseAreLeftAlone(t *testing.T) {
	root := t.TempDir()
	path := ClaudeSettingsPath(root)
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{\"model\": \"sonnet\",}\n"), 0o644)
	if _, err := InstallClaude(path); err == nil || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("err = %v", err)
	}
	if readFile(t, path) != "{\"model\": \"sonnet\",}\n" {
		t.Fatal("the file changed")
	}
}

// reindent writes a two-space indented text with unit for each two spaces
// that start a line.
func reindent(text, unit string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " "))
		lines[i] = strings.Repeat(unit, n/2) + l[n:]
	}
	return strings.Join(lines, "\n")
}

const twoSpaces = `{
  "model": "sonnet",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "./notify.sh"
          }
        ]
      }
    ]
  }
}
`

const userHooksAround = `{
  "permissions": {
    "allow": ["Bash(go test:*)", "Read(~/.zshrc)"],
    "deny": []
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "./check.sh"}]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hi"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "./notify.sh",
            "timeout": 1.5
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "./log.sh"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "gofmt -l ."
          }
        ]
      }
    ]
  },
  "cleanupPeriodDays": 30
}
`

// userSettings are settings files as people write them. Install adds
// lore's hooks to each and changes nothing else; uninstall gives each
// back byte for byte, but where uninstalled says otherwise.
var userSettings = []struct {
	name        string
	text        string
	installed   string // what install writes, where the case pins it
	uninstalled string // what uninstall leaves, where it is not text; "-": no file
}{
	{name: "two spaces", text: twoSpaces},
	{name: "tabs", text: reindent(twoSpaces, "\t"), installed: reindent(`{
  "model": "sonnet",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "./notify.sh"
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "lore ingest --hook claude"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "lore prime --hook claude"
          }
        ]
      }
    ]
  }
}
`, "\t")},
	{name: "four spaces", text: reindent(twoSpaces, "    ")},
	{name: "CRLF", text: strings.ReplaceAll(twoSpaces, "\n", "\r\n")},
	{name: "CRLF and tabs", text: strings.ReplaceAll(reindent(userHooksAround, "\t"), "\n", "\r\n")},
	{name: "no trailing newline", text: strings.TrimSuffix(reindent(twoSpaces, "    "), "\n")},
	{name: "user hooks before and after", text: userHooksAround},
	{name: "no hooks", text: "{\n    \"model\": \"opus\",\n    \"env\": {\"GOFLAGS\": \"-mod=mod\"}\n}\n", installed: `{
    "model": "opus",
    "env": {"GOFLAGS": "-mod=mod"},
    "hooks": {
        "SessionStart": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "lore prime --hook claude"
                    }
                ]
            }
        ],
        "Stop": [
            {
                "hooks": [
                    {
                        "type": "command",
                        "command": "lore ingest --hook claude"
                    }
                ]
            }
        ]
    }
}
`},
	{name: "compact", text: `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]}]}}`,
		installed: `{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"say done"}]},{"hooks":[{"type":"command","command":"lore ingest --hook claude"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"lore prime --hook claude"}]}]}}`},
	{name: "compact with an empty Stop", text: `{"hooks":{"Stop":[]}}`,
		installed: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"lore ingest --hook claude"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"lore prime --hook claude"}]}]}}`,
		// An event list lore filled and emptied again is removed: lore
		// cannot tell it from one it made.
		uninstalled: `{}`},
	{name: "spaces inside brackets and around colons", text: "{ \"model\" : \"opus\", \"hooks\" : { \"Stop\" : [ { \"hooks\" : [ { \"type\" : \"command\", \"command\" : \"a\" } ] } ] } }\n"},
	{name: "a list opened on its key's line", text: `{
  "hooks": {
    "Stop": [{
      "hooks": [{"type": "command", "command": "./notify.sh"}]
    }]
  }
}
`},
	{name: "unicode and escapes", text: `{
  "model": "sonnet",
  "env": {
    "GREETING": "h\u00e9llo w\u00f6rld \ud83c\udf89",
    "QUOTE": "say \"hi\"\tand\\or\/not",
    "PLAIN": "héllo wörld 🎉 日本語"
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "echo \u003cdone\u003e \"ok\""
          }
        ]
      }
    ]
  }
}
`},
	{name: "nested permissions and env", text: `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(npm run lint)",
      "Bash(npm run test:*)"
    ],
    "deny": [
      "Read(./.env)"
    ],
    "additionalDirectories": [],
    "defaultMode": "acceptEdits"
  },
  "env": {
    "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
    "OTEL_METRICS_EXPORTER": "otlp"
  },
  "includeCoAuthoredBy": false,
  "cleanupPeriodDays": 20,
  "statusLine": {"type": "command", "command": "~/.claude/statusline.sh", "padding": 0}
}
`},
	{name: "empty object", text: "{}", installed: `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "lore prime --hook claude"}]}], "Stop": [{"hooks": [{"type": "command", "command": "lore ingest --hook claude"}]}]}}`},
	{name: "empty object and a newline", text: "{}\n"},
	{name: "empty object on two lines", text: "{\n}\n",
		// What install makes of it is what it writes where there is no
		// file: uninstall removes it as a file lore made.
		uninstalled: "-"},
	{name: "empty object on two lines, and a blank line", text: "{\n}\n\n"},
	{name: "empty hooks", text: "{\n    \"hooks\": {}\n}\n",
		// A hooks object lore filled and emptied again is removed.
		uninstalled: "{\n}\n"},
	{name: "empty hooks, two spaces", text: "{\n  \"hooks\": {}\n}\n", uninstalled: "-"},
	{name: "whitespace only", text: "\n\n"},
	{name: "whitespace only, CRLF", text: " \r\n"},
}

func TestClaudeSettingsKeepTheUsersText(t *testing.T) {
	for _, tc := range userSettings {
		t.Run(tc.name, func(t *testing.T) {
			path := ClaudeSettingsPath(t.TempDir())
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(tc.text), 0o644)
			installed := checkInstall(t, path, tc.text)
			if tc.installed != "" && installed != tc.installed {
				t.Errorf("installed:\n%s\nwant\n%s", installed, tc.installed)
			}
			want := tc.text
			if tc.uninstalled != "" {
				want = tc.uninstalled
			}
			checkUninstall(t, path, want)
		})
	}
}

// checkInstall installs lore's hooks into the settings file at path, which
// holds text, checks what it wrote (checkInstalled), and that a second
// install changes nothing. It returns what install wrote.
func checkInstall(t *testing.T, path, text string) string {
	t.Helper()
	if changed, err := InstallClaude(path); err != nil || !changed {
		t.Fatalf("install: %v, %v", changed, err)
	}
	installed := readFile(t, path)
	checkInstalled(t, text, installed)
	if changed, err := InstallClaude(path); err != nil || changed {
		t.Fatalf("second install: %v, %v; want no change", changed, err)
	}
	if again := readFile(t, path); again != installed {
		t.Fatalf("second install changed the file:\n%s", again)
	}
	return installed
}

// checkInstalled checks that install only added lore's hooks to text:
// text is what is left when at most two runs of bytes are cut from
// installed, and installed holds text's settings and lore's hooks, once.
func checkInstalled(t *testing.T, text, installed string) {
	t.Helper()
	if runs, ok := insertedRuns(text, installed); !ok || len(runs) > 2 {
		var added []string
		for _, r := range runs {
			added = append(added, installed[r[0]:r[1]])
		}
		t.Fatalf("install changed more than it added (added %q):\n%s\nwas\n%s", added, installed, text)
	}
	got, err := decodeSettings(installed)
	if err != nil {
		t.Fatalf("install wrote invalid JSON (%v):\n%s", err, installed)
	}
	want, err := decodeSettings(text)
	if err != nil {
		t.Fatal(err)
	}
	withLoresHooks(want)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("install wrote settings\n%#v\nwant\n%#v", got, want)
	}
	for _, h := range ClaudeHooks {
		if n := strings.Count(installed, `"`+h.Command+`"`); n != 1 {
			t.Fatalf("%q is there %d times:\n%s", h.Command, n, installed)
		}
	}
}

// checkUninstall removes lore's hooks from the settings file at path and
// checks that it leaves want ("-": no file).
func checkUninstall(t *testing.T, path, want string) {
	t.Helper()
	if changed, err := UninstallClaude(path); err != nil || !changed {
		t.Fatalf("uninstall: %v, %v", changed, err)
	}
	data, err := os.ReadFile(path)
	switch {
	case want == "-" && err == nil:
		t.Fatalf("uninstall left\n%q\nwant no file", data)
	case want == "-":
	case err != nil:
		t.Fatal(err)
	case string(data) != want:
		t.Fatalf("uninstall left\n%q\nwant\n%q", data, want)
	}
}

// decodeSettings decodes a settings file's text as encoding/json does;
// text with only whitespace is an empty object.
func decodeSettings(text string) (map[string]any, error) {
	settings := map[string]any{}
	if strings.TrimSpace(text) == "" {
		return settings, nil
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	return settings, dec.Decode(&settings)
}

// withLoresHooks adds lore's hooks to decoded settings as Claude Code
// reads them: a group of one command hook at the end of each event's list.
func withLoresHooks(settings map[string]any) {
	hooks, ok := settings["hooks"].(map[string]any)
	if !ok {
		hooks = map[string]any{}
		settings["hooks"] = hooks
	}
	for _, h := range ClaudeHooks {
		groups, _ := hooks[h.Event].([]any)
		hooks[h.Event] = append(groups, map[string]any{
			"hooks": []any{map[string]any{"type": "command", "command": h.Command}},
		})
	}
}

// insertedRuns returns the fewest runs of bytes of after, as [start, end)
// offsets, that leave before when cut from it; false when no runs do.
func insertedRuns(before, after string) ([][2]int, bool) {
	if len(after) < len(before) {
		return nil, false
	}
	// The bytes the two start with are kept (a run cut after some of them
	// can be cut before them instead), and then those they end with.
	prefix := 0
	for prefix < len(before) && before[prefix] == after[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(before)-prefix && before[len(before)-1-suffix] == after[len(after)-1-suffix] {
		suffix++
	}
	runs, ok := fewestRuns(before[prefix:len(before)-suffix], after[prefix:len(after)-suffix])
	for i := range runs {
		runs[i][0] += prefix
		runs[i][1] += prefix
	}
	return runs, ok
}

func fewestRuns(before, after string) ([][2]int, bool) {
	n, extra := len(before), len(after)-len(before)
	// runs[i][k] is the fewest runs cut from after[:i+k] to leave
	// before[:i], its last byte kept (0) or cut (1).
	const none = math.MaxInt16 - 1 // none+1 does not overflow
	w := extra + 1
	runs := [2][]int16{make([]int16, (n+1)*w), make([]int16, (n+1)*w)}
	for s := range runs {
		for i := range runs[s] {
			runs[s][i] = none
		}
	}
	runs[0][0] = 0
	for i := 0; i <= n; i++ {
		for k := 0; k <= extra; k++ {
			kept, cut := runs[0][i*w+k], runs[1][i*w+k]
			if k < extra { // cut after[i+k]
				next := &runs[1][i*w+k+1]
				*next = min(*next, cut, kept+1)
			}
			if i < n && before[i] == after[i+k] { // keep it
				next := &runs[0][(i+1)*w+k]
				*next = min(*next, kept, cut)
			}
		}
	}
	end := n*w + extra
	if min(runs[0][end], runs[1][end]) >= none {
		return nil, false
	}
	// Walk back to the bytes cut, then put them into runs.
	cut := make([]bool, len(after))
	s := 0
	if runs[1][end] < runs[0][end] {
		s = 1
	}
	for i, k := n, extra; i > 0 || k > 0; {
		at := i*w + k
		if s == 1 {
			cut[i+k-1] = true
			if runs[1][at-1] != runs[1][at] {
				s = 0
			}
			k--
			continue
		}
		if runs[0][at-w] != runs[0][at] {
			s = 1
		}
		i--
	}
	var out [][2]int
	for j := range cut {
		switch {
		case cut[j] && (j == 0 || !cut[j-1]):
			out = append(out, [2]int{j, j + 1})
		case cut[j]:
			out[len(out)-1][1] = j + 1
		}
	}
	return out, true
}

// Uninstall finds lore's entries wherever they are — first, in the
// middle, in a group of the user's, twice — and cuts them with their
// separators; a list or object it empties goes, one that was empty stays.
func TestClaudeSettingsUninstallWhereverLoresHooksAre(t *testing.T) {
	const (
		stop  = `{"type": "command", "command": "lore ingest --hook claude"}`
		start = `{"type": "command", "command": "lore prime --hook claude"}`
	)
	for _, tc := range []struct{ name, text, want string }{
		{"first of its list", `{
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    ` + stop + `
                ]
            },
            {
                "hooks": [
                    {"type": "command", "command": "./notify.sh"}
                ]
            }
        ]
    }
}
`, `{
    "hooks": {
        "Stop": [
            {
                "hooks": [
                    {"type": "command", "command": "./notify.sh"}
                ]
            }
        ]
    }
}
`},
		{"in the middle", `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a"}]},{"hooks":[{"type":"command","command":"lore ingest --hook claude"}]},{"hooks":[{"type":"command","command":"b"}]}]}}`,
			`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a"}]},{"hooks":[{"type":"command","command":"b"}]}]}}`},
		{"in a group of the user's", `{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [` + start + `, {"type": "command", "command": "echo hi"}]}]}}`,
			`{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi"}]}]}}`},
		{"events first, spaces around the command", `{
  "hooks": {
    "SessionStart": [{"hooks": [` + start + `]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": " lore ingest --hook claude "}]}]
  },
  "model": "opus"
}`, `{
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}]
  },
  "model": "opus"
}`},
		{"twice, around the user's", `{"hooks": {"Stop": [{"hooks": [` + stop + `]}, {"hooks": [{"type": "command", "command": "b"}]}, {"hooks": [` + stop + `]}]}}`,
			`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "b"}]}]}}`},
		{"twice, before the user's", "{\"hooks\": {\"Stop\": [\r\n\t{\"hooks\": [" + stop + "]},\r\n\t{\"hooks\": [" + stop + "]},\r\n\t{\"hooks\": [{\"type\": \"command\", \"command\": \"b\"}]}\r\n]}}\r\n",
			"{\"hooks\": {\"Stop\": [\r\n\t{\"hooks\": [{\"type\": \"command\", \"command\": \"b\"}]}\r\n]}}\r\n"},
		{"hooks first of the settings", "{\n\t\"hooks\": {\n\t\t\"Stop\": [{\"hooks\": [" + stop + "]}]\n\t},\n\t\"model\": \"x\"\n}\n",
			"{\n\t\"model\": \"x\"\n}\n"},
		{"an empty list stays", `{"hooks":{"Stop":[{"hooks":[` + stop + `]}],"SessionStart":[]}}`, `{"hooks":{"SessionStart":[]}}`},
		{"only lore's, not as lore writes them", `{"hooks": {"Stop": [{"hooks": [` + stop + `]}]}}` + "\n", "{}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := ClaudeSettingsPath(t.TempDir())
			os.MkdirAll(filepath.Dir(path), 0o755)
			os.WriteFile(path, []byte(tc.text), 0o644)
			checkUninstall(t, path, tc.want)
			if changed, err := UninstallClaude(path); err != nil || changed {
				t.Fatalf("second uninstall: %v, %v; want no change", changed, err)
			}
		})
	}
}

// Where lore's SessionStart hook is there, install adds the Stop hook
// alone; settings that hold no lore's hooks, or none where Claude Code
// reads them, are not touched by uninstall.
func TestClaudeSettingsPartlyInstalled(t *testing.T) {
	path := ClaudeSettingsPath(t.TempDir())
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "lore prime --hook claude"}]}]}}`), 0o644)
	if changed, err := InstallClaude(path); err != nil || !changed {
		t.Fatalf("install: %v, %v", changed, err)
	}
	want := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "lore prime --hook claude"}]}], "Stop": [{"hooks": [{"type": "command", "command": "lore ingest --hook claude"}]}]}}`
	if got := readFile(t, path); got != want {
		t.Fatalf("install wrote\n%s\nwant\n%s", got, want)
	}
	for _, text := range []string{`{"hooks": 1}`, `{"model": "opus"}`, "  \n", `{"hooks": {"Stop": [1, {"hooks": {}}, {"hooks": [2]}], "SessionStart": "x"}}`} {
		os.WriteFile(path, []byte(text), 0o644)
		if changed, err := UninstallClaude(path); err != nil || changed {
			t.Fatalf("uninstall from %s: %v, %v; want no change", text, changed, err)
		}
		if got := readFile(t, path); got != text {
			t.Fatalf("uninstall changed %s to %s", text, got)
		}
	}
}

// Settings whose "hooks" or event lists are not what Claude Code reads
// are refused, not replaced.
func TestClaudeSettingsOfAnotherShapeAreLeftAlone(t *testing.T) {
	path := ClaudeSettingsPath(t.TempDir())
	os.MkdirAll(filepath.Dir(path), 0o755)
	for text, msg := range map[string]string{
		`{"hooks": []}`:                          `"hooks" is not an object`,
		`{"hooks": null}`:                        `"hooks" is not an object`,
		`{"hooks": {"Stop": {"hooks": []}}}`:     `"hooks"."Stop" is not a list`,
		`[{"hooks": {}}]`:                        "holds no JSON object",
		"{\"model\": \"a\"}\n{\"model\": \"b\"}": "not valid JSON",
		"\ufeff{}":                               "not valid JSON",
		"\f{}":                                   "not valid JSON",
	} {
		os.WriteFile(path, []byte(text), 0o644)
		if _, err := InstallClaude(path); err == nil || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), "lore changes nothing") {
			t.Errorf("install into %s: err = %v; want %s", text, err, msg)
		}
		if got := readFile(t, path); got != text {
			t.Errorf("install changed %s to %s", text, got)
		}
	}
}
