package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxFrame is the most bytes one JSON-RPC message may take on the stream
// (a line): far more than an entry of lore's needs, and less than the
// 10 MiB an MCP client such as the TypeScript SDK's reads in one line, so
// that an answer echoing a request stays readable.
const MaxFrame = 8 << 20

// stream is an MCP connection over a byte stream of newline-delimited
// JSON-RPC messages — stdio — that no input ends: a line that is not a
// JSON-RPC message (not JSON, not UTF-8, a NUL, a batch, longer than
// MaxFrame) is answered with a JSON-RPC error, with the request's id when
// the line shows one, and skipped. (The SDK's own StdioTransport ends the
// connection, and lore-mcp, on the first such line.)
//
// The end of the input, or stop, ends it once every call read has been
// answered: the SDK writes nothing once its reader has ended, so a client
// that closes stdin after its last request (a script piping requests)
// still gets every answer. A failed write ends it at once.
type stream struct {
	frames chan frame
	out    io.Writer
	closer io.Closer // the input, when it can be closed

	writeMu sync.Mutex

	mu       sync.Mutex
	pending  map[jsonrpc.ID]bool // calls read and not answered yet
	drained  chan struct{}       // closed when draining and none is pending
	draining bool

	stopping  chan struct{} // stop was called
	ended     chan struct{} // the input ended, stop was called or a write failed
	finished  chan struct{} // Read has ended the connection, or a write failed
	broken    chan struct{} // a write failed
	closed    chan struct{} // Close was called
	stopOnce  sync.Once
	endOnce   sync.Once
	finOnce   sync.Once
	brokeOnce sync.Once
	closeOnce sync.Once
}

// frame is one line read: its bytes, or that it was too long (its size
// and the id and method it showed), or the error that ended the input.
type frame struct {
	data     []byte
	tooLong  int64
	envelope envelope
	err      error
}

// streamTransport connects a stream once, for mcp.Server.Connect.
type streamTransport struct{ s *stream }

func (t streamTransport) Connect(context.Context) (mcp.Connection, error) { return t.s, nil }

func newStream(in io.Reader, out io.Writer, max int) *stream {
	s := &stream{frames: make(chan frame), out: out, pending: map[jsonrpc.ID]bool{},
		stopping: make(chan struct{}), ended: make(chan struct{}), finished: make(chan struct{}),
		broken: make(chan struct{}), closed: make(chan struct{})}
	if c, ok := in.(io.Closer); ok {
		s.closer = c
	}
	go s.readFrames(in, max)
	return s
}

// readFrames reads lines until the input ends, handing each to Read.
func (s *stream) readFrames(in io.Reader, max int) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		f := readFrame(r, max)
		select {
		case s.frames <- f:
		case <-s.closed:
			return
		}
		if f.err != nil {
			return
		}
	}
}

// readFrame reads one line of at most max bytes. A longer line is read
// to its end and dropped, its top-level "id" picked up on the way.
func readFrame(r *bufio.Reader, max int) frame {
	var line []byte
	var scan *envelopeScanner
	var size int64
	for {
		chunk, err := r.ReadSlice('\n')
		size += int64(len(chunk))
		switch {
		case scan != nil:
			scan.write(chunk)
		case len(line)+len(chunk) > max:
			scan = &envelopeScanner{}
			scan.write(line)
			scan.write(chunk)
			line = nil
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if scan != nil {
			return frame{tooLong: size, envelope: scan.result()}
		}
		if err != nil && len(line) == 0 {
			return frame{err: err}
		}
		return frame{data: line} // the last line may lack its "\n"
	}
}

// Read returns the next JSON-RPC message, answering and skipping each
// line that is not one.
func (s *stream) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var f frame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.closed:
			return nil, io.EOF
		case <-s.stopping:
			return nil, s.drain(io.EOF)
		case f = <-s.frames:
		}
		if f.err != nil {
			return nil, s.drain(f.err)
		}
		msg, reply := decodeFrame(f)
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() && !s.track(req.ID) {
			msg, reply = nil, errorReply(req.ID, jsonrpc.CodeInvalidRequest, "invalid request: a call with this id is under way")
		}
		if reply != nil {
			if err := s.writeLine(reply); err != nil {
				return nil, err
			}
		}
		if msg != nil {
			return msg, nil
		}
	}
}

// track counts a call read, unless one with its id is under way.
func (s *stream) track(id jsonrpc.ID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending[id] {
		return false
	}
	s.pending[id] = true
	return true
}

