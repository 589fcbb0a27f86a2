package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"lore/internal/fsx"
	"lore/internal/words"
	"lore/mdstore/entry"
	"lore/mdstore/merge"
)

// --- merge-driver ---

type mergeDriverOptions struct {
	base, ours, theirs string // the files git hands over: %O %A %B
	path               string // %P: the path being merged, relative to the worktree top
}

func mergeDriverCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "merge-driver",
		Usage:     "merge lore's files entry by entry (git runs it: lore init registers it, and any lore command in a clone without it)",
		UsageText: "lore merge-driver BASE OURS THEIRS PATH   (git: lore merge-driver %O %A %B %P)",
		Description: "memories.md merges memory by memory, the other .agent/ files field by field: additions from both\n" +
			"sides are kept, a deletion on one side is honoured, and only an entry whose text both sides changed\n" +
			"differently gets conflict markers. The result replaces OURS; the exit status is 1 when a conflict\n" +
			"is left. Tags and other lists merge as a union; a time both sides changed (created_at,\n" +
			"updated_at) takes the later one. Two iterations recorded at one journal path on two branches\n" +
			"are kept whole between markers, and the driver says to move one to a file of its own.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 4 {
				return usagef("merge-driver takes four arguments: %%O %%A %%B %%P")
			}
			a := c.Args().Slice()
			return runWith(e, globalsFrom(c), mergeDriverOptions{base: a[0], ours: a[1], theirs: a[2], path: a[3]}, runMergeDriver)
		},
	}
}

// runMergeDriver ignores the globals: git names the files, and the store
// is not opened.
func runMergeDriver(e *env, _ globals, opts mergeDriverOptions) error {
	var sides [3][]byte
	for i, p := range []string{opts.base, opts.ours, opts.theirs} {
		data, err := os.ReadFile(e.abs(p))
		if err != nil {
			return fmt.Errorf("merge-driver: %w", err)
		}
		sides[i] = data
	}
	res, err := merge.File(entry.StorePath(opts.path), sides[0], sides[1], sides[2],
		merge.Labels{Ours: "ours", Base: "base", Theirs: "theirs"})
	if err != nil {
		// git keeps OURS as it was and reports a conflict.
		fmt.Fprintf(e.stderr, "lore merge-driver: %s: %s\n", opts.path, err)
		return &reportedError{code: exitFailure}
	}
	if err := fsx.WriteFile(e.abs(opts.ours), res.Data, fsx.Unsynced); err != nil {
		return fmt.Errorf("merge-driver: %w", err)
	}
	for _, r := range res.Renamed {
		fmt.Fprintf(e.stderr, "lore merge-driver: %s: %s\n", opts.path, r)
	}
	if res.Conflicts > 0 && res.Note != "" {
		fmt.Fprintf(e.stderr, "lore merge-driver: %s: %s\n", opts.path, res.Note)
		return &reportedError{code: exitFailure}
	}
	if res.Conflicts > 0 {
		fmt.Fprintf(e.stderr, "lore merge-driver: %s: %d %s left with conflict markers around %s\n", opts.path,
			res.Conflicts, words.Plural(res.Conflicts, "entry", "entries"), words.Plural(res.Conflicts, "it", "them"))
		return &reportedError{code: exitFailure}
	}
	return nil
}
