package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"lore/usagelog"
)

func usageCommand(e *env) *cli.Command {
	formats := []string{"table", "json"}
	return &cli.Command{
		Name:      "usage",
		Usage:     "print when each entry was last put before an agent (by prime or show), and how often",
		UsageText: "lore usage [--format table|json]",
		Description: "lore prime counts the entries it shows, lore show the memory it shows. The counts are per\n" +
			"clone, in <git-dir>/lore/usage.log, never committed; lore prune and lore stats read them.\n" +
			"The most recently used first.",
		Flags: []cli.Flag{formatFlag("table", formats...)},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("usage takes no arguments")
			}
			if err := checkFormat(c.String("format"), formats...); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), usageOptions{format: c.String("format")}, runUsage)
		},
	}
}

type usageOptions struct {
	format string
}

func runUsage(e *env, g globals, opts usageOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	stats, err := usagelog.Open(s.StateDir()).Read()
	if err != nil {
		return err
	}
	if opts.format == "json" {
		if stats == nil {
			stats = []usagelog.Stat{}
		}
		return writeJSON(p.out, stats)
	}
	if len(stats) == 0 {
		fmt.Fprintln(p.out, "No entry has been used yet (lore prime and lore show count uses).")
		return nil
	}
	w := tabwriter.NewWriter(p.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ENTRY\tUSES\tLAST USED")
	for _, st := range stats {
		fmt.Fprintf(w, "%s\t%d\t%s\n", st.Key, st.Count, st.Last.Format("2006-01-02 15:04"))
	}
	return w.Flush()
}
