package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"lore/internal/loretest"
)

// rawClient drives the real lore mcp over its stdin and stdout with any
// bytes at all, as a raw JSON-RPC client would.
type rawClient struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	lines  chan []byte // the server's lines, as written; closed at the end
	held   []map[string]any
	nextID int
}

// startRaw starts lore mcp for repo and, unless bare, initializes the
// session.
func startRaw(t *testing.T, repo *loretest.Repo, bare bool) *rawClient {
	t.Helper()
	cmd := exec.Command(loreBin, "mcp")
	cmd.Dir = repo.Dir
	cmd.Env = append(repo.Environ(), "LORE_INDEX="+filepath.Join(filepath.Dir(loreBin), "lore-index"))
	stderr, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer stderr.Close()
	cmd.Stderr = stderr
	c := &rawClient{t: t, cmd: cmd, lines: make(chan []byte, 4096), nextID: 1000}
	// Pipes of our own, handed to lore as files: cmd.Wait waits for the
	// process alone, and the test closes its ends when it likes.
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	c.stdin, c.stdout = inW, outR
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		r := bufio.NewReader(c.stdout)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		c.stdin.Close()
		c.stdout.Close()
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if data, _ := os.ReadFile(stderr.Name()); t.Failed() && len(data) > 0 {
			t.Logf("lore mcp's stderr:\n%s", data)
		}
	})
	if !bare {
		c.answer(c.send("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw", "version": "1"}}))
		c.write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
	}
	return c
}

// wait waits for lore mcp to exit.
func (c *rawClient) wait() error {
	done := loretest.NoHang(c.t, "waiting for lore mcp to exit")
	defer done()
	return c.cmd.Wait()
}

// write writes bytes as they are.
func (c *rawClient) write(b []byte) {
	c.t.Helper()
	if _, err := c.stdin.Write(b); err != nil {
		c.t.Fatalf("write to lore mcp: %v", err)
	}
}

// send sends a request with a new id, and returns the id.
func (c *rawClient) send(method string, params any) float64 {
	c.t.Helper()
	c.nextID++
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.write(append(data, '\n'))
	return float64(c.nextID)
}

// next is the server's next message; a batch answer is one message.
func (c *rawClient) next() any {
	c.t.Helper()
	done := loretest.NoHang(c.t, "reading lore mcp's answer")
	line, ok := <-c.lines
	done()
	if !ok {
		c.t.Fatalf("lore mcp ended its output (exit: %v)", c.wait())
	}
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		c.t.Fatalf("lore mcp wrote a line that is not JSON: %v\n%.300q", err, line)
	}
	return v
}

// answer is the answer to the request id; other messages are held.
func (c *rawClient) answer(id any) map[string]any {
	c.t.Helper()
	for i, m := range c.held {
		if m["id"] == id {
			c.held = append(c.held[:i], c.held[i+1:]...)
			return m
		}
	}
	for {
		v := c.next()
		m, ok := v.(map[string]any)
		if ok && m["id"] == id {
			return m
		}
		if !ok {
			m = map[string]any{"batch": v}
		}
		c.held = append(c.held, m)
	}
}

// call calls a tool and returns its answer's result, failing unless it is
// one.
func (c *rawClient) call(tool string, args map[string]any) map[string]any {
	c.t.Helper()
	m := c.answer(c.send("tools/call", map[string]any{"name": tool, "arguments": args}))
	res, ok := m["result"].(map[string]any)
	if !ok {
		c.t.Fatalf("%s: no result: %v", tool, m)
	}
	return res
}

// serving checks that the server still answers a tool call, and has said
// nothing else meanwhile.
func (c *rawClient) serving(after string) {
	c.t.Helper()
	res := c.call("search", map[string]any{"query": "anything"})
	if res["isError"] == true {
		c.t.Fatalf("after %s: search: %v", after, res)
	}
	if len(c.held) > 0 {
		c.t.Fatalf("after %s: lore mcp also said %v", after, c.held)
	}
}

// errorCode is the JSON-RPC error code of an answer (0: none).
func errorCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(float64)
	return int(code)
}

