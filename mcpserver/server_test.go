package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lore/internal/loretest"
)

// loreBin is a lore (with lore-index and lore-mcp beside it) built once
// for the whole run (loretest.Built): the TypeScript client runs lore mcp,
// the server searches with lore-index, and a test runs the CLI beside the
// server.
var loreBin string

func TestMain(m *testing.M) {
	programs, err := loretest.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	loreBin = filepath.Join(programs.Dir, "lore")
	os.Exit(m.Run())
}

// connect starts the server for the store at root and a client talking
// to it over the SDK's in-memory transport.
func connect(t *testing.T, root *loretest.Repo) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	env := map[string]string{"LORE_INDEX": filepath.Join(filepath.Dir(loreBin), "lore-index")}
	for _, kv := range root.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, set := env[k]; !set {
				env[k] = v
			}
		}
	}
	server := New(Options{Dir: root.Dir, Getenv: func(k string) string { return env[k] }, LoreBinary: func() string { return loreBin }}, "test")
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns its text and structured content.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var structured map[string]any
	if res.StructuredContent != nil {
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &structured)
	}
	return text.String(), structured, res.IsError
}

// ToolListLimit is the most characters lore's tools/list answer may take:
// 1,500 tokens at 4 characters a token.
const ToolListLimit = 1500 * 4

func TestToolListIsSmall(t *testing.T) {
	repo := loretest.NewRepo(t)
	cs := connect(t, repo)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	if got := strings.Join(names, " "); got != "add_knowledge add_learning add_memory ingest prime search show" {
		t.Errorf("tools: %s", got)
	}
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d characters, ~%d tokens", len(data), len(data)/4)
	if len(data) > ToolListLimit {
		t.Errorf("tools/list is %d characters, more than %d (1,500 tokens)", len(data), ToolListLimit)
	}
}

func TestToolsWriteCommitsAndReadBack(t *testing.T) {
	repo := loretest.NewRepo(t)
	cs := connect(t, repo)

	text, st, isErr := call(t, cs, "add_memory", map[string]any{"content": "The upload test needs the fake S3 server running on port 9000.", "type": "fix", "tags": []string{"upload", "s3"}})
	if isErr || !strings.HasPrefix(text, "Added memory mem-") || st["id"] == nil {
		t.Fatalf("add_memory: %q %v", text, st)
	}
	memID := st["id"].(string)
	text, st, isErr = call(t, cs, "add_knowledge", map[string]any{"title": "Release checklist", "body": "Tag, build, publish the checksums.", "tags": []string{"release"}})
	if isErr || !strings.Contains(text, "Added knowledge release-checklist") || st["slug"] != "release-checklist" {
		t.Fatalf("add_knowledge: %q %v", text, st)
	}
	text, st, isErr = call(t, cs, "add_learning", map[string]any{"body": "Run the S3 fake before the upload tests or they hang.", "category": "pitfall", "tags": []string{"upload"}})
	if isErr || !strings.HasPrefix(text, "Added learning l-") {
		t.Fatalf("add_learning: %q %v", text, st)
	}
	text, st, isErr = call(t, cs, "ingest", map[string]any{"output": "Fixed it.\n<journal>Started the S3 fake first; the upload tests pass.</journal>\n<task-done>T-7</task-done>", "run": "run-0000abcd", "files": []string{"src/upload.go"}, "duration_secs": 12.5, "key": "k-1"})
	if isErr || !strings.Contains(text, "Recorded run-0000abcd iteration 1: done") {
		t.Fatalf("ingest: %q %v", text, st)
	}
	// The same key again is the same iteration: nothing new, no commit.
	text, st, isErr = call(t, cs, "ingest", map[string]any{"output": "Fixed it.\n<journal>Started the S3 fake first; the upload tests pass.</journal>\n<task-done>T-7</task-done>", "run": "run-0000abcd", "files": []string{"src/upload.go"}, "duration_secs": 12.5, "key": "k-1"})
	if isErr || !strings.Contains(text, "iteration 1: done") || st["journal_replaced"] != true {
		t.Fatalf("ingest again: %q %v", text, st)
	}

	// Four writes, four commits, nothing else touched.
	if got := repo.Git("rev-list", "--count", "HEAD"); got != "4" {
		t.Errorf("commits: %s", got)
	}
	if got := repo.Git("status", "--porcelain"); got != "" {
		t.Errorf("git status: %q", got)
	}
	repo.AssertHealthy()

	text, st, isErr = call(t, cs, "search", map[string]any{"query": "upload s3", "limit": 5})
	if isErr || !strings.Contains(text, memID) || st["results"] == nil {
		t.Fatalf("search: %q", text)
	}
	text, _, isErr = call(t, cs, "show", map[string]any{"id": memID})
	if isErr || !strings.Contains(text, "fake S3 server") || !strings.Contains(text, "type: fix") {
		t.Fatalf("show: %q", text)
	}
	// The resources: every memory, and one entry by id.
	ctx := context.Background()
	mem, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: MemoriesURI})
	if err != nil || len(mem.Contents) != 1 || !strings.Contains(mem.Contents[0].Text, "fake S3 server") {
		t.Fatalf("%s: %v %+v", MemoriesURI, err, mem)
	}
	entry, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lore://entry/release-checklist"})
	if err != nil || !strings.Contains(entry.Contents[0].Text, "publish the checksums") {
		t.Fatalf("lore://entry/release-checklist: %v %+v", err, entry)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lore://entry/mem-1000000000-dead"}); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("a missing entry: %v", err)
	}

	text, st, isErr = call(t, cs, "prime", map[string]any{"title": "Fix the flaky upload test", "task_id": "T-8"})
	if isErr || !strings.Contains(text, "fake S3 server") || !strings.Contains(text, "Loop status:") || st["sections"] == nil {
		t.Fatalf("prime: %q", text)
	}
}

