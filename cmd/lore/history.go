package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"lore/mdstore/history"
)

func historyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "list every version of an entry in git's history, newest first",
		UsageText: "lore history <id> [--format table|json]",
		Description: "The id of a memory, a knowledge entry (its slug), a learning or a journal\n" +
			"entry (<run>/<file name>), there or deleted. Each version is a commit:\n" +
			"when, by whom, and what it did to the entry (added, changed, removed, a\n" +
			"learning's new status). A commit a git reset, a rebase or an amend took\n" +
			"off the branch, which only the reflog still holds, is listed too (\"off\n" +
			"the branch\"), and lore restore brings its version back.",
		Flags: []cli.Flag{formatFlag("table", "table", "json")},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("history needs exactly one id")
			}
			if err := checkFormat(c.String("format"), "table", "json"); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), historyOptions{id: c.Args().First(), format: c.String("format")}, runHistory)
		},
	}
}

type historyOptions struct {
	id, format string
}

func runHistory(e *env, g globals, opts historyOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	versions, err := history.Versions(s, opts.id)
	if err != nil {
		return err
	}
	p := g.printer(e)
	if opts.format == "json" {
		return writeJSON(p.out, versions)
	}
	rows := make([][]string, len(versions))
	for i, v := range versions {
		change := v.Change
		if v.OffBranch {
			change += " (off the branch)"
		}
		rows[i] = []string{v.Commit[:12], v.When.Format(time.DateTime), v.Author, change, v.Subject}
	}
	p.table([]string{"COMMIT", "DATE", "AUTHOR", "CHANGE", "SUBJECT"}, rows)
	return nil
}

func restoreCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "restore",
		Usage:     "bring back a deleted entry, or a learning's last version that was shown, from git's history",
		UsageText: "lore restore <id> [--format table|json|quiet]",
		Description: "Commits again the last version git's history has of a deleted memory,\n" +
			"knowledge entry, learning or journal entry — or of a pruned, rejected or\n" +
			"superseded learning, its last version that was active — naming the\n" +
			"commit it came from (lore history lists them).",
		Flags: []cli.Flag{formatFlag("table", "table", "json", "quiet")},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("restore needs exactly one id")
			}
			if err := checkFormat(c.String("format"), "table", "json", "quiet"); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), restoreOptions{id: c.Args().First(), format: c.String("format")}, runRestore)
		},
	}
}

type restoreOptions struct {
	id, format string
}

func runRestore(e *env, g globals, opts restoreOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	from, res, err := history.Restore(s, opts.id)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printWrite(p, res, "Restore of", opts.id)
	switch opts.format {
	case "json":
		return writeJSON(p.out, struct {
			ID     string               `json:"id"`
			From   history.EntryVersion `json:"from"`
			Commit string               `json:"commit,omitempty"`
		}{opts.id, from, res.Commit})
	case "quiet":
		fmt.Fprintln(p.out, opts.id)
	default:
		fmt.Fprintf(p.out, "%sRestored %s from %s (%s, %s)\n", p.emoji("♻️ "), p.paint(ansiYellow, opts.id), from.Commit[:12],
			from.When.Format(time.DateOnly), from.Subject)
	}
	return nil
}
