package agentout

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"lore/sigils"
)

func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// read reads a fixture as Read tells its format, and checks the format.
func read(t *testing.T, name string, want Format) Output {
	t.Helper()
	data := readFixture(t, name)
	if got := Detect(data); got != want {
		t.Fatalf("%s: Detect = %q, want %q", name, got, want)
	}
	out := Read(data, Auto)
	if out.Format != want {
		t.Fatalf("%s: read as %q, want %q", name, out.Format, want)
	}
	return out
}

func TestClaudeStreamJSON(t *testing.T) {
	out := read(t, "claude-stream-json.jsonl", ClaudeStreamJSON)
	want := Output{
		Format: ClaudeStreamJSON,
		Text:   "I'll create a simple HTML file with \"hello sheenapps\" and then tell you ABRACADABRA when done.\n\nABRACADABRA",
		Files:  []string{"/Users/sh/Sites/sheenapps-claude-worker/index.html"},
		Cwd:    "/Users/sh/Sites/sheenapps-claude-worker",
		Model:  "claude-opus-4-20250514", CostUSD: 0.09007774999999998, DurationSecs: 9.974,
		Tokens: Tokens{Input: 11 + 489 + 29482, Output: 235},
		Values: 6,
	}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got  %+v\nwant %+v", out, want)
	}
}

// TestSigilsReadFromClaudeStreamJSON: the sigils of an assistant's text
// parse as they were written — the learning's attributes unescaped, the
// journal's lines real lines — and a failed Edit is no file modified.
func TestSigilsReadFromClaudeStreamJSON(t *testing.T) {
	out := read(t, "claude-stream-json-sigils.derived.jsonl", ClaudeStreamJSON)
	r := sigils.Parse(out.Text)
	if len(r.Learnings) != 1 || r.Learnings[0].Category != "tool_usage" || !reflect.DeepEqual(r.Learnings[0].Tags, []string{"claude-code", "html"}) {
		t.Fatalf("learnings %+v (skipped %+v) from %q", r.Learnings, r.Skipped, out.Text)
	}
	if r.Journal != "Created index.html with a heading.\nThe README edit failed: its text had changed." {
		t.Errorf("journal %q", r.Journal)
	}
	if r.Task.Outcome != "done" || r.Task.ID != "t-html" {
		t.Errorf("task %+v", r.Task)
	}
	if strings.Count(out.Text, "<task-done>") != 1 {
		t.Errorf("the result repeats the last text, and is read once: %q", out.Text)
	}
	want := []string{"/Users/sh/Sites/sheenapps-claude-worker/index.html", "/Users/sh/Sites/sheenapps-claude-worker/src/app.js"}
	if !reflect.DeepEqual(out.Files, want) {
		t.Errorf("files %q, want %q (the failed Edit of README.md left out)", out.Files, want)
	}
}

func TestClaudeJSON(t *testing.T) {
	// The real capture of a bug: the result is empty. What there is, is read.
	out := read(t, "claude-json-empty-result.json", ClaudeJSON)
	want := Output{Format: ClaudeJSON, CostUSD: 0.079, DurationSecs: 4.047, Tokens: Tokens{Output: 13}, Values: 1}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got  %+v\nwant %+v", out, want)
	}

	// The stream's result line alone is what json prints.
	lines := strings.Split(strings.TrimSpace(string(readFixture(t, "claude-stream-json.jsonl"))), "\n")
	result := []byte(lines[len(lines)-1] + "\n")
	if got := Detect(result); got != ClaudeJSON {
		t.Fatalf("Detect = %q", got)
	}
	if out := Read(result, Auto); out.Text != "ABRACADABRA" || out.CostUSD != 0.09007774999999998 || out.DurationSecs != 9.974 {
		t.Errorf("got %+v", out)
	}

	// --verbose: every message in one array.
	stream := read(t, "claude-stream-json.jsonl", ClaudeStreamJSON)
	array := read(t, "claude-json-verbose-array.derived.json", ClaudeJSON)
	array.Format, array.Values = stream.Format, stream.Values
	if !reflect.DeepEqual(array, stream) {
		t.Errorf("the array reads as\n%+v\nthe stream as\n%+v", array, stream)
	}

	// The array of early versions: the messages themselves.
	early := read(t, "claude-json-early-array.json", ClaudeJSON)
	if early.Text != "Hello!" || early.Model != "claude-3-7-sonnet-20250219" {
		t.Errorf("early array: %+v", early)
	}
}

