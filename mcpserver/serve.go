package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Grace is how long Serve waits, once the client is gone or ctx is done,
// for the calls under way, unless Options.Grace says otherwise: far
// longer than a write takes, even one that waits out lore's lock timeout
// (10 s a lock) more than once.
const Grace = time.Minute

// Serve answers one client on in and out — newline-delimited JSON-RPC,
// as MCP's stdio transport has it — until in ends, a write to out fails
// or ctx is done. A line that is not a JSON-RPC message is answered with
// a JSON-RPC error and skipped; it never ends the server. When in ends or
// ctx is done, no more is read, and every call read is run and answered;
// when out fails, the calls under way finish unanswered. No call is cut
// in two, and none starts after. Serve returns then, or after the grace
// (Options.Grace) with an error saying how many calls had not finished.
func Serve(ctx context.Context, opts Options, version string, in io.Reader, out io.Writer) error {
	server, calls := newServer(opts, version)
	conn := newStream(in, out, MaxFrame)
	if _, err := server.Connect(context.Background(), streamTransport{conn}, nil); err != nil {
		return err
	}
	select {
	case <-conn.ended:
	case <-ctx.Done():
		conn.stop()
	}
	wait := opts.Grace
	if wait <= 0 {
		wait = Grace
	}
	grace := time.NewTimer(wait)
	defer grace.Stop()
	select {
	case <-conn.finished:
	case <-grace.C:
		n := conn.unanswered()
		return fmt.Errorf("stopped with %d %s unanswered after %v", n, plural(n, "call", "calls"), wait)
	}
	select {
	case <-calls.stop():
		return nil
	case <-grace.C:
		n := calls.running()
		return fmt.Errorf("stopped with %d %s still running after %v", n, plural(n, "call", "calls"), wait)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// calls counts the calls under way, and refuses new ones once stopped.
type calls struct {
	mu      sync.Mutex
	n       int
	stopped bool
	idle    chan struct{} // closed when stopped and none is under way
}

// begin counts a call in, unless the server is stopping.
func (c *calls) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return false
	}
	c.n++
	return true
}

func (c *calls) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n--
	if c.n == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// stop refuses new calls; the channel is closed once none is under way.
func (c *calls) stop() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	idle := make(chan struct{})
	if c.n == 0 {
		close(idle)
	} else {
		c.idle = idle
	}
	return idle
}

func (c *calls) running() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// errStopping answers a call that comes while the server stops.
var errStopping = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "lore-mcp is stopping: the call was not started"}

// guard is the middleware every request goes through: it counts the call
// in flight for Serve; a tool call or resource read whose request was
// cancelled before it began is not begun (one under way is never
// stopped: the packages take no context, and a write finishes); and an
// error whose data is not JSON (the SDK's not-found error for a URI with a
// control character) is made JSON, which would otherwise end the
// connection when written.
func (c *calls) guard(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !c.begin() {
			return nil, errStopping
		}
		defer c.end()
		if method == "tools/call" || method == "resources/read" {
			if err := context.Cause(ctx); err != nil {
				return nil, fmt.Errorf("not started: the request was cancelled (%v)", err)
			}
		}
		res, err := next(ctx, method, req)
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && len(rpcErr.Data) > 0 && !json.Valid(rpcErr.Data) {
			fixed := *rpcErr
			fixed.Data = nil
			//lint:ignore SA1019 the SDK's own not-found errors carry this code (it is -32002 under MCPGODEBUG's old behaviour)
			if rr, ok := req.(*mcp.ReadResourceRequest); ok && rpcErr.Code == mcp.CodeResourceNotFound {
				fixed.Data, _ = json.Marshal(map[string]string{"uri": rr.Params.URI})
			}
			err = &fixed
		}
		return res, err
	}
}
