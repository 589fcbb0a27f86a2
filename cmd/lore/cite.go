package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
	"lore/mdstore/history"
	"lore/provenance"
)

// citeFlag is --cite on the add commands: a file the entry cites.
func citeFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "cite", Usage: "a file the entry cites, file[:lines] (repeatable; files its text names are cited too)"}
}

func staleCommand(e *env) *cli.Command {
	formats := []string{"table", "json"}
	return &cli.Command{
		Name:      "stale",
		Usage:     "list the entries a cited file has changed under since they were written, the oldest change first",
		UsageText: "lore stale [--format table|json]",
		Description: "An entry cites the files it names (and those --cite gave, and for an iteration the files it\n" +
			"modified), each with its content when the entry was written (.agent/citations.md). It is stale\n" +
			"when HEAD holds other content at a cited path, or no file there (a file moved unchanged is\n" +
			"followed): git says which commits changed it since. lore verify ID re-stamps an entry once\n" +
			"someone has checked it still holds.",
		Flags: []cli.Flag{formatFlag("table", formats...)},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("stale takes no arguments")
			}
			if err := checkFormat(c.String("format"), formats...); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), c.String("format"), runStale)
		},
	}
}

func runStale(e *env, g globals, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	report, err := provenance.Read(s)
	if err != nil {
		return err
	}
	stale, err := report.Stale()
	if err != nil {
		return err
	}
	type staleJSON struct {
		ID    string   `json:"id"`
		Since string   `json:"since,omitempty"`
		Files []string `json:"files"`
		Mark  string   `json:"mark"`
	}
	out := make([]staleJSON, 0, len(stale))
	for _, st := range stale {
		j := staleJSON{ID: provenance.ID(st.Key), Mark: st.Mark}
		if !st.Since.IsZero() {
			j.Since = st.Since.UTC().Format("2006-01-02")
		}
		for _, c := range st.Checks {
			j.Files = append(j.Files, c.Ref())
		}
		out = append(out, j)
	}
	if format == "json" {
		return writeJSON(p.out, out)
	}
	if len(out) == 0 {
		fmt.Fprintln(p.out, "No entry is stale: every file an entry cites holds what it held when the entry was written.")
		return nil
	}
	rows := make([][]string, 0, len(out))
	for _, j := range out {
		rows = append(rows, []string{j.ID, j.Since, j.Mark})
	}
	p.table([]string{"ENTRY", "SINCE", "WHY"}, rows)
	fmt.Fprintf(p.out, "%d stale %s: check %s, then lore verify ID… (or lore edit it).\n", len(out), words.Plural(len(out), "entry", "entries"), words.Plural(len(out), "it", "them"))
	return nil
}

func verifyCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "verify",
		Usage:     "record that entries still hold: their citations re-stamped at HEAD, as one commit",
		UsageText: "lore verify ID… [--stale]",
		Description: "After someone checked an entry against the code as it is now, lore verify records what it cites\n" +
			"as HEAD holds it (a moved file at its new path; a file gone is dropped, and said), so that prime\n" +
			"and lore stale no longer mark it. --stale verifies every stale entry. One commit, \"lore: verify\n" +
			"citations of N entries\".",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "stale", Usage: "every entry lore stale lists"}},
		Action: func(c *cli.Context) error {
			ids := c.Args().Slice()
			if len(ids) == 0 && !c.Bool("stale") {
				return usagef("verify needs the ids of the entries to verify, or --stale")
			}
			return runWith(e, globalsFrom(c), verifyOptions{ids: ids, stale: c.Bool("stale")}, runVerify)
		},
	}
}

type verifyOptions struct {
	ids   []string
	stale bool
}