func TestClaudeErrors(t *testing.T) {
	for _, c := range []struct {
		name, in, text, err string
	}{
		{"is_error result", `{"type":"result","subtype":"success","is_error":true,"result":"API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}","total_cost_usd":0}`,
			`API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, `API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		{"errors without a result", `{"type":"result","subtype":"error_max_turns","is_error":true,"errors":["Reached maximum number of turns (5)"]}`,
			"Reached maximum number of turns (5)", "Reached maximum number of turns (5)"},
		{"a subtype alone", `{"type":"result","subtype":"error_during_execution","is_error":true}`, "", "error_during_execution"},
		{"after the answer", `{"type":"assistant","message":{"content":[{"type":"text","text":"Working on it."}]}}` + "\n" +
			`{"type":"result","subtype":"error_during_execution","is_error":true,"result":"Request was aborted."}`,
			"Working on it.\n\nRequest was aborted.", "Request was aborted."},
	} {
		out := Read([]byte(c.in), Auto)
		if out.Text != c.text || out.Error != c.err {
			t.Errorf("%s: text %q error %q, want %q and %q", c.name, out.Text, out.Error, c.text, c.err)
		}
	}
}

// TestClaudeSubagent: a subagent's text is not the answer; its edits are
// the iteration's.
func TestClaudeSubagent(t *testing.T) {
	in := `{"type":"system","subtype":"init","model":"claude-sonnet-4-5-20250929"}
{"type":"assistant","parent_tool_use_id":"toolu_task","message":{"model":"claude-haiku-4-5-20251001","content":[{"type":"text","text":"Subagent notes <task-done>wrong</task-done>"},{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/r/sub.go","content":"package r"}}]}}
{"type":"assistant","parent_tool_use_id":null,"message":{"model":"<synthetic>","content":[{"type":"text","text":"Done <task-done>t-1</task-done>"},{"type":"tool_use","id":"t2","name":"NotebookEdit","input":{"notebook_path":"/r/n.ipynb"}},{"type":"tool_use","id":"t3","name":"Read","input":{"file_path":"/r/read.go"}}]}}
`
	out := Read([]byte(in), Auto)
	if out.Text != "Done <task-done>t-1</task-done>" || !reflect.DeepEqual(out.Files, []string{"/r/sub.go", "/r/n.ipynb"}) || out.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("got %+v", out)
	}
	// Without init, the last assistant message's model; json's result
	// alone, its dearest model.
	out = Read([]byte(`{"type":"result","result":"ok","modelUsage":{"claude-haiku-4-5":{"costUSD":0.001},"claude-opus-4-6":{"costUSD":0.5}}}`), Auto)
	if out.Model != "claude-opus-4-6" {
		t.Errorf("model %q", out.Model)
	}
}

// TestClaudeCrash: a stream cut off, then what the CLI printed: what
// parsed is kept, and the rest as text.
func TestClaudeCrash(t *testing.T) {
	out := read(t, "claude-stream-json-crash.derived.jsonl", ClaudeStreamJSON)
	lines := strings.Split(string(readFixture(t, "claude-stream-json-crash.derived.jsonl")), "\n")
	want := "I'll create a simple HTML file with \"hello sheenapps\" and then tell you ABRACADABRA when done.\n\n" + lines[3] + "\nError: No messages returned"
	if out.Text != want {
		t.Errorf("text\n%q\nwant\n%q", out.Text, want)
	}
	if !reflect.DeepEqual(out.Files, []string{"/Users/sh/Sites/sheenapps-claude-worker/index.html"}) || out.Values != 3 || out.Unread != 2 {
		t.Errorf("got %+v", out)
	}
}

