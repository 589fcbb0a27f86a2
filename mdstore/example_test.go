package mdstore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"lore/mdstore"
	"lore/mdstore/entry"
)

// A store outside a git repository writes files only; inside one, every
// change is a commit.
func Example() {
	dir, _ := os.MkdirTemp("", "lore-example")
	defer os.RemoveAll(dir)

	store, err := mdstore.Open(dir, mdstore.Options{
		Now:    func() time.Time { return time.Date(2025, 1, 20, 12, 0, 0, 0, time.UTC) },
		Random: strings.NewReader("\xa1\xb2"), // ids end in 4 random hex digits
	})
	if err != nil {
		panic(err)
	}
	m, _, err := store.AddMemory(mdstore.NewMemory{
		Type:    entry.Decision,
		Content: "Chose JSONL over SQLite: simpler, git-friendly, append-only.",
		Tags:    []string{"architecture", "storage"},
	})
	if err != nil {
		panic(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, entry.MemoriesPath))
	fmt.Println(m.Type, m.Created)
	fmt.Print(string(data))
	// Output:
	// decision 2025-01-20
	// # Memories
	//
	// ## Patterns
	//
	// ## Decisions
	//
	// ### mem-1737374400-a1b2
	// > Chose JSONL over SQLite: simpler, git-friendly, append-only.
	// <!-- tags: architecture, storage | created: 2025-01-20 -->
	//
	// ## Fixes
	//
	// ## Context
}
