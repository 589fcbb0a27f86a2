package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"lore/mdstore"
	"lore/prompt"
)

type primeOptions struct {
	budget int // tokens, 0 = unlimited
	types  string
	tags   string
	recent int // days, 0 = no limit
	format string
}

func primeCommand(e *env) *cli.Command {
	formats := []string{"markdown", "json"}
	return &cli.Command{
		Name:  "prime",
		Usage: "print memories for an agent's context, within a token budget",
		UsageText: "lore prime [--budget TOKENS] [-t types] [--tags a,b] [--recent DAYS] [--format markdown|json]\n\n" +
			"Memories are grouped by type, newest first; 4 characters count as one token.\n" +
			"When the budget is too small, whole memories are left out and one line says how many.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "budget", Usage: "maximum tokens to print (0 = unlimited)"},
			typeFilterFlag, tagsFilterFlag,
			&cli.IntFlag{Name: "recent", Usage: "only memories created in the last DAYS days"},
			formatFlag("markdown", formats...),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("prime takes no arguments")
			}
			opts := primeOptions{budget: c.Int("budget"), types: c.String("type"), tags: c.String("tags"), recent: c.Int("recent"), format: c.String("format")}
			if err := checkFormat(opts.format, formats...); err != nil {
				return err
			}
			if opts.budget < 0 {
				return usagef("--budget must be 0 (unlimited) or more")
			}
			if opts.recent < 0 {
				return usagef("--recent must be 0 (no limit) or more")
			}
			return runPrime(e, globalsFrom(c), opts)
		},
	}
}

func runPrime(e *env, g globals, opts primeOptions) error {
	types, err := parseTypes(opts.types)
	if err != nil {
		return err
	}
	all, p, err := g.readMemories(e)
	if err != nil {
		return err
	}
	filter := mdstore.MemoryFilter{Types: types, Tags: parseTagFilter(opts.tags)}
	if opts.recent > 0 {
		today := e.now().UTC().Truncate(24 * time.Hour)
		filter.Since = today.AddDate(0, 0, -opts.recent)
	}
	block := prompt.Memories(filter.Filter(all), opts.budget)
	if opts.format == "json" {
		return writeJSON(p.out, struct {
			Memories     []memoryJSON `json:"memories"`
			Omitted      int          `json:"omitted"`
			BudgetTokens int          `json:"budget_tokens"`
			Notice       string       `json:"notice,omitempty"`
		}{toJSONList(block.Included), block.Omitted, opts.budget, block.Notice})
	}
	fmt.Fprint(p.out, block.Markdown)
	if block.Omitted > 0 {
		p.notice(fmt.Sprintf("prime: %d of %d memories left out to stay within %d tokens", block.Omitted, block.Omitted+len(block.Included), opts.budget))
	}
	return nil
}