// TestLinesAmongTheStream: a line that is not the format's is kept where
// it was.
func TestLinesAmongTheStream(t *testing.T) {
	in := `{"type":"assistant","message":{"content":[{"type":"text","text":"one"}]}}
Warning: something the CLI said
  indented, and trailing   

{"type":"assistant","message":{"content":[{"type":"text","text":"two"}]}}
[1, 2]
{"type":"assistant","message":{"content":"three"}}
`
	out := Read([]byte(in), Auto)
	want := "one\n\nWarning: something the CLI said\n  indented, and trailing\n\ntwo\n\n[1, 2]\n\nthree"
	if out.Text != want || out.Values != 3 || out.Unread != 3 {
		t.Errorf("got %q (values %d, unread %d)\nwant %q", out.Text, out.Values, out.Unread, want)
	}
}

func TestCodexJSON(t *testing.T) {
	out := read(t, "codex-exec-json-write.jsonl", CodexJSON)
	want := Output{Format: CodexJSON,
		Text:   "Created `new.txt` with the requested content. Next, you might spot-check it with `cat new.txt` if needed.",
		Files:  []string{"/private/tmp/codex-test/new.txt"},
		Tokens: Tokens{Input: 6015, Output: 65}, Values: 7}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got  %+v\nwant %+v", out, want)
	}
	out = read(t, "codex-exec-json-read.jsonl", CodexJSON)
	if out.Text != "`sample.txt` contains:\n\ntest content" || out.Files != nil {
		t.Errorf("got %+v", out)
	}
	out = read(t, "codex-exec-json-sigils.derived.jsonl", CodexJSON)
	if r := sigils.Parse(out.Text); len(r.Learnings) != 1 || r.Learnings[0].Category != "tool_usage" || r.Task.ID != "t-new" {
		t.Errorf("sigils %+v from %q", r, out.Text)
	}

	// A failed turn; a failed change; Codex 0.44's names of the items
	// (github.com/openai/codex/pull/4525's sample); the last turn's
	// tokens (Codex counts the thread's).
	in := `{"type":"thread.started","thread_id":"t"}
{"type":"item.completed","item":{"id":"item_3","item_type":"assistant_message","text":"Looking."}}
{"type":"item.completed","item":{"id":"item_4","type":"file_change","changes":[{"path":"/r/a.go","kind":"update"}],"status":"failed"}}
{"type":"item.completed","item":{"id":"item_5","type":"file_change","changes":[{"path":"src/b.go","kind":"add"},{"path":"/r/c.go","kind":"delete"}],"status":"completed"}}
{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":1}}
{"type":"error","message":"Reconnecting... 1/5"}
{"type":"turn.completed","usage":{"input_tokens":30,"output_tokens":4}}
{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}
`
	out = Read([]byte(in), Auto)
	want = Output{Format: CodexJSON, Text: "Looking.\n\nReconnecting... 1/5\n\nstream disconnected before completion",
		Files: []string{"src/b.go", "/r/c.go"}, Tokens: Tokens{Input: 30, Output: 4}, Error: "stream disconnected before completion", Values: 8}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got  %+v\nwant %+v", out, want)
	}
}

