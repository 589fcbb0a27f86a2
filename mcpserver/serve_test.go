package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
)

// serving is Serve running in process on pipes, for the tests of its end.
type serving struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *bufio.Reader
	outR   *io.PipeReader
	outW   *io.PipeWriter
	cancel context.CancelFunc
	done   chan error
}

func startServe(t *testing.T, repo *loretest.Repo, grace time.Duration) *serving {
	t.Helper()
	env := map[string]string{"LORE_INDEX": filepath.Join(filepath.Dir(loreBin), "lore-index")}
	for _, kv := range repo.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			if _, set := env[k]; !set {
				env[k] = v
			}
		}
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{t: t, in: inW, out: bufio.NewReader(outR), outR: outR, outW: outW, cancel: cancel, done: make(chan error, 1)}
	opts := Options{Dir: repo.Dir, Getenv: func(k string) string { return env[k] }, LoreBinary: func() string { return loreBin }, Grace: grace}
	go func() { s.done <- Serve(ctx, opts, "test", inR, outW) }()
	t.Cleanup(func() {
		cancel()
		inW.Close()
		outR.Close()
	})
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if line := s.line(); !strings.Contains(line, `"id":1,"result"`) {
		t.Fatalf("initialize: %s", line)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// send writes a line; when it returns, the server has read every line
// before it (the pipe hands bytes over only to a reader, and the server
// reads a line only once the one before is taken).
func (s *serving) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *serving) line() string {
	s.t.Helper()
	done := loretest.NoHang(s.t, "reading Serve's output")
	defer done()
	line, err := s.out.ReadString('\n')
	if err != nil {
		s.t.Fatal(err)
	}
	return line
}

func (s *serving) result() error {
	s.t.Helper()
	done := loretest.NoHang(s.t, "waiting for Serve to return")
	defer done()
	return <-s.done
}

// TestServeAnswersWhatItReadBeforeStopping: a call read before ctx is
// done (SIGTERM, for lore-mcp) is run and answered before Serve returns;
// the SDK's own Close wrote no answer once closing.
func TestServeAnswersWhatItReadBeforeStopping(t *testing.T) {
	repo := loretest.NewRepo(t)
	s := startServe(t, repo, 0)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"add_memory","arguments":{"content":"written as the server stops"}}}`)
	s.send("") // the call is read
	s.cancel()
	lines := make(chan string, 1)
	go func() {
		var all strings.Builder
		io.Copy(&all, s.out)
		lines <- all.String()
	}()
	if err := s.result(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	s.outW.Close()
	var m struct {
		ID     int `json:"id"`
		Result struct {
			IsError bool `json:"isError"`
		} `json:"result"`
	}
	out := <-lines
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.ID != 2 || m.Result.IsError {
		t.Fatalf("answered %q, want the memory added", out)
	}
	if log := repo.Git("log", "--format=%s"); !strings.HasPrefix(log, "lore: add pattern") {
		t.Errorf("commits: %s", log)
	}
	repo.AssertClean()
}

// TestServeStopsWithinItsGrace: a call whose answer cannot be written (a
// client that stopped reading and did not go) does not hold Serve past
// its grace once ctx is done; it returns saying so.
func TestServeStopsWithinItsGrace(t *testing.T) {
	repo := loretest.NewRepo(t)
	s := startServe(t, repo, time.Millisecond)
	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"anything"}}}`)
	s.send("") // the call is read; nobody reads its answer
	s.cancel()
	if err := s.result(); err == nil || err.Error() != "stopped with 1 call unanswered after 1ms" {
		t.Fatalf("Serve: %v", err)
	}
}
