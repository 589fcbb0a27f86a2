package mdstore

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// CommitMode is config.yaml's "commit" setting.
type CommitMode string

const (
	CommitAuto  CommitMode = "auto"  // commit every change (the default)
	CommitStage CommitMode = "stage" // stage changes, let the person commit
	CommitNone  CommitMode = "none"  // write files only
)

// Config is .agent/config.yaml. A missing or empty file means defaults.
type Config struct {
	Commit CommitMode
	// LockTimeout is how long a write waits for a lock held by another
	// process (index.lock, a branch lock) before it gives up.
	LockTimeout time.Duration
	// Warnings are problems that did not stop lore, such as unknown keys.
	Warnings []Warning
}

// DefaultConfig is the configuration without a config.yaml.
func DefaultConfig() Config {
	return Config{Commit: CommitAuto, LockTimeout: 10 * time.Second}
}

// configKeys are the top-level keys lore knows. Keys that later features
// read ("memories", "skill_injection", "learn") are accepted here already.
var configKeys = map[string]bool{
	"commit": true, "lock_timeout": true,
	"memories": true, "skill_injection": true, "learn": true,
}

// loadConfig reads the config file at path (relPath names it in messages).
// An invalid value is an error naming the key and its line.
func loadConfig(path, relPath string) (Config, error) {
	cfg := DefaultConfig()
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("mdstore: read %s: %w", relPath, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return cfg, &FileError{Path: relPath, Line: yamlErrorLine(err), Msg: "not valid YAML: " + yamlErrorText(err)}
	}
	if len(doc.Content) == 0 {
		return cfg, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return cfg, &FileError{Path: relPath, Line: root.Line, Msg: "expected a mapping of settings (key: value)"}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, value := root.Content[i], root.Content[i+1]
		bad := func(format string, args ...any) error {
			return &FileError{Path: relPath, Line: value.Line, Msg: key.Value + ": " + fmt.Sprintf(format, args...)}
		}
		switch key.Value {
		case "commit":
			mode := CommitMode(strings.ToLower(value.Value))
			if value.Kind != yaml.ScalarNode || (mode != CommitAuto && mode != CommitStage && mode != CommitNone) {
				return cfg, bad("must be auto, stage or none (got %q)", value.Value)
			}
			cfg.Commit = mode
		case "lock_timeout":
			d, err := time.ParseDuration(value.Value)
			if value.Kind != yaml.ScalarNode || err != nil || d <= 0 {
				return cfg, bad("must be a positive duration such as 10s or 500ms (got %q)", value.Value)
			}
			cfg.LockTimeout = d
		default:
			if !configKeys[key.Value] {
				cfg.Warnings = append(cfg.Warnings, Warning{Path: relPath, Line: key.Line, Message: fmt.Sprintf("unknown setting %q ignored", key.Value)})
			}
		}
	}
	return cfg, nil
}

// yamlErrorLine digs the line number out of a yaml.v3 error message
// ("yaml: line 3: …"), 0 if there is none.
func yamlErrorLine(err error) int {
	var n int
	if _, scanErr := fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &n); scanErr == nil {
		return n
	}
	return 0
}

func yamlErrorText(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if _, rest, ok := strings.Cut(msg, ": "); ok && strings.HasPrefix(msg, "line ") {
		return rest
	}
	return msg
}
