package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"lore/internal/loretest"
)

// FuzzDecodeFrame: whatever a line holds, decoding it does not panic; it
// is a message, or an answer that is JSON, or nothing for a blank line or
// a batch of notifications; and the id the envelope scanner reads from a
// line is the id encoding/json reads from it.
func FuzzDecodeFrame(f *testing.F) {
	for _, seed := range []string{
		"garbage", "\x00", `{"jsonrpc":"2.0","id":7,"method":"ping"` + "\x00}", "\xff\xfe{}",
		`{"jsonrpc":"2.0","id":"u8","method":"tools/call","params":{"name":"add_memory","arguments":{"content":"caf` + "\xe9" + `"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"ping"} {"x":1}`, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{`,
		`[{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, "[]",
		`[{"jsonrpc":"2.0","method":"notifications/initialized"}]`, "{}", "42", `{"jsonrpc":"1.0","id":10,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `{"method":"tools/call","params":{"id":"inner"},"jsonrpc":"2.0","id":"last"}`,
		`{"jsonrpc":"2.0","id":12,"result":{}}`, `{"jsonrpc":"2.0","id":"a,}b","method":"x"}`, " \r", "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, reply := decodeFrame(frame{data: line})
		switch {
		case msg != nil && reply != nil:
			t.Fatalf("%q: a message and an answer", line)
		case reply != nil && !json.Valid(reply):
			t.Fatalf("%q: the answer is not JSON: %q", line, reply)
		case msg == nil && reply == nil && len(bytes.TrimSpace(line)) > 0 && bytes.TrimSpace(line)[0] != '[':
			t.Fatalf("%q: neither a message nor an answer", line)
		}
		var m map[string]json.RawMessage
		if bytes.IndexByte(line, '\\') >= 0 || bytes.Count(line, []byte(`"id"`)) != 1 || json.Unmarshal(line, &m) != nil ||
			len(m["id"]) >= maxIDBytes {
			return
		}
		var v any
		json.Unmarshal(m["id"], &v)
		want, err := jsonrpc.MakeID(v)
		if err != nil {
			return
		}
		if got := scanEnvelope(line).id; got != want {
			t.Fatalf("%q: the scanner read the id %v, encoding/json %v", line, got.Raw(), want.Raw())
		}
	})
}

// TestAnAnswerThatCannotBeEncodedIsAnError: an answer the SDK cannot
// encode (data that is not JSON) is written as an internal error
// answering the same call, and the connection goes on; it used to end
// the connection, and lore-mcp with it.
func TestAnAnswerThatCannotBeEncodedIsAnError(t *testing.T) {
	var out bytes.Buffer
	s := newStream(strings.NewReader(""), &out, MaxFrame)
	bad := &jsonrpc.Response{ID: mustID(t, 3), Result: json.RawMessage(`{"uri":"lore://x` + "\x00" + `"}`)}
	if err := s.Write(context.Background(), bad); err != nil {
		t.Fatalf("Write: %v", err)
	}
	var m struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out.Bytes(), &m); err != nil || m.ID != 3 || m.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(m.Error.Message, "could not encode") {
		t.Fatalf("wrote %q (%v), want an internal error for call 3", out.Bytes(), err)
	}
	if err := s.Write(context.Background(), &jsonrpc.Response{ID: mustID(t, 4), Result: json.RawMessage(`{}`)}); err != nil {
		t.Errorf("the next answer: %v", err)
	}
}

func mustID(t *testing.T, n float64) jsonrpc.ID {
	id, err := jsonrpc.MakeID(n)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// TestTheEndOfInputWaitsForAnswers: a call whose id is that of a call
// under way is refused, and the end of the input ends the connection
// only once every call read has been answered — the SDK writes nothing
// after its reader ends.
func TestTheEndOfInputWaitsForAnswers(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	defer outR.Close()
	s := newStream(inR, outW, MaxFrame)
	out := bufio.NewReader(outR)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	go io.WriteString(inW, ping+ping)
	msg, err := s.Read(context.Background())
	if err != nil || msg == nil {
		t.Fatalf("Read: %v %v", msg, err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := s.Read(context.Background())
		read <- err
	}()
	done := loretest.NoHang(t, "reading the stream's answer")
	line, err := out.ReadString('\n')
	done()
	if err != nil || !strings.Contains(line, `"id":1,"error":{"code":-32600`) || !strings.Contains(line, "under way") {
		t.Fatalf("the second call with id 1: %q %v", line, err)
	}
	inW.Close()
	select {
	case err := <-read:
		t.Fatalf("Read returned %v with call 1 unanswered", err)
	default:
	}
	go s.Write(context.Background(), &jsonrpc.Response{ID: mustID(t, 1), Result: json.RawMessage(`{}`)})
	if line, _ := out.ReadString('\n'); !strings.Contains(line, `"id":1,"result"`) {
		t.Fatalf("the answer: %q", line)
	}
	done = loretest.NoHang(t, "the end of the input")
	err = <-read
	done()
	if err != io.EOF {
		t.Errorf("Read at the end: %v, want EOF", err)
	}
}
