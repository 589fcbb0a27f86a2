package prompt_test

import (
	"fmt"

	"lore/mdstore"
	"lore/prompt"
)

func ExampleMemories() {
	memories := []mdstore.Memory{
		{ID: "mem-1737372000-a1b2", Type: mdstore.Pattern, Content: "Barrel exports at module boundaries.", Tags: []string{"imports"}, Created: "2025-01-20"},
		{ID: "mem-1737390000-0a7b", Type: mdstore.Fix, Content: "ECONNREFUSED on 5432: start PostgreSQL.", Tags: []string{"docker"}, Created: "2025-01-21"},
	}
	block := prompt.Memories(memories, 60) // 60 tokens: room for one of the two
	fmt.Print(block.Markdown)
	// Output:
	// # Memories
	//
	// ## Fixes
	//
	// ### mem-1737390000-0a7b
	// > ECONNREFUSED on 5432: start PostgreSQL.
	// <!-- tags: docker | created: 2025-01-21 -->
	//
	// _1 more memory not shown (budget: 60 tokens); find them with `lore search`._
}
