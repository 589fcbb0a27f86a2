package main

import (
	"fmt"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"

	"github.com/urfave/cli/v2"

	"lore/internal/words"
	"lore/remote"
)

func syncCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "pull the branch from its upstream (merging the store with lore's merge driver) and push it, for a team or a CI runner sharing one remote",
		UsageText: "lore sync [--retries N] [--format text|json|quiet]",
		Description: "Fetches the branch's upstream, merges or rebases onto it as git pull would\n" +
			"(branch.<name>.rebase, else pull.rebase), lore's merge driver merging the store's files,\n" +
			"then pushes; when another clone pushed first, it pulls and pushes again (--retries times).\n" +
			"It holds lore's sync lock throughout: other lore commands queue their changes meanwhile,\n" +
			"and lore sync commits and pushes them too. Whatever git begins, lore sync finishes or aborts:\n" +
			"a merge or rebase that stops on a conflict in a file lore does not merge is aborted and the\n" +
			"files named (exit 1, nothing changed); one a stopped lore sync left behind is aborted by the\n" +
			"next. It needs git on PATH and a branch with an upstream (git push -u origin main once).\n\n" +
			"  lore sync                      # after a loop, before the CI job ends, or on a timer",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "retries", Value: remote.DefaultRetries, Usage: "how many times to pull and push again when the remote rejects the push"},
			formatFlag("text", "text", "json", "quiet"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("sync takes no arguments")
			}
			if err := checkFormat(c.String("format"), "text", "json", "quiet"); err != nil {
				return err
			}
			if c.Int("retries") < 1 {
				return usagef("--retries must be at least 1")
			}
			return runWith(e, globalsFrom(c), syncOptions{retries: c.Int("retries"), format: c.String("format")}, runSync)
		},
	}
}

type syncOptions struct {
	retries int
	format  string
}

func runSync(e *env, g globals, opts syncOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	// Ctrl-C stops lore sync between two git commands; git, in a process
	// group of its own, is not cut off in the middle of a merge.
	var stop atomic.Bool
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(signals)
	go func() {
		for range signals {
			stop.Store(true)
		}
	}()
	p := g.printer(e)
	res, err := remote.Sync(s, remote.Options{Retries: opts.retries, Interrupted: stop.Load}, p)
	if err != nil {
		return err
	}
	switch opts.format {
	case "json":
		return writeJSON(p.out, res)
	case "quiet":
		return nil
	}
	fmt.Fprintf(p.out, "%sSynced %s with %s (%s): pulled %d %s, pushed %d\n", p.emoji("🔄 "), res.Branch, res.Upstream, res.Mode,
		res.Pulled, words.Plural(res.Pulled, "commit", "commits"), res.Pushed)
	return nil
}