func runVerify(e *env, g globals, opts verifyOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	report, err := provenance.Read(s)
	if err != nil {
		return err
	}
	var keys []string
	for _, id := range opts.ids {
		key := provenance.KeyOfID(id)
		if held, err := provenance.Holds(s, key); err != nil {
			return err
		} else if !held {
			return entry.NotFound(entry.KindOfID(id))
		}
		if !report.Cites(key) {
			return usagef("%s cites no file: there is nothing to verify (lore stale lists the stale entries)", id)
		}
		keys = append(keys, key)
	}
	if opts.stale {
		stale, err := report.Stale()
		if err != nil {
			return err
		}
		for _, st := range stale {
			keys = append(keys, st.Key)
		}
	}
	if len(keys) == 0 {
		fmt.Fprintln(p.out, "No entry is stale: nothing to verify.")
		return nil
	}
	set := map[string][]cites.Cite{}
	for _, key := range keys {
		cs, dropped, err := report.Restamp(key)
		if err != nil {
			return err
		}
		set[key] = cs
		if len(dropped) > 0 {
			p.Notice(fmt.Sprintf("%s no longer cites %s: no such file at HEAD", provenance.ID(key), strings.Join(dropped, ", ")))
		}
	}
	res, err := provenance.Recite(s, set, fmt.Sprintf("lore: verify citations of %d %s", len(set), words.Plural(len(set), "entry", "entries")))
	if err != nil {
		return err
	}
	printWrite(p, res, "Citations", "")
	fmt.Fprintf(p.out, "Verified %d %s at %s.\n", len(set), words.Plural(len(set), "entry", "entries"), shortHash(report.Head.String()))
	return nil
}

func citeCommand(e *env) *cli.Command {
	formats := []string{"table", "json"}
	return &cli.Command{
		Name:      "cite",
		Usage:     "cite the files entries written before lore kept citations name, as the commit that wrote each held them",
		UsageText: "lore cite [ID…] [--dry-run] [--format table|json]",
		Description: "A memory, knowledge entry or learning written before lore kept citations (or imported) cites\n" +
			"nothing, so git cannot tell when it goes stale. lore cite reads, for each that cites nothing (or\n" +
			"those named), the commit that wrote its text (lore history's newest version), and cites the files\n" +
			"its text names as that commit held them: paths, and bare file names (\"login.go\") that name one\n" +
			"file of that commit's tree. From then on lore stale and prime mark it when those files change, and\n" +
			"show what changed since it was written. One commit, \"lore: cite N entries from history\";\n" +
			"--dry-run prints what it would cite.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "dry-run", Usage: "print what would be cited, change nothing"}, formatFlag("table", formats...)},
		Action: func(c *cli.Context) error {
			if err := checkFormat(c.String("format"), formats...); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), citeOptions{ids: c.Args().Slice(), dryRun: c.Bool("dry-run"), format: c.String("format")}, runCite)
		},
	}
}

type citeOptions struct {
	ids    []string
	dryRun bool
	format string
}

func runCite(e *env, g globals, opts citeOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	found, err := history.CiteFromHistory(s, opts.ids)
	if err != nil {
		return err
	}
	if opts.format == "json" {
		if found == nil {
			found = []history.Cited{}
		}
		if err := writeJSON(p.out, found); err != nil || opts.dryRun || len(found) == 0 {
			return err
		}
	} else {
		if len(found) == 0 {
			fmt.Fprintln(p.out, "No entry to cite: every entry cites files already, or names none its commit held.")
			return nil
		}
		rows := make([][]string, 0, len(found))
		for _, f := range found {
			refs := make([]string, len(f.Cites))
			for i, c := range f.Cites {
				refs[i] = c.Ref()
			}
			rows = append(rows, []string{f.ID, shortHash(f.Commit), strings.Join(refs, ", ")})
		}
		p.table([]string{"ENTRY", "WRITTEN AT", "CITES"}, rows)
		if opts.dryRun {
			fmt.Fprintf(p.out, "Would cite files for %d %s (--dry-run: nothing written).\n", len(found), words.Plural(len(found), "entry", "entries"))
			return nil
		}
	}
	set := make(map[string][]cites.Cite, len(found))
	for _, f := range found {
		set[provenance.KeyOfID(f.ID)] = f.Cites
	}
	res, err := provenance.Recite(s, set, fmt.Sprintf("lore: cite %d %s from history", len(set), words.Plural(len(set), "entry", "entries")))
	if err != nil {
		return err
	}
	if opts.format != "json" {
		printWrite(p, res, "Citations", "")
		fmt.Fprintf(p.out, "Cited files for %d %s; lore stale lists those the code has changed under since.\n", len(set), words.Plural(len(set), "entry", "entries"))
	}
	return nil
}

// shortHash is a commit's first 7 hex digits.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