// TestMalformedFramesAreAnsweredAndServingGoesOn: each line a client may
// get wrong — not JSON, not UTF-8, a NUL, a batch, longer than lore-mcp
// reads, not JSON-RPC, an unknown method, parameters of the wrong type, a
// NUL in a resource URI — gets a JSON-RPC error (with the request's id
// when it shows one; a notification nothing), and the server goes on
// answering tool calls. Nothing refused is written.
func TestMalformedFramesAreAnsweredAndServingGoesOn(t *testing.T) {
	repo := loretest.NewRepo(t)
	c := startRaw(t, repo, false)
	big := strings.Repeat("x", MaxFrame)
	for _, tc := range []struct {
		name  string
		frame string
		// id of the answer (nil: an error without one) and its code;
		// code 0: no answer at all (a notification).
		id        any
		code      int
		toolError bool // a tool result with isError, not a JSON-RPC error
	}{
		{"garbage", "garbage\n", nil, -32700, false},
		{"a NUL byte", "\x00\n", nil, -32700, false},
		{"a NUL in a request", `{"jsonrpc":"2.0","id":7,"method":"ping"` + "\x00}\n", 7.0, -32700, false},
		{"invalid UTF-8 outside strings", "\xff\xfe{}\n", nil, -32700, false},
		{"invalid UTF-8 in an argument", `{"jsonrpc":"2.0","id":"u8","method":"tools/call","params":{"name":"add_memory","arguments":{"content":"caf` + "\xe9" + `"}}}` + "\n", "u8", -32700, false},
		{"two values on a line", `{"jsonrpc":"2.0","id":8,"method":"ping"} {"x":1}` + "\n", 8.0, -32700, false},
		{"a truncated request", `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{` + "\n", 9.0, -32700, false},
		{"a batch", `[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]` + "\n", "batch", -32600, false},
		{"an empty batch", "[]\n", nil, -32600, false},
		{"a batch of notifications", `[{"jsonrpc":"2.0","method":"notifications/initialized"}]` + "\n", nil, 0, false},
		{"an over-long tool call, its id last", `{"method":"tools/call","params":{"name":"add_memory","arguments":{"content":"` + big + `"}},"jsonrpc":"2.0","id":"big"}` + "\n", "big", 0, true},
		{"an over-long request", `{"jsonrpc":"2.0","id":"big2","method":"resources/read","params":{"uri":"lore://entry/` + big + `"}}` + "\n", "big2", -32600, false},
		{"an over-long line of garbage", big + big + "\n", nil, -32600, false},
		{"an empty object", "{}\n", nil, -32600, false},
		{"a number", "42\n", nil, -32600, false},
		{"another JSON-RPC version", `{"jsonrpc":"1.0","id":10,"method":"ping"}` + "\n", 10.0, -32600, false},
		{"an id of the wrong type", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}` + "\n", nil, -32600, false},
		{"an unknown method", `{"jsonrpc":"2.0","id":11,"method":"no/such/method"}` + "\n", 11.0, -32601, false},
		{"an unknown notification", `{"jsonrpc":"2.0","method":"notifications/no-such"}` + "\n", nil, 0, false},
		{"a cancel of nothing, with a bad id", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"a":1}}}` + "\n", nil, 0, false},
		{"a response nobody asked for", `{"jsonrpc":"2.0","id":12,"result":{}}` + "\n", nil, 0, false},
		{"params of the wrong type", `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":"search"}` + "\n", 13.0, -32602, false},
		{"an argument of the wrong type", `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"search","arguments":{"query":5}}}` + "\n", 14.0, 0, true},
		{"an unknown tool", `{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}` + "\n", 15.0, -32602, false},
		{"a NUL in an entry's URI", `{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"lore://entry/a\u0000b"}}` + "\n", 16.0, -32602, false},
		{"a NUL in another URI", `{"jsonrpc":"2.0","id":17,"method":"resources/read","params":{"uri":"lore://nothing\u0000\u0007"}}` + "\n", 17.0, -32602, false},
		{"an escaped NUL in an entry's URI", `{"jsonrpc":"2.0","id":18,"method":"resources/read","params":{"uri":"lore://entry/a%00b"}}` + "\n", 18.0, -32602, false},
		{"a NUL in an id", `{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"show","arguments":{"id":"a\u0000b"}}}` + "\n", 19.0, 0, true},
		{"a NUL in a memory", `{"jsonrpc":"2.0","id":20,"method":"tools/call","params":{"name":"add_memory","arguments":{"content":"a\u0000b"}}}` + "\n", 20.0, 0, true},
		{"a blank line", "\n", nil, 0, false},
	} {
		c.write([]byte(tc.frame))
		switch {
		case tc.code == 0 && !tc.toolError:
			// Nothing: the next thing said answers the next call.
		case tc.id == "batch":
			batch, ok := c.next().([]any)
			if !ok || len(batch) != 1 || batch[0].(map[string]any)["id"] != "b1" || errorCode(batch[0].(map[string]any)) != tc.code {
				t.Errorf("%s: answered %v, want [an error %d for b1]", tc.name, batch, tc.code)
			}
		case tc.id == nil:
			m, _ := c.next().(map[string]any)
			if _, hasID := m["id"]; hasID || errorCode(m) != tc.code {
				t.Errorf("%s: answered %v, want error %d without an id", tc.name, m, tc.code)
			}
		case tc.toolError:
			m := c.answer(tc.id)
			if res, _ := m["result"].(map[string]any); res["isError"] != true {
				t.Errorf("%s: answered %v, want a tool error", tc.name, m)
			}
		default:
			if m := c.answer(tc.id); errorCode(m) != tc.code {
				t.Errorf("%s: answered %v, want error %d", tc.name, m, tc.code)
			}
		}
		c.serving(tc.name)
	}
	if res := c.call("add_memory", map[string]any{"content": "written after every malformed frame"}); res["isError"] == true {
		t.Fatalf("add_memory: %v", res)
	}
	c.stdin.Close()
	if err := c.cmd.Wait(); err != nil {
		t.Errorf("lore mcp, at the end of its input: %v", err)
	}
	if got := repo.Git("log", "--format=%s"); strings.Count(got, "\n") != 0 || !strings.HasPrefix(got, "lore: add pattern") {
		t.Errorf("commits:\n%s\nwant the one memory added", got)
	}
	repo.AssertClean()
}

