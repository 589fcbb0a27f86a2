package agentout

import (
	"encoding/json"
	"strings"
	"testing"
)

// bigStream is a Claude Code stream of about 12 MiB: a Write of 8 MiB, a
// text of 4 MiB on one line and 20,000 small lines.
func bigStream() []byte {
	var b strings.Builder
	b.WriteString(`{"type":"system","subtype":"init","model":"m"}` + "\n")
	content, _ := json.Marshal(strings.Repeat("x = 1\n", 8<<20/6))
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"w","name":"Write","input":{"file_path":"/r/big.go","content":` + string(content) + `}}]}}` + "\n")
	text, _ := json.Marshal(strings.Repeat("word ", 4<<20/5) + "<task-done>t-1</task-done>")
	b.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":` + string(text) + `}]}}` + "\n")
	for i := 0; i < 20000; i++ {
		b.WriteString(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","content":"ok"}]}}` + "\n")
	}
	return []byte(b.String())
}

func BenchmarkReadLargeStream(b *testing.B) {
	in := bigStream()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Read(in, Auto)
	}
}

// BenchmarkReadText is what plain text costs: Detect's look at its first
// byte.
func BenchmarkReadText(b *testing.B) {
	in := []byte(strings.Repeat("The agent's plain output.\n", 4000))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Read(in, Auto)
	}
}