// answered counts a call answered.
func (s *stream) answered(id jsonrpc.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.pending, id)
	if s.draining && len(s.pending) == 0 && s.drained != nil {
		close(s.drained)
		s.drained = nil
	}
}

// drain ends the input: it waits until every call read has been
// answered (or a write failed, or Close), then returns err for the SDK.
func (s *stream) drain(err error) error {
	s.end()
	s.mu.Lock()
	s.draining = true
	drained := make(chan struct{})
	if len(s.pending) == 0 {
		close(drained)
	} else {
		s.drained = drained
	}
	s.mu.Unlock()
	select {
	case <-drained:
	case <-s.broken:
	case <-s.closed:
	}
	s.finOnce.Do(func() { close(s.finished) })
	return err
}

// stop ends the input now: no line is read any more, and the connection
// ends once the calls read have been answered.
func (s *stream) stop() {
	s.stopOnce.Do(func() { close(s.stopping) })
	s.end()
}

// unanswered is how many calls read have not been answered.
func (s *stream) unanswered() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.pending)
}

func (s *stream) end() { s.endOnce.Do(func() { close(s.ended) }) }

// decodeFrame is a line's message, or what to answer it with instead
// (nil for nothing: a blank line, a batch of notifications).
func decodeFrame(f frame) (jsonrpc.Message, []byte) {
	if f.tooLong > 0 {
		why := fmt.Sprintf("refused: the message is %d bytes, and lore-mcp reads at most %d MiB in one", f.tooLong, MaxFrame>>20)
		if e := f.envelope; e.method == "tools/call" && e.id.IsValid() {
			return nil, toolErrorReply(e.id, why) // for the agent to read, as any tool error
		}
		return nil, errorReply(f.envelope.id, jsonrpc.CodeInvalidRequest, why)
	}
	line := bytes.TrimSpace(f.data)
	switch {
	case len(line) == 0:
		return nil, nil
	case !utf8.Valid(line):
		return nil, errorReply(scanEnvelope(line).id, jsonrpc.CodeParseError, "parse error: the message is not UTF-8")
	case !json.Valid(line):
		why := "not JSON"
		if bytes.IndexByte(line, 0) >= 0 {
			why = "a NUL byte"
		}
		return nil, errorReply(scanEnvelope(line).id, jsonrpc.CodeParseError, "parse error: the message is not one JSON value ("+why+")")
	case line[0] == '[':
		return nil, batchReply(line)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var v struct {
			ID any `json:"id"`
		}
		json.Unmarshal(line, &v)
		id, _ := jsonrpc.MakeID(v.ID)
		return nil, errorReply(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return msg, nil
}

// batchReply answers a batch, which MCP no longer has (2025-06-18): an
// error for each request in it, none for its notifications.
func batchReply(line []byte) []byte {
	var batch []json.RawMessage
	if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
		return errorReply(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: an empty batch")
	}
	var replies []json.RawMessage
	for _, m := range batch {
		var v struct {
			ID     any             `json:"id"`
			Method json.RawMessage `json:"method"`
		}
		if json.Unmarshal(m, &v) == nil && v.ID == nil && v.Method != nil {
			continue // a notification
		}
		id, _ := jsonrpc.MakeID(v.ID)
		replies = append(replies, errorReply(id, jsonrpc.CodeInvalidRequest,
			"invalid request: batches are not supported (MCP removed them in 2025-06-18); send each message on a line of its own"))
	}
	if len(replies) == 0 {
		return nil
	}
	data, _ := json.Marshal(replies)
	return data
}

// errorReply is a JSON-RPC error answering id; an unknown id is left out,
// as the MCP SDKs do.
func errorReply(id jsonrpc.ID, code int64, msg string) []byte {
	data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}})
	if err != nil { // cannot happen: an id and a string
		panic(err)
	}
	return data
}

// toolErrorReply is a tool call's answer that is a tool error saying why.
func toolErrorReply(id jsonrpc.ID, why string) []byte {
	result, err := json.Marshal(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: why}}, IsError: true})
	if err == nil {
		data, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: result})
		if err == nil {
			return data
		}
	}
	return errorReply(id, jsonrpc.CodeInvalidRequest, why)
}

// Write writes msg on a line of its own. An answer that cannot be encoded
// becomes an internal error answering the same request, rather than
// ending the connection.
func (s *stream) Write(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	resp, isResp := msg.(*jsonrpc.Response)
	if err != nil {
		if !isResp {
			return err
		}
		data = errorReply(resp.ID, jsonrpc.CodeInternalError, "lore-mcp could not encode its answer: "+err.Error())
	}
	err = s.writeLine(data)
	if isResp {
		s.answered(resp.ID)
	}
	return err
}