// written is what a write that was answered success put in the store:
// a memory's id or an iteration's file.
type written struct{ memory, journal string }

// writeCall sends the i-th write of a burst: a memory, or every other
// time an iteration with a knowledge entry.
func (c *rawClient) writeCall(i int) float64 {
	c.t.Helper()
	if i%2 == 0 {
		return c.send("tools/call", map[string]any{"name": "add_memory", "arguments": map[string]any{
			"content": fmt.Sprintf("burst memory %d: the cache is warmed before the benchmark", i), "tags": []string{"burst"}}})
	}
	return c.send("tools/call", map[string]any{"name": "ingest", "arguments": map[string]any{
		"output": fmt.Sprintf("<journal>Burst iteration %d.</journal>\n<knowledge title=\"Burst note %d\">Written in a burst.</knowledge>\n<task-done>T-%d</task-done>", i, i, i),
		"run":    "run-0000b057", "task_id": fmt.Sprintf("T-%d", i)}})
}

// acknowledged is what an answer says was written, if it says so.
func acknowledged(m map[string]any) (written, bool) {
	res, _ := m["result"].(map[string]any)
	st, _ := res["structuredContent"].(map[string]any)
	if res == nil || res["isError"] == true || st == nil {
		return written{}, false
	}
	if j, ok := st["journal"].(map[string]any); ok {
		p, _ := j["path"].(string)
		return written{journal: p}, p != ""
	}
	id, _ := st["id"].(string)
	return written{memory: id}, id != ""
}

// drain reads what the server still says until its output ends, and
// returns how many calls it answered and the writes it acknowledged.
func (c *rawClient) drain() (int, []written) {
	answers := 0
	var acks []written
	note := func(m map[string]any) {
		if _, isCall := m["id"]; !isCall {
			return
		}
		answers++
		if w, ok := acknowledged(m); ok {
			acks = append(acks, w)
		}
	}
	for _, m := range c.held {
		note(m)
	}
	c.held = nil
	done := loretest.NoHang(c.t, "reading lore mcp's output to its end")
	defer done()
	for line := range c.lines {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			note(m)
		}
	}
	return answers, acks
}

