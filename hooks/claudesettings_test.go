package hooks

import (
	"os"
	"path/filepath"
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
	for _, want := range []string{`"model": "sonnet"`, `"cleanupPeriodDays": 30`, `"timeout": 1.5`, `"./scripts/notify.sh"`, `"lore ingest --hook claude"`, `"lore prime --hook claude"`, `"echo <ok>"`} {
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
	// What is left is the user's settings (written by lore's encoder).
	normalized := strings.Replace(user, `\u003cok\u003e`, "<ok>", 1)
	if after != normalized {
		t.Fatalf("after uninstall:\n%s\nwant\n%s", after, normalized)
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
