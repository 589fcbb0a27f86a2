package entry

import (
	"fmt"
	"strings"
	"testing"
)

// bigMemoriesFile builds a memories.md of n memories of realistic size.
func bigMemoriesFile(n int) []byte {
	var b strings.Builder
	b.WriteString(MemoriesTemplate)
	src := []byte(b.String())
	for i := 0; i < n; i++ {
		m := Memory{ID: fmt.Sprintf("mem-%d-%04x", 1737372000+i, i%65536), Type: MemoryTypes[i%4],
			Content: strings.Repeat("the agent learned something about the build ", 1+i%6), Tags: []string{"build", "ci", fmt.Sprintf("t%d", i%50)}, Created: "2025-02-01"}
		src = append(src, "\n"+FormatMemory(m)...)
	}
	return src
}

func BenchmarkParseMemories10k(b *testing.B) {
	src := bigMemoriesFile(10000)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if f := ParseMemoriesFile(src, MemoriesPath); len(f.Memories) != 10000 {
			b.Fatalf("%d memories, %d warnings: %v", len(f.Memories), len(f.Warnings), f.Warnings[:1])
		}
	}
}