// assertSurvived checks the repository after lore mcp has exited: no
// lock of git's is left, every write acknowledged is in HEAD, C git finds
// it sound, and the user's own commit works.
func assertSurvived(t *testing.T, repo *loretest.Repo, acks []written) {
	t.Helper()
	gitDir := filepath.Join(repo.Dir, ".git")
	filepath.WalkDir(gitDir, func(p string, d fs.DirEntry, err error) error {
		if p == filepath.Join(gitDir, "lore") {
			return filepath.SkipDir // lore's own files: the index's write.lock is an flock, always there
		}
		if err == nil && strings.HasSuffix(p, ".lock") {
			t.Errorf("left behind: %s", p)
		}
		return nil
	})
	memories, _ := repo.GitErr("show", "HEAD:.agent/memories.md")
	for _, w := range acks {
		if w.memory != "" && !strings.Contains(memories, w.memory) {
			t.Errorf("memory %s was acknowledged but is not in HEAD", w.memory)
		}
		if w.journal != "" {
			if _, err := repo.GitErr("cat-file", "-e", "HEAD:"+w.journal); err != nil {
				t.Errorf("iteration %s was acknowledged but is not in HEAD", w.journal)
			}
		}
	}
	journal, _ := repo.GitErr("ls-tree", "-r", "--name-only", "HEAD", ".agent/journal")
	t.Logf("in HEAD: %d memories, %d iterations; %d writes acknowledged", strings.Count(memories, "burst memory"),
		len(strings.Fields(journal)), len(acks))
	repo.Commit("the user's own commit", map[string]string{"notes.txt": "mine\n"})
	repo.AssertClean()
}

// assertNoServerLeft fails if a lore-mcp still runs in dir (Linux: its
// /proc): lore mcp must not exit before the server it started.
func assertNoServerLeft(t *testing.T, dir string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		return
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		exe, err := os.Readlink(filepath.Join("/proc", p.Name(), "exe"))
		if err != nil || filepath.Base(exe) != "lore-mcp" {
			continue
		}
		if cwd, _ := os.Readlink(filepath.Join("/proc", p.Name(), "cwd")); cwd == dir {
			t.Errorf("lore-mcp (pid %s) still runs after lore mcp exited", p.Name())
		}
	}
}

// TestBurstSurvivesCancelCloseAndKill: a burst of writes (memories and
// iterations) through lore mcp, while the client cancels some of them,
// closes the server's stdin or stdout, or sends SIGTERM to the process it
// started. Whatever the server answered success is in HEAD, no lock of
// git's is left, lore mcp exits only after its server, and the user's
// git commit works.
func TestBurstSurvivesCancelCloseAndKill(t *testing.T) {
	n := loretest.Rounds(24, 96)
	for _, how := range []string{"cancel", "close stdin", "close stdout", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			repo := loretest.NewRepo(t)
			repo.Commit("start", map[string]string{"README": "a project\n"})
			c := startRaw(t, repo, false)
			ids := make([]float64, n)
			for i := range n {
				ids[i] = c.writeCall(i)
				if how == "cancel" && i%3 == 0 {
					c.write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%v,"reason":"the user pressed Esc"}}`+"\n", ids[i])))
				}
				if i == n/2 {
					switch how {
					case "close stdout":
						c.stdout.Close()
					case "SIGTERM":
						c.cmd.Process.Signal(syscall.SIGTERM)
					}
				}
			}
			if how == "cancel" { // and more, while the burst is being written
				for i := 1; i < n; i += 3 {
					c.write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%v}}`+"\n", ids[i])))
				}
			}
			var acks []written
			answered := 0
			switch how {
			case "cancel":
				for _, id := range ids {
					m := c.answer(id)
					answered++
					if w, ok := acknowledged(m); ok {
						acks = append(acks, w)
					}
				}
				c.stdin.Close()
			case "close stdin":
				c.stdin.Close()
			}
			err := c.wait()
			// lore mcp exited: the server it started must have too.
			assertNoServerLeft(t, repo.Dir)
			c.stdin.Close()
			if how != "cancel" {
				answered, acks = c.drain()
			}
			if how != "close stdout" && err != nil {
				t.Errorf("lore mcp: %v", err)
			}
			// Every call read before the end of the input is answered.
			if how == "close stdin" && answered != n {
				t.Errorf("%d of %d calls answered after the client closed stdin", answered, n)
			}
			t.Logf("%s: %d writes sent, %d answered, %d acknowledged", how, n, answered, len(acks))
			assertSurvived(t, repo, acks)
		})
	}
}