func (s *stream) writeLine(data []byte) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	select {
	case <-s.closed:
		return io.ErrClosedPipe
	case <-s.broken:
		return io.ErrClosedPipe
	default:
	}
	_, err := s.out.Write(append(data, '\n'))
	if err != nil {
		s.brokeOnce.Do(func() { close(s.broken) })
		s.end()
		s.finOnce.Do(func() { close(s.finished) })
	}
	return err
}

// Close stops reading and writing; a read of the input under way ends
// when its input closes (os.Stdin does; the reader's goroutine is
// otherwise left to the process's end).
func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		if s.closer != nil {
			s.closer.Close()
		}
	})
	return nil
}

func (s *stream) SessionID() string { return "" }

// scanEnvelope is the id and method a line that is not JSON shows, if any.
func scanEnvelope(line []byte) envelope {
	var sc envelopeScanner
	sc.write(line)
	return sc.result()
}

// envelope is what a request says of itself: its id and its method.
type envelope struct {
	id     jsonrpc.ID
	method string
}

// envelopeScanner finds the top-level "id" and "method" of a JSON object
// as its bytes go by, keeping only a key's first bytes and at most
// maxIDBytes of a value: a request too long to keep, or not quite JSON,
// is still answered as itself when its id can be read (the TypeScript
// SDK writes the id last).
type envelopeScanner struct {
	depth         int
	inString, esc bool
	expectKey     bool // at depth 1, the next string is a key
	inKey         bool // reading a key at depth 1
	key           []byte
	keyLong       bool
	valueOf       string // "id" or "method": its value follows ':'
	inVal         string // reading the value of "id" or "method"
	val           []byte
	valLong       bool
	found         map[string][]byte
}

// maxIDBytes bounds an id or a method: a longer one is none lore answers
// to.
const maxIDBytes = 256

func (sc *envelopeScanner) write(p []byte) {
	for _, b := range p {
		sc.step(b)
	}
}

func (sc *envelopeScanner) step(b byte) {
	if sc.inVal != "" {
		if !sc.inString && sc.depth == 1 && (b == ',' || b == '}') {
			sc.endVal()
		} else if len(sc.val) < maxIDBytes {
			sc.val = append(sc.val, b)
		} else {
			sc.valLong = true
		}
	}
	if sc.inString {
		switch {
		case sc.esc:
			sc.esc = false
		case b == '\\':
			sc.esc = true
		case b == '"':
			sc.inString = false
			if sc.inKey {
				sc.inKey = false
				if k := string(sc.key); !sc.keyLong && (k == "id" || k == "method") {
					sc.valueOf = k
				}
			}
			return
		}
		if sc.inKey {
			if len(sc.key) < len("method") {
				sc.key = append(sc.key, b)
			} else {
				sc.keyLong = true
			}
		}
		return
	}
	switch b {
	case '"':
		sc.inString = true
		if sc.depth == 1 && sc.expectKey {
			sc.inKey, sc.key, sc.keyLong, sc.valueOf = true, sc.key[:0], false, ""
		}
	case ':':
		if sc.depth == 1 {
			sc.expectKey = false
			if sc.valueOf != "" {
				sc.inVal, sc.val, sc.valLong = sc.valueOf, sc.val[:0], false
			}
			sc.valueOf = ""
		}
	case ',':
		if sc.depth == 1 {
			sc.expectKey = true
		}
	case '{', '[':
		sc.depth++
		if sc.depth == 1 {
			sc.expectKey = b == '{'
		}
	case '}', ']':
		sc.depth--
	}
}

func (sc *envelopeScanner) endVal() {
	if !sc.valLong {
		if sc.found == nil {
			sc.found = map[string][]byte{}
		}
		sc.found[sc.inVal] = append([]byte(nil), bytes.TrimSpace(sc.val)...)
	}
	sc.inVal = ""
}

// result is the id and method found, where found.
func (sc *envelopeScanner) result() envelope {
	if sc.inVal != "" {
		sc.endVal()
	}
	var e envelope
	var v any
	if json.Unmarshal(sc.found["id"], &v) == nil {
		e.id, _ = jsonrpc.MakeID(v)
	}
	json.Unmarshal(sc.found["method"], &e.method)
	return e
}
