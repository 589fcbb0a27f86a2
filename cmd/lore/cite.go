package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/mdstore/cites"
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

// shortHash is a commit's first 7 hex digits.
func shortHash(h string) string {
	if len(h) > 7 {
		return h[:7]
	}
	return h
}
