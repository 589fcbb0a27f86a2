package main

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/internal/loretest"
)

// An importPlacement is a store lore import reads, with a text in one of
// its fields: the files to write under a directory (or the export file,
// "export.json"), or the SQL of a progress.db's rows.
type importPlacement struct {
	name  string
	files map[string]string
	rows  string // SQL for .ralph/progress.db, ? standing for the text
}

// importPlacements puts text in each string of lore's export (every field
// of every kind, found by walking the JSON of testdata/secrets/export.json,
// which fills them all) and in the fields of the seed systems' stores.
func importPlacements(t *testing.T, text string) []importPlacement {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "secrets", "export.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out []importPlacement
	for i := 0; ; i++ {
		var doc any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		path, ok := setNthString(doc, i, text, "")
		if !ok {
			break
		}
		b, _ := json.Marshal(doc)
		out = append(out, importPlacement{name: "export " + path, files: map[string]string{"export.json": string(b)}})
	}
	if len(out) < 45 {
		t.Fatalf("only %d strings in testdata/secrets/export.json", len(out))
	}
	aiwg := func(learning string) map[string]string {
		raw := "[" + learning + "]"
		var compact bytes.Buffer
		json.Compact(&compact, []byte(raw))
		return map[string]string{".aiwg/knowledge/ralph-learnings.json": fmt.Sprintf(`{"checksum": %q, "learnings": %s}`, sha256Hex(compact.Bytes()), raw)}
	}
	q, _ := json.Marshal(text)
	return append(out,
		importPlacement{name: "ralph memories.md content", files: map[string]string{".ralph/agent/memories.md": "# Memories\n\n## Fixes\n\n### mem-1737372000-abcd\n> Deploy with " + text + "\n<!-- tags: x | created: 2025-01-20 -->\n"}},
		importPlacement{name: "ralph memories.md tags", files: map[string]string{".ralph/agent/memories.md": "# Memories\n\n## Fixes\n\n### mem-1737372000-abcd\n> Deploy.\n<!-- tags: x, " + strings.ReplaceAll(text, "|", "") + " | created: 2025-01-20 -->\n"}},
		importPlacement{name: "RefoundAI knowledge title", files: map[string]string{".ralph/knowledge/deploys.md": "---\ntitle: " + string(q) + "\ntags: [ops]\n---\n\nFriday.\n"}},
		importPlacement{name: "RefoundAI knowledge body", files: map[string]string{".ralph/knowledge/deploys.md": "---\ntitle: \"Deploys\"\ntags: [ops]\n---\n\nUse " + text + "\n"}},
		importPlacement{name: "aiwg content", files: aiwg(`{"id": "a", "type": "strategy", "taskType": "t", "content": ` + string(q) + `}`)},
		importPlacement{name: "aiwg content object", files: aiwg(`{"id": "a", "type": "strategy", "taskType": "t", "content": {"description": "d", "how": ` + string(q) + `}}`)},
		importPlacement{name: "aiwg taskType", files: aiwg(`{"id": "a", "type": "strategy", "taskType": ` + string(q) + `, "content": "c"}`)},
		importPlacement{name: "aiwg sourceLoops", files: aiwg(`{"id": "a", "type": "strategy", "taskType": "t", "content": "c", "sourceLoops": [` + string(q) + `]}`)},
		importPlacement{name: "progress.db task_id", rows: "INSERT INTO journal (run_id, iteration, task_id, outcome, created_at) VALUES ('run-1a2b3c4d', 1, ?, 'done', '2026-02-03T10:15:00Z');"},
		importPlacement{name: "progress.db model", rows: "INSERT INTO journal (run_id, iteration, model, outcome, created_at) VALUES ('run-1a2b3c4d', 1, ?, 'done', '2026-02-03T10:15:00Z');"},
		importPlacement{name: "progress.db notes", rows: "INSERT INTO journal (run_id, iteration, notes, outcome, created_at) VALUES ('run-1a2b3c4d', 1, ?, 'done', '2026-02-03T10:15:00Z');"},
	)
}

// setNthString sets the n-th string of the JSON value v (in a walk of its
// objects' keys in order and its arrays) to text, and returns its path.
func setNthString(v any, n int, text, path string) (string, bool) {
	count := 0
	var walk func(v any, path string, set func(string)) (string, bool)
	walk = func(v any, path string, set func(string)) (string, bool) {
		switch x := v.(type) {
		case string:
			if count == n {
				set(text)
				return path, true
			}
			count++
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if p, ok := walk(x[k], path+"."+k, func(s string) { x[k] = s }); ok {
					return p, true
				}
			}
		case []any:
			for i := range x {
				if p, ok := walk(x[i], fmt.Sprintf("%s[%d]", path, i), func(s string) { x[i] = s }); ok {
					return p, true
				}
			}
		}
		return "", false
	}
	return walk(v, path, nil)
}

// checkImports imports each of importPlacements with the text of entry,
// and checks that each is refused, naming the rule, and that the secret
// reached neither the repository nor the terminal. A progress.db is read
// by lore-sqlite: lore runs as its own process beside it.
func checkImports(t *testing.T, r *loretest.Repo, entry corpusEntry, look []string) {
	bins := loretest.Built(t)
	for _, p := range importPlacements(t, entry.text) {
		dir := t.TempDir()
		source := dir
		for name, content := range p.files {
			if name == "export.json" {
				source = filepath.Join(dir, name)
			}
			os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var code int
		var stdout, stderr string
		if p.rows != "" {
			os.MkdirAll(filepath.Join(dir, ".ralph"), 0o755)
			db, err := sql.Open("sqlite", filepath.Join(dir, ".ralph", "progress.db"))
			if err == nil {
				if _, err = db.Exec(progressSchema); err == nil {
					_, err = db.Exec(p.rows, entry.text)
				}
				db.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, err := runLoreIn(t, r, r.Dir, filepath.Join(bins.Dir, "lore"), "import", source)
			stdout, stderr, code = out, errOut, exitCodeOf(err)
		} else {
			code, stdout, stderr = loreIn(r, "", "import", source)
		}
		for _, n := range look {
			if strings.Contains(strings.ToLower(stdout+stderr), strings.ToLower(n)) {
				t.Errorf("import %s: the output shows the secret:\n%s%s", p.name, stdout, stderr)
			}
		}
		if where := r.Holding(look...); len(where) > 0 {
			t.Fatalf("import %s: the repository holds the secret in %v", p.name, where)
		}
		if code != exitUsage || !strings.Contains(stderr, "(rule ") {
			t.Errorf("import %s: exit %d, want it refused naming the rule:\n%s", p.name, code, stderr)
		}
	}
}

// progressSchema is seed 000's journal table, its rows' TEXT a parameter.
const progressSchema = `CREATE TABLE journal (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, iteration INTEGER NOT NULL,
	task_id TEXT, feature_id TEXT, outcome TEXT NOT NULL, model TEXT, duration_secs REAL, cost_usd REAL DEFAULT 0.0,
	files_modified TEXT, notes TEXT, created_at TEXT NOT NULL);
`

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// exitCodeOf is the exit status of a process that ended with err.
func exitCodeOf(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return -1
	}
	return exitOK
}