// TestNoArgumentIsAFlag: arguments that look like lore's flags are text,
// ids and names, never options — a search for --root=<another
// repository> searches this store for those words and builds nothing
// there, and an id beginning with "-" is an id (the server used to run
// the CLI with them as arguments).
func TestNoArgumentIsAFlag(t *testing.T) {
	other := loretest.NewRepo(t)
	cmd := exec.Command(loreBin, "add", "the other repository's secret plan")
	cmd.Dir, cmd.Env = other.Dir, other.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("lore add in the other repository: %v %s", err, out)
	}
	otherHead := other.Git("rev-parse", "HEAD")

	repo := loretest.NewRepo(t)
	c := startRaw(t, repo, false)
	flag := "--root=" + other.Dir
	text := func(res map[string]any) string {
		var b strings.Builder
		content, _ := res["content"].([]any)
		for _, item := range content {
			if m, ok := item.(map[string]any); ok {
				b.WriteString(fmt.Sprint(m["text"]))
			}
		}
		return b.String()
	}
	res := c.call("add_memory", map[string]any{"content": flag + " -t --help: how the CLI names another store", "tags": []string{"-t", "--root"}})
	st, _ := res["structuredContent"].(map[string]any)
	if res["isError"] == true || st["content"] != flag+" -t --help: how the CLI names another store" {
		t.Fatalf("add_memory: %v", res)
	}
	memID := st["id"].(string)
	for _, args := range []map[string]any{
		{"title": "--version", "body": "-h", "tags": []string{"--all"}},
	} {
		if res := c.call("add_knowledge", args); res["isError"] == true {
			t.Errorf("add_knowledge %v: %s", args, text(res))
		}
	}
	if res := c.call("add_learning", map[string]any{"body": "--format=json is not an option here", "category": "pitfall", "tags": []string{"-x"}}); res["isError"] == true {
		t.Errorf("add_learning: %s", text(res))
	}
	for _, q := range []string{flag, "-t", "--help", "--all"} {
		res := c.call("search", map[string]any{"query": q})
		got := text(res)
		if res["isError"] == true || strings.Contains(got, "secret plan") || strings.Contains(got, "USAGE") {
			t.Errorf("search %q: %s", q, got)
		}
		if q == flag && !strings.Contains(got, memID) {
			t.Errorf("search %q does not find the memory holding those words: %s", q, got)
		}
	}
	for _, id := range []string{"-h", "--help", "--version", flag} {
		res := c.call("show", map[string]any{"id": id})
		want := "Knowledge not found: " + id
		if strings.Contains(id, "/") { // an iteration's id, by its shape
			want = fmt.Sprintf("%q is not <run>/<iteration>", id)
		}
		if got := text(res); res["isError"] != true || !strings.HasPrefix(got, want) {
			t.Errorf("show %q: %v %q, want %q", id, res["isError"], got, want)
		}
	}
	if res := c.call("show", map[string]any{"id": "version"}); res["isError"] == true || !strings.Contains(text(res), "-h") {
		t.Errorf("show version (the knowledge titled --version): %s", text(res))
	}
	if m := c.answer(c.send("resources/read", map[string]any{"uri": "lore://entry/-h"})); errorCode(m) != -32602 {
		t.Errorf("lore://entry/-h: %v, want not found", m)
	}
	if m := c.answer(c.send("resources/read", map[string]any{"uri": "lore://entry/" + flag})); !strings.Contains(fmt.Sprint(m["error"]), "is not <run>/<iteration>") {
		t.Errorf("lore://entry/%s: %v, want an error about the iteration's id", flag, m)
	}
	if res := c.call("prime", map[string]any{"title": flag, "description": "-t"}); res["isError"] == true || strings.Contains(text(res), "secret plan") {
		t.Errorf("prime: %s", text(res))
	}
	if res := c.call("ingest", map[string]any{"output": "<journal>" + flag + "</journal>\n<task-done>-t</task-done>", "run": "run-00000f1a", "task_id": "--help"}); res["isError"] == true {
		t.Errorf("ingest: %s", text(res))
	}
	if got := other.Git("rev-parse", "HEAD"); got != otherHead {
		t.Errorf("the other repository changed: HEAD %s, was %s", got, otherHead)
	}
	if _, err := os.Stat(filepath.Join(other.Dir, ".git", "lore", "index")); err == nil {
		t.Errorf("a search index was built in the other repository")
	}
	if out := other.Git("status", "--porcelain"); out != "" {
		t.Errorf("the other repository's worktree changed:\n%s", out)
	}
	repo.AssertClean()
}

