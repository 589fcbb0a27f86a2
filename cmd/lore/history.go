package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"lore/mdstore/history"
)

func historyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "history",
		Usage:     "list every version of an entry in git's history, newest first",
		UsageText: "lore history <id> [--patch] [--format table|json]",
		Description: "The id of a memory, a knowledge entry (its slug), a learning, a journal\n" +
			"entry (<run>/<file name>) or a skill (its name), there or deleted. Each\n" +
			"version is a commit, through deletes, restores and edits by hand: when,\n" +
			"who, whether lore or a hand made it (lore's commits say \"lore: \"), and\n" +
			"what it did to the entry (added, changed, deleted, restored, renamed from\n" +
			"a file git's history shows it moved from, a learning's new status).\n" +
			"--patch shows what each version changed of the entry alone (a memory's\n" +
			"block, an entry's file) as a unified diff. A commit a git reset, a rebase\n" +
			"or an amend took off the branch, which only the reflog still holds, is\n" +
			"listed too (\"off the branch\"), and lore restore brings its version back.",
		Flags: []cli.Flag{formatFlag("table", "table", "json"),
			&cli.BoolFlag{Name: "patch", Aliases: []string{"p"}, Usage: "show what each version changed of the entry, as a unified diff"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("history needs exactly one id")
			}
			if err := checkFormat(c.String("format"), "table", "json"); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), historyOptions{id: c.Args().First(), format: c.String("format"), patch: c.Bool("patch")}, runHistory)
		},
	}
}

type historyOptions struct {
	id, format string
	patch      bool
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
	if opts.patch {
		history.WithPatches(versions)
	}
	p := g.printer(e)
	if opts.format == "json" {
		return writeJSON(p.out, versions)
	}
	header := []string{"COMMIT", "DATE", "AUTHOR", "BY", "CHANGE", "SUBJECT"}
	row := func(v history.EntryVersion) []string {
		change := v.Change
		if v.OffBranch {
			change += " (off the branch)"
		}
		return []string{v.Commit[:12], v.When.Format(time.DateTime), v.Author, v.By, change, v.Subject}
	}
	if !opts.patch {
		rows := make([][]string, len(versions))
		for i, v := range versions {
			rows[i] = row(v)
		}
		p.table(header, rows)
		return nil
	}
	// git log -p's shape: each version's line, then its diff.
	for i, v := range versions {
		if i > 0 {
			fmt.Fprintln(p.out)
		}
		fmt.Fprintln(p.out, p.paint(ansiYellow, "commit "+v.Commit)+" "+strings.Join(row(v)[1:], "  "))
		fmt.Fprint(p.out, v.Patch)
	}
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
