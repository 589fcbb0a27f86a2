package prompt_test

import (
	"fmt"

	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/prompt"
)

// Prime fills each section within its share of the budget, whole entries
// only, and says in one line what it left out.
func ExamplePrime() {
	in := prompt.Input{Memories: []entry.Memory{
		{ID: "mem-1737372000-a1b2", Type: entry.Pattern, Content: "Barrel exports at module boundaries.", Tags: []string{"imports"}, Created: "2025-01-20"},
		{ID: "mem-1737390000-0a7b", Type: entry.Fix, Content: "ECONNREFUSED on 5432: start PostgreSQL.", Tags: []string{"docker"}, Created: "2025-01-21"},
	}}
	ctx := prompt.Prime(in, prompt.Options{Budgets: config.Budgets{MemoriesTokens: 40}}) // 40 tokens: room for one of the two
	fmt.Print(ctx.Markdown())
	// Output:
	// ## Memories
	//
	// ### Fixes
	//
	// #### mem-1737390000-0a7b
	// > ECONNREFUSED on 5432: start PostgreSQL.
	// <!-- tags: docker | created: 2025-01-21 -->
	//
	// _Left out to stay within the budget: 1 memory. `lore search` finds them._
}