// TestTypeScriptClientBurst: the official TypeScript SDK's client
// (testdata/ts-client/burst.mjs) sends bursts of writes to lore mcp and
// aborts a third of them at once and a third after the first answer
// (AbortController: notifications/cancelled), closes the client as soon
// as a burst is sent (stdin ended, then SIGTERM and SIGKILL), or sends
// SIGTERM to the server after the first answer. Then no lock of git's is
// left, no lore-mcp runs on, every write acknowledged is in HEAD, and the
// user's git commit works.
func TestTypeScriptClientBurst(t *testing.T) {
	node, dir := tsClient(t)
	repo := loretest.NewRepo(t)
	repo.Commit("start", map[string]string{"README": "a project\n"})
	n := loretest.Rounds(30, 120)
	cmd := exec.Command(node, filepath.Join(dir, "burst.mjs"), loreBin, repo.Dir, fmt.Sprint(n))
	cmd.Env = append(repo.Environ(), "LORE_INDEX="+filepath.Join(filepath.Dir(loreBin), "lore-index"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := loretest.NoHang(t, "node burst.mjs")
	out, err := cmd.Output()
	done()
	if err != nil {
		t.Fatalf("node burst.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	var acks []written
	bursts := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var b struct {
			Burst    string `json:"burst"`
			Made     int    `json:"made"`
			Answered int    `json:"answered"`
			Acks     []struct {
				Memory  string `json:"memory"`
				Journal string `json:"journal"`
			} `json:"acks"`
		}
		if err := json.Unmarshal([]byte(line), &b); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		bursts++
		t.Logf("%s: %d writes made, %d answered, %d acknowledged", b.Burst, b.Made, b.Answered, len(b.Acks))
		if b.Answered == 0 {
			t.Errorf("%s: no call answered", b.Burst)
		}
		for _, a := range b.Acks {
			acks = append(acks, written{memory: a.Memory, journal: a.Journal})
		}
	}
	if bursts != 3 {
		t.Fatalf("%d bursts reported, want 3:\n%s\n%s", bursts, out, stderr.String())
	}
	assertNoServerLeft(t, repo.Dir)
	assertSurvived(t, repo, acks)
}

// TestArgumentsOfAnySize: lists of 10,000 tags or files and bodies of a
// MiB are answered — done, or a tool error saying why — and a body of
// 10 MB, more than lore-mcp reads in one message, is a tool error saying
// so; the server goes on serving and the repository stays sound.
func TestArgumentsOfAnySize(t *testing.T) {
	repo := loretest.NewRepo(t)
	c := startRaw(t, repo, false)
	var tags, files []string
	for i := range 10000 {
		tags = append(tags, fmt.Sprintf("tag%d", i))
		files = append(files, fmt.Sprintf("src/pkg%d/file.go", i))
	}
	mib := strings.Repeat("a word ", 1<<20/7)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"add_memory", map[string]any{"content": "ten thousand tags", "tags": tags}},
		{"add_knowledge", map[string]any{"title": "Many tags", "body": "ten thousand tags", "tags": tags}},
		{"add_learning", map[string]any{"body": "ten thousand tags on a learning", "category": "pitfall", "tags": tags}},
		{"ingest", map[string]any{"output": "<journal>Touched many files.</journal>\n<task-done>T-1</task-done>", "run": "run-0000517e", "files": files}},
		{"prime", map[string]any{"title": "a task about many files", "files": files}},
		{"search", map[string]any{"query": "tags", "tags": tags}},
		{"search", map[string]any{"query": mib}},
		{"add_memory", map[string]any{"content": mib}},
		{"add_knowledge", map[string]any{"title": "A MiB", "body": mib, "tags": []string{"big"}}},
		{"ingest", map[string]any{"output": "<journal>" + mib + "</journal>\n<task-done>T-2</task-done>", "run": "run-0000517e"}},
	} {
		res := c.call(tc.tool, tc.args)
		content, _ := res["content"].([]any)
		if len(content) == 0 {
			t.Errorf("%s: an answer without text: %.300v", tc.tool, res)
		}
		c.serving(tc.tool)
	}
	tenMB := strings.Repeat("x", 10<<20)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"add_memory", map[string]any{"content": tenMB}},
		{"ingest", map[string]any{"output": tenMB}},
	} {
		res := c.call(tc.tool, tc.args)
		content, _ := res["content"].([]any)
		text := ""
		if len(content) == 1 {
			text, _ = content[0].(map[string]any)["text"].(string)
		}
		if res["isError"] != true || !strings.Contains(text, "lore-mcp reads at most 8 MiB in one") {
			t.Errorf("%s of 10 MB: %.300v, want a tool error saying lore-mcp reads at most 8 MiB", tc.tool, res)
		}
		c.serving(tc.tool + " of 10 MB")
	}
	if strings.Contains(repo.Git("log", "-p"), "xxxxxxxxxx") {
		t.Error("a refused body was committed")
	}
	c.stdin.Close()
	if err := c.wait(); err != nil {
		t.Errorf("lore mcp: %v", err)
	}
	repo.AssertClean()
}