func TestGeminiJSON(t *testing.T) {
	out := read(t, "gemini-json.json", GeminiJSON)
	want := Output{Format: GeminiJSON, Text: "4", Model: "gemini-2.5-pro", Tokens: Tokens{Input: 7173}, Values: 1}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("got  %+v\nwant %+v", out, want)
	}
	out = read(t, "gemini-json-sigils.derived.json", GeminiJSON)
	if r := sigils.Parse(out.Text); len(r.Learnings) != 1 || r.Task.ID != "t-sum" {
		t.Errorf("sigils %+v from %q", r, out.Text)
	}
	// stderr after the object (lore run ingests both), and the error
	// object gemini-cli's docs (docs/cli/headless.md) describe.
	in := string(readFixture(t, "gemini-json.json")) + "Loaded cached credentials.\n"
	if out := Read([]byte(in), Auto); out.Text != "4\n\nLoaded cached credentials." || out.Unread != 1 {
		t.Errorf("got %+v", out)
	}
	in = "{\n  \"response\": \"\",\n  \"error\": {\n    \"type\": \"ApiError\",\n    \"message\": \"Quota exceeded\",\n    \"code\": 429\n  }\n}\n"
	if out := Read([]byte(in), Auto); out.Format != GeminiJSON || out.Text != "Quota exceeded" || out.Error != "Quota exceeded" {
		t.Errorf("got %+v", out)
	}
}

func TestByteOrderMark(t *testing.T) {
	if out := Read([]byte("\ufeff"+`{"type":"result","result":"x"}`), Auto); out.Format != ClaudeJSON || out.Text != "x" {
		t.Errorf("got %+v", out)
	}
}