// TestToolErrorsReadAsTheCLI: a refused secret, a bad tag and an entry
// not found are tool errors in the CLI's words, and the server goes on.
func TestToolErrorsReadAsTheCLI(t *testing.T) {
	repo := loretest.NewRepo(t)
	cs := connect(t, repo)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"add_memory", map[string]any{"content": "the deploy token is ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o"}, "GitHub"},
		{"add_memory", map[string]any{"content": "a fine memory", "tags": []string{"two\nlines"}}, "contains a line break"},
		{"add_memory", map[string]any{"content": "a fine memory", "type": "weird"}, `unknown memory type "weird"`},
		{"show", map[string]any{"id": "mem-1234567890-abcd"}, "not found"},
		{"add_learning", map[string]any{"body": "", "category": "pitfall", "tags": []string{"a"}}, "empty"},
		// Files outside the repository were recorded as the iteration's.
		{"ingest", map[string]any{"output": "<task-done>T-1</task-done>", "run": "run-0000abcd", "files": []string{"src/a.go", "../elsewhere/b.go"}},
			`files: "../elsewhere/b.go" is outside the repository`},
		{"ingest", map[string]any{"output": "<task-done>T-1</task-done>", "run": "run-0000abcd", "files": []string{"/etc/passwd"}},
			`files: "/etc/passwd" is outside the repository`},
	} {
		text, _, isErr := call(t, cs, tc.tool, tc.args)
		if !isErr || !strings.Contains(text, tc.want) || strings.HasPrefix(text, "Error: ") {
			t.Errorf("%s %v: error %v, %q; want a tool error saying %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
	if got := repo.Git("rev-list", "--all", "--count"); got != "0" {
		t.Errorf("refused writes committed %s", got)
	}
	// Still serving.
	if _, _, isErr := call(t, cs, "add_memory", map[string]any{"content": "after the errors"}); isErr {
		t.Error("the server stopped answering after errors")
	}
}

// TestServerWritesBesideCLIAndGit: the server adds memories while a CLI
// lore add loop and a C git commit loop run; every write is there and the
// repository is sound.
func TestServerWritesBesideCLIAndGit(t *testing.T) {
	repo := loretest.NewRepo(t)
	repo.Git("commit", "-q", "--allow-empty", "-m", "start")
	cs := connect(t, repo)
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	wg.Add(3)
	go func() {
		defer wg.Done()
		for i := range n {
			if text, _, isErr := call(t, cs, "add_memory", map[string]any{"content": fmt.Sprintf("server memory number %d about the cache", i)}); isErr {
				errs <- fmt.Errorf("server write %d: %s", i, text)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range n {
			cmd := exec.Command(loreBin, "--root", repo.Dir, "add", fmt.Sprintf("cli memory number %d about the parser", i))
			cmd.Env = repo.Environ()
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("lore add %d: %v %s", i, err, out)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for i := range n {
			name := fmt.Sprintf("file%d.txt", i)
			os.WriteFile(filepath.Join(repo.Dir, name), []byte(name), 0o644)
			cmd := exec.Command("git", "-C", repo.Dir, "add", name)
			cmd.Env = repo.Environ()
			out, err := cmd.CombinedOutput()
			if err == nil {
				cmd = exec.Command("git", "-C", repo.Dir, "commit", "-q", "-m", name, "--", name)
				cmd.Env = repo.Environ()
				out, err = cmd.CombinedOutput()
			}
			// C git does not wait for a lock lore holds, and git commit
			// reads HEAD before it takes index.lock: when lore commits in
			// between, git's compare-and-set of the branch refuses
			// ("cannot lock ref 'HEAD': is at …").
			if err != nil && !strings.Contains(string(out), "index.lock") && !strings.Contains(string(out), "cannot lock ref") {
				errs <- fmt.Errorf("git commit %d: %v %s", i, err, out)
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	memories, err := os.ReadFile(filepath.Join(repo.Dir, ".agent", "memories.md"))
	if err != nil {
		t.Fatal(err)
	}
	committed := repo.Git("show", "HEAD:.agent/memories.md")
	for i := range n {
		for _, want := range []string{fmt.Sprintf("server memory number %d ", i), fmt.Sprintf("cli memory number %d ", i)} {
			if !strings.Contains(string(memories), want) || !strings.Contains(committed, want) {
				t.Errorf("%q is lost", want)
			}
		}
	}
	repo.AssertHealthy()
}

// TestTypeScriptClient: the official MCP TypeScript SDK's client (npm's
// @modelcontextprotocol/sdk, in testdata/ts-client) starts lore mcp over
// stdio, lists the tools and calls each; C git checks the repository
// after. It needs node and the package installed (npm ci there, which
// .ci/run does); without them it is skipped, unless LORE_TEST_NODE=required.
func TestTypeScriptClient(t *testing.T) {
	node, dir := tsClient(t)
	repo := loretest.NewRepo(t)
	// A memory citing a file that a later commit changed: search and
	// prime must mark it stale for this client too.
	repo.Commit("the code", map[string]string{"src/login.go": "package login\n\n// cookies\n"})
	add := exec.Command(loreBin, "add", "Sessions are cookies: src/login.go sets them", "--format", "quiet")
	add.Dir, add.Env = repo.Dir, repo.Environ()
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("lore add: %v\n%s", err, out)
	}
	repo.Commit("Switch sessions to JWT", map[string]string{"src/login.go": "package login\n\n// JWT\n"})
	cmd := exec.Command(node, filepath.Join(dir, "client.mjs"), loreBin, repo.Dir)
	cmd.Env = repo.Environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	steps := map[string]struct {
		Names      []string       `json:"names"`
		Chars      int            `json:"chars"`
		IsError    bool           `json:"isError"`
		Text       string         `json:"text"`
		Structured map[string]any `json:"structured"`
	}{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var step struct {
			Step string `json:"step"`
		}
		if err := json.Unmarshal([]byte(line), &step); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		v := steps[step.Step]
		json.Unmarshal([]byte(line), &v)
		steps[step.Step] = v
	}
	tools := steps["tools"]
	if strings.Join(tools.Names, " ") != "add_knowledge add_learning add_memory ingest prime search show" {
		t.Errorf("tools: %v", tools.Names)
	}
	t.Logf("tools/list as the TypeScript client got it: %d characters, ~%d tokens", tools.Chars, tools.Chars/4)
	if tools.Chars > ToolListLimit {
		t.Errorf("tools/list is %d characters, more than %d", tools.Chars, ToolListLimit)
	}
	for _, name := range []string{"add_knowledge", "add_learning", "ingest", "search", "prime", "show-added"} {
		if s := steps[name]; s.IsError || s.Text == "" {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if s := steps["add_memory"]; !s.IsError || !strings.Contains(s.Text, "GitHub") {
		t.Errorf("the secret was not refused as the CLI refuses it: %+v", s) // the last add_memory call
	}
	if s := steps["show"]; !s.IsError || s.Text != "Memory not found: mem-1000000000-dead" {
		t.Errorf("show of a missing memory: %+v", s)
	}
	if s := steps["show-added"]; !strings.Contains(s.Text, "fake S3 server on port 9000") {
		t.Errorf("the memory added is not shown: %q", s.Text)
	}
	if !strings.Contains(steps["prime"].Text, "fake S3 server") {
		t.Errorf("prime does not carry the memory: %q", steps["prime"].Text)
	}
	for _, step := range []string{"search-stale", "prime-stale"} {
		if s := steps[step]; s.IsError || !strings.Contains(s.Text, "tale: cites `src/login.go`, changed in 1 commit since") || !strings.Contains(s.Text, "Switch sessions to JWT") {
			t.Errorf("%s does not mark the memory whose cited file changed: %+v", step, s)
		}
	}
	// Four writes, four commits (after the test's three); the secret is
	// nowhere.
	if got := repo.Git("rev-list", "--count", "HEAD"); got != "7" {
		t.Errorf("commits: %s", got)
	}
	repo.AssertClean()
	if where := repo.Holding("ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o"); len(where) > 0 {
		t.Errorf("the refused secret is in %v", where)
	}
}

// tsClient is node and the directory of the TypeScript SDK's client
// scripts; without them the test is skipped, unless LORE_TEST_NODE=required.
func tsClient(t *testing.T) (node, dir string) {
	t.Helper()
	dir, err := filepath.Abs("testdata/ts-client")
	if err != nil {
		t.Fatal(err)
	}
	skip := func(why string) {
		t.Helper()
		if os.Getenv("LORE_TEST_NODE") == "required" {
			t.Fatal(why)
		}
		t.Skip(why)
	}
	node, err = exec.LookPath("node")
	if err != nil {
		skip("node is not installed: the TypeScript SDK client test needs node, and npm ci in " + dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		skip("the TypeScript SDK is not installed: run npm ci in " + dir)
	}
	return node, dir
}

// TestWriteDuringARebaseIsQueued: a write while git is in the middle of a
// rebase is queued, as the CLI's is, and the text says so; the next lore
// write after the rebase commits it.
func TestWriteDuringARebaseIsQueued(t *testing.T) {
	repo := loretest.NewRepo(t)
	repo.Commit("base", map[string]string{"f": "a\n"})
	repo.Git("checkout", "-q", "-b", "side")
	repo.Commit("side", map[string]string{"f": "side\n"})
	repo.Git("checkout", "-q", "main")
	repo.Commit("main", map[string]string{"f": "main\n"})
	repo.Git("checkout", "-q", "side")
	if _, err := repo.GitErr("rebase", "main"); err == nil {
		t.Fatal("the rebase did not stop on its conflict")
	}
	cs := connect(t, repo)
	text, st, isErr := call(t, cs, "add_memory", map[string]any{"content": "written while a rebase is in progress", "type": "fix"})
	if isErr || !strings.HasPrefix(text, "Not committed yet: memory mem-") || !strings.Contains(text, "rebase is in progress") || st["commit"] != nil {
		t.Fatalf("add_memory during a rebase: %v %q %v", isErr, text, st)
	}
	repo.Git("rebase", "--abort")
	cmd := exec.Command(loreBin, "--root", repo.Dir, "add", "after the rebase")
	cmd.Env = repo.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lore add: %v %s", err, out)
	}
	if log := repo.Git("log", "--format=%s", "-3"); !strings.Contains(log, "lore: add fix "+st["id"].(string)) {
		t.Errorf("the queued memory was not committed:\n%s", log)
	}
	repo.AssertClean()
}

// TestSearchHonoursLimit: a search gives at most limit results and says
// how many entries match in all.
func TestSearchHonoursLimit(t *testing.T) {
	repo := loretest.NewRepo(t)
	cs := connect(t, repo)
	for i := range 14 {
		if text, _, isErr := call(t, cs, "add_memory", map[string]any{"content": fmt.Sprintf("The cache of module %d is warmed before the benchmark.", i)}); isErr {
			t.Fatal(text)
		}
	}
	text, st, isErr := call(t, cs, "search", map[string]any{"query": "cache warmed benchmark", "limit": 2})
	if isErr {
		t.Fatal(text)
	}
	results, _ := st["results"].([]any)
	if len(results) != 2 || st["total"] != float64(14) || !strings.HasPrefix(text, "2 of 14 entries match") || strings.Count(text, "\n- ") != 2 {
		t.Fatalf("limit 2: %d results, total %v:\n%s", len(results), st["total"], text)
	}
	if strings.Contains(text, "--all") {
		t.Errorf("the text names a CLI flag the client cannot give:\n%s", text)
	}
	_, st, _ = call(t, cs, "search", map[string]any{"query": "cache warmed benchmark"})
	if results, _ := st["results"].([]any); len(results) != searchDefault {
		t.Errorf("no limit: %d results, want %d", len(results), searchDefault)
	}
}

// TestIngestReadsAnAgentCLIsJSON: an output in Claude Code's json is read
// as the text the agent said, with the model, cost and duration it
// reports; what the caller gives wins over the format's.
func TestIngestReadsAnAgentCLIsJSON(t *testing.T) {
	repo := loretest.NewRepo(t)
	cs := connect(t, repo)
	result := `{"type":"result","subtype":"success","is_error":false,"duration_ms":4047,"total_cost_usd":0.079,` +
		`"modelUsage":{"claude-sonnet-4-5-20250929":{"costUSD":0.079}},` +
		`"result":"Signed the URLs.\n<learning category=\"pitfall\" tags=\"upload\">Signed URLs expire after an hour.</learning>\n<task-done>T-9</task-done>"}`
	_, st, isErr := call(t, cs, "ingest", map[string]any{"output": result, "run": "run-0000abcd", "files": []string{"src/sign.go"}})
	if isErr {
		t.Fatalf("ingest: %v", st)
	}
	j := st["journal"].(map[string]any)
	if j["outcome"] != "done" || j["model"] != "claude-sonnet-4-5-20250929" || j["cost_usd"] != 0.079 || j["duration_secs"] != 4.047 {
		t.Errorf("journal %v", j)
	}
	_, st, _ = call(t, cs, "ingest", map[string]any{"output": result, "run": "run-0000abcd", "model": "opus", "duration_secs": 12.5})
	if j := st["journal"].(map[string]any); j["model"] != "opus" || j["duration_secs"] != 12.5 || j["cost_usd"] != 0.079 {
		t.Errorf("what the caller gives wins: journal %v", j)
	}
	if files := j["files_modified"].([]any); len(files) != 1 || files[0] != "src/sign.go" {
		t.Errorf("files %v", files)
	}
	if l := st["learnings"].([]any); len(l) != 1 || st["skipped"] != nil && len(st["skipped"].([]any)) > 0 {
		t.Errorf("learnings %v, skipped %v", l, st["skipped"])
	}
}

// TestEntryResourceServesEveryKind: lore://entry/{id} reads a memory, a
// knowledge entry, a learning, an iteration (its id's "/" as it is or
// escaped) and a skill; an id of nothing is a not-found error.
func TestEntryResourceServesEveryKind(t *testing.T) {
	repo := loretest.NewRepo(t)
	repo.Commit("a skill", map[string]string{".agent/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship a release to staging.\n---\n\nSteps.\n"})
	cs := connect(t, repo)
	_, mem, _ := call(t, cs, "add_memory", map[string]any{"content": "Uploads go through the signed URL endpoint.", "type": "decision"})
	call(t, cs, "add_knowledge", map[string]any{"title": "Release checklist", "body": "Tag, build, publish the checksums.", "tags": []string{"release"}})
	_, lrn, _ := call(t, cs, "add_learning", map[string]any{"body": "Run the S3 fake before the upload tests or they hang.", "category": "pitfall", "tags": []string{"upload"}})
	_, ing, _ := call(t, cs, "ingest", map[string]any{"output": "<journal>Signed the upload URLs.</journal>\n<task-done>T-9</task-done>", "run": "run-0000abcd"})
	journal := ing["journal"].(map[string]any)
	key := journal["run_id"].(string) + "/" + strings.TrimSuffix(filepath.Base(journal["path"].(string)), ".md")
	ctx := context.Background()
	for _, tc := range []struct{ id, want string }{
		{mem["id"].(string), "signed URL endpoint"},
		{"release-checklist", "publish the checksums"},
		{lrn["id"].(string), "S3 fake"},
		{key, "Signed the upload URLs"},
		{strings.ReplaceAll(key, "/", "%2F"), "Signed the upload URLs"},
		{"deploy", "Ship a release to staging"},
	} {
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lore://entry/" + tc.id})
		if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, tc.want) {
			t.Errorf("lore://entry/%s: %v %+v", tc.id, err, res)
		}
	}
	for _, id := range []string{"run-0000abcd/0099", "mem-1000000000-dead", "no-such-slug"} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lore://entry/" + id}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("lore://entry/%s: %v, want not found", id, err)
		}
	}
}

// TestErrorsAreWordedByType: an entry that is there but cannot be read, a
// lock another process holds and a bad argument are tool errors that say
// so in lore's words — never "not found".
func TestErrorsAreWordedByType(t *testing.T) {
	repo := loretest.NewRepo(t)
	cs := connect(t, repo)
	_, lrn, _ := call(t, cs, "add_learning", map[string]any{"body": "Close the pool before the test ends.", "category": "pitfall", "tags": []string{"db"}})
	id := lrn["id"].(string)
	os.WriteFile(filepath.Join(repo.Dir, ".agent", "learnings", id+".md"), []byte("---\nid: [broken\n---\n"), 0o644)
	if text, _, isErr := call(t, cs, "show", map[string]any{"id": id}); !isErr || strings.Contains(text, "not found") || !strings.Contains(text, id+".md") {
		t.Errorf("a damaged learning: %v %q; want an error naming its file", isErr, text)
	}
	repo.Git("checkout", "--", ".agent")

	lock := filepath.Join(repo.Dir, ".git", "index.lock")
	os.WriteFile(lock, nil, 0o644)
	os.WriteFile(filepath.Join(repo.Dir, ".agent", "config.yaml"), []byte("lock_timeout: 50ms\n"), 0o644)
	text, _, isErr := call(t, cs, "add_memory", map[string]any{"content": "written while git holds its lock"})
	if !isErr || strings.Contains(text, "not found") || !strings.Contains(text, "index.lock") {
		t.Errorf("a held lock: %v %q; want an error naming index.lock", isErr, text)
	}
	os.Remove(lock)

	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"search", map[string]any{"query": "pool", "kind": "recipe"}, `unknown kind "recipe"`},
		{"search", map[string]any{"query": "pool", "limit": -1}, "limit must be 1 or more"},
		{"prime", map[string]any{"budget": -5}, "budget must be"},
	} {
		if text, _, isErr := call(t, cs, tc.tool, tc.args); !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: %v %q, want %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
}

// TestSearchMarksStaleEntries: a memory whose cited file changed since
// is marked in the search tool's text and structured answer, as lore
// search marks it (issue 38); the prime tool marks it too.
func TestSearchMarksStaleEntries(t *testing.T) {
	repo := loretest.NewRepo(t)
	repo.Commit("code", map[string]string{"src/login.go": "package auth\n"})
	runLore(t, repo, "init")
	runLore(t, repo, "add", "Sessions are cookies, set in src/login.go", "-t", "decision")
	repo.Commit("Switch sessions to JWT", map[string]string{"src/login.go": "package auth // jwt\n"})
	cs := connect(t, repo)
	text, structured, isErr := call(t, cs, "search", map[string]any{"query": "sessions cookies"})
	if isErr || !strings.Contains(text, "⚠ stale: cites `src/login.go`, changed in 1 commit since") {
		t.Fatalf("search text:\n%s", text)
	}
	if stale, _ := structured["stale"].(map[string]any); len(stale) != 1 {
		t.Errorf("structured stale: %v", structured["stale"])
	}
	text, _, _ = call(t, cs, "prime", map[string]any{"title": "Fix the session cookies"})
	if !strings.Contains(text, "_⚠ Stale: cites `src/login.go`") {
		t.Errorf("prime:\n%s", text)
	}
}

// runLore runs the lore binary in repo, failing the test on an error.
func runLore(t *testing.T, repo *loretest.Repo, args ...string) {
	t.Helper()
	cmd := exec.Command(loreBin, args...)
	cmd.Dir, cmd.Env = repo.Dir, repo.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lore %v: %v\n%s", args, err, out)
	}
}

// TestAddSupersedes: supersedes on an add tool retires the old entry in
// the new one's commit, as lore add --supersedes does.
func TestAddSupersedes(t *testing.T) {
	repo := loretest.NewRepo(t)
	cs := connect(t, repo)
	_, st, isErr := call(t, cs, "add_memory", map[string]any{"content": "Uploads go to the S3 fake on port 9000.", "type": "fix"})
	if isErr {
		t.Fatalf("add_memory: %v", st)
	}
	old := st["id"].(string)
	text, st, isErr := call(t, cs, "add_memory", map[string]any{"content": "Uploads go to minio on port 9100 now.", "type": "fix", "supersedes": old})
	if isErr {
		t.Fatalf("add_memory --supersedes: %q", text)
	}
	if got := repo.Git("log", "-1", "--format=%B"); !strings.Contains(got, "Supersedes: "+old) || !strings.Contains(got, "Lore-Id: "+st["id"].(string)) {
		t.Errorf("commit:\n%s", got)
	}
	if strings.Contains(repo.Read(".agent/memories.md"), old) {
		t.Errorf("the old memory stayed:\n%s", repo.Read(".agent/memories.md"))
	}
	if text, _, isErr := call(t, cs, "add_learning", map[string]any{"body": "b", "category": "pitfall", "tags": []string{"x"}, "supersedes": old}); !isErr || !strings.Contains(text, "not a learning") {
		t.Errorf("a memory superseded by a learning: %q", text)
	}
}