// TestTypeScriptClientSizes: through the official TypeScript SDK's client
// (testdata/ts-client/sizes.mjs), calls with 10,000 tags or files are
// answered, a body of 10 MB is a tool error saying how much lore-mcp
// reads — not an answer too large for the client to read, which ends its
// connection — and the server serves on.
func TestTypeScriptClientSizes(t *testing.T) {
	node, dir := tsClient(t)
	repo := loretest.NewRepo(t)
	cmd := exec.Command(node, filepath.Join(dir, "sizes.mjs"), loreBin, repo.Dir)
	cmd.Env = append(repo.Environ(), "LORE_INDEX="+filepath.Join(filepath.Dir(loreBin), "lore-index"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := loretest.NoHang(t, "node sizes.mjs")
	out, err := cmd.Output()
	done()
	if err != nil {
		t.Fatalf("node sizes.mjs: %v\n%s\n%s", err, out, stderr.String())
	}
	steps := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var s struct {
			Step, Text, Thrown string
			IsError            bool
		}
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		steps++
		switch {
		case s.Thrown != "":
			t.Errorf("%s: the client threw %s", s.Step, s.Thrown)
		case s.Step == "add_memory 10 MB":
			if !s.IsError || !strings.Contains(s.Text, "lore-mcp reads at most 8 MiB") {
				t.Errorf("%s: %v %q, want a tool error saying lore-mcp reads at most 8 MiB", s.Step, s.IsError, s.Text)
			}
		case s.Step == "search after":
			if s.IsError || !strings.Contains(s.Text, "[memory] mem-") {
				t.Errorf("%s: %q", s.Step, s.Text)
			}
		case s.Text == "":
			t.Errorf("%s: an answer without text", s.Step)
		}
	}
	if steps != 6 {
		t.Errorf("%d steps reported, want 6:\n%s\n%s", steps, out, stderr.String())
	}
	repo.AssertClean()
}