func TestDetect(t *testing.T) {
	for in, want := range map[string]Format{
		"":                                   Text,
		"  \n\t":                             Text,
		"Plain <task-done>t-1</task-done>\n": Text,
		`{"name":"a json answer"}`:           Text,
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: Text,
		`[1, 2]`:                            Text,
		`[]`:                                Text,
		`[{"nothing":"known"}]`:             Text,
		`{"type":"system","subtype":"init"`: Text, // cut in its first line: nothing to read
		"\xef\xbb\xbf" + `{"type":"result","result":"x"}`:  ClaudeJSON,
		`{"type":"result","result":"x"}` + "\nstderr\n":    ClaudeStreamJSON,
		`{"type":"system","subtype":"init"}` + "\n{cut":    ClaudeStreamJSON,
		`{"type":"system"}` + "\nnot json\n":               ClaudeStreamJSON,
		`[{"type":"system"},{"type":"result"}]`:            ClaudeJSON,
		`{"type":"turn.started"}`:                          CodexJSON,
		`{"type":"item.completed","item":{}}`:              CodexJSON,
		"{\n  \"response\": \"x\"\n}":                      GeminiJSON,
		`{"stats":{}}`:                                     GeminiJSON,
		`{"type":"system","subtype":"init"}` + "\n{\"a\":": ClaudeStreamJSON,
	} {
		if got := Detect([]byte(in)); got != want {
			t.Errorf("Detect(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTextAsItCame: text, detected or named, is the output byte for byte;
// JSON read as text too; text read as a JSON format loses only the blank
// edges of its lines.
func TestTextAsItCame(t *testing.T) {
	in := "\n  Plain output\r\n<task-done>t-1</task-done>\n\n\n"
	for _, f := range []Format{Auto, Text} {
		if out := Read([]byte(in), f); out.Text != in || out.Format != Text {
			t.Errorf("%s: %+v", f, out)
		}
	}
	stream := string(readFixture(t, "claude-stream-json.jsonl"))
	if out := Read([]byte(stream), Text); out.Text != stream {
		t.Errorf("JSON read as text changed")
	}
	for _, f := range []Format{ClaudeJSON, ClaudeStreamJSON, CodexJSON, GeminiJSON} {
		out := Read([]byte(in), f)
		if out.Text != "Plain output\n<task-done>t-1</task-done>" || out.Format != f || out.Unread != 2 {
			t.Errorf("%s: %+v", f, out)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, f := range Formats {
		if got, err := ParseFormat(string(f)); got != f || err != nil {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
	if got, err := ParseFormat(""); got != Auto || err != nil {
		t.Errorf("ParseFormat(\"\") = %q, %v", got, err)
	}
	if _, err := ParseFormat("stream-json"); err == nil || !strings.Contains(err.Error(), "claude-stream-json") {
		t.Errorf("ParseFormat(stream-json): %v", err)
	}
}

func TestClaudeAssistantContent(t *testing.T) {
	texts, files := ClaudeAssistantContent(json.RawMessage(`[{"type":"text","text":"  a \n"},{"type":"text","text":" "},{"type":"thinking","thinking":"x"},` +
		`{"type":"tool_use","name":"Edit","input":{"file_path":"/a.go"}},{"type":"tool_use","name":"Bash","input":{"command":"rm -rf /"}},` +
		`{"type":"tool_use","name":"NotebookEdit","input":{"file_path":"/b.ipynb"}},{"type":"tool_use","name":"Write","input":"not an object"},"text"]`))
	if !reflect.DeepEqual(texts, []string{"a"}) || !reflect.DeepEqual(files, []string{"/a.go", "/b.ipynb"}) {
		t.Errorf("texts %q files %q", texts, files)
	}
	texts, files = ClaudeAssistantContent(json.RawMessage(`" said as a string "`))
	if !reflect.DeepEqual(texts, []string{"said as a string"}) || files != nil {
		t.Errorf("texts %q files %q", texts, files)
	}
}

// TestLargeOutputsInBoundedMemory: a Write of 8 MiB, a text of 4 MiB on
// one line and 20,000 small lines are read allocating less than 2.5 times
// the input: the Write's content is scanned, not kept.
func TestLargeOutputsInBoundedMemory(t *testing.T) {
	in := bigStream()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := Read(in, Auto)
	runtime.ReadMemStats(&after)
	if !strings.HasSuffix(out.Text, "<task-done>t-1</task-done>") || !reflect.DeepEqual(out.Files, []string{"/r/big.go"}) || out.Values != 20003 {
		t.Fatalf("read %d values, files %q", out.Values, out.Files)
	}
	// 1.8 times the input with Go 1.26's encoding/json; the Write's
	// content kept as a string makes it 3.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 5*uint64(len(in))/2 {
		t.Errorf("reading %d bytes allocated %d (%.2f times)", len(in), alloc, float64(alloc)/float64(len(in)))
	}
}

func FuzzRead(f *testing.F) {
	for _, pattern := range []string{"*.json", "*.jsonl"} {
		files, _ := filepath.Glob(filepath.Join("testdata", pattern))
		for _, file := range files {
			f.Add(readFixture(f, filepath.Base(file)))
		}
	}
	f.Add([]byte(`[{"type":"assistant","message":{"content":"x"}},{"role":"user"}]`))
	f.Add([]byte("{\"type\":\"turn.failed\"}\n{\"type\":\"item.completed\",\"item\":{\"item_type\":\"assistant_message\",\"text\":1}}"))
	f.Add([]byte(`{"type":"result","total_cost_usd":-1,"duration_ms":1e308}` + "\n" + `{"type":"result","duration_ms":1e308,"usage":{"input_tokens":-5}}`))
	f.Add([]byte("{\"response\":7,\"stats\":{\"models\":[]},\"error\":\"x\"}\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		format := Detect(data)
		if format != Text && !StartsAsJSON(string(data)) {
			t.Fatalf("Detect found %q where StartsAsJSON sees no JSON", format)
		}
		out := Read(data, Auto) // must not panic
		if out.Format != format {
			t.Fatalf("Read's format %q, Detect's %q", out.Format, format)
		}
		if format == Text && out.Text != string(data) {
			t.Fatalf("text changed")
		}
		if got := Read(data, Text); got.Text != string(data) {
			t.Fatalf("text read as text changed")
		}
		for _, f := range Formats[2:] {
			out := Read(data, f)
			if out.Unread > strings.Count(string(data), "\n")+1 || out.Values < 0 || !(out.CostUSD >= 0) || !(out.DurationSecs >= 0) ||
				math.IsInf(out.CostUSD+out.DurationSecs, 0) || out.Tokens.Input < 0 || out.Tokens.Output < 0 {
				t.Fatalf("%s: %+v", f, out)
			}
			for _, file := range out.Files {
				if file == "" {
					t.Fatalf("%s: an empty file name", f)
				}
			}
		}
	})
}
