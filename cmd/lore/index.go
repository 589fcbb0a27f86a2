package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"lore/index"
	"lore/internal/words"
	"lore/mdstore/entry"
)

type indexOptions struct {
	op     string // index.OpStatus, OpRefresh or OpRebuild
	format string
}

func indexCommand(e *env) *cli.Command {
	// action is a subcommand's: op is what it asks of the index.
	action := func(op string) cli.ActionFunc {
		return func(c *cli.Context) error {
			if err := checkFormat(c.String("format"), "text", "json"); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), indexOptions{op: op, format: c.String("format")}, runIndex)
		}
	}
	return &cli.Command{
		Name:  "index",
		Usage: "the search index: its status, a refresh, or a rebuild",
		Description: "The index lives under the git directory (.git/lore/index, one per worktree, never\n" +
			"committed) and is brought up to date before every search; these commands are for\n" +
			"looking at it and starting over. With no store here they say so.",
		Subcommands: []*cli.Command{
			{
				Name:      "status",
				Usage:     "what the index holds and whether it is fresh",
				UsageText: "lore index status [--format text|json]",
				Description: `Where the index is, how many entries and files it holds, whether every file
matches what was indexed (it checks every file's stat, after waiting for a
lore-index that is still finishing an update), how it is kept fresh, and
what went wrong if an update failed after its search was answered. It reads
every byte of the index's files against what lore wrote, and says
"Status: damaged: <why>; the next search or lore index refresh rebuilds it"
rather than fresh when they are not.`,
				Flags:  []cli.Flag{formatFlag("text", "text", "json")},
				Action: action(index.OpStatus),
			},
			{
				Name:      "refresh",
				Usage:     "bring the index up to date now (what every search does first)",
				UsageText: "lore index refresh [--format text|json]",
				Description: "The git hooks that lore hooks install writes run it after a merge, a checkout or a rebase,\n" +
					"so that the next search finds the index fresh. It reads every byte of the index's files,\n" +
					"as status does, and rebuilds a damaged index rather than say it is up to date.",
				Flags:  []cli.Flag{formatFlag("text", "text", "json")},
				Action: action(index.OpRefresh),
			},
			{
				Name:      "rebuild",
				Usage:     "build the index again from the files",
				UsageText: "lore index rebuild [--format text|json]",
				Description: `Builds the index again from the files, with a progress bar on a terminal,
and drops prime's cache of the entries: both then see a file rewritten in
place in a store of more than 2,000 entries, which they do not stat one by
one before each search.`,
				Flags:  []cli.Flag{formatFlag("text", "text", "json")},
				Action: action(index.OpRebuild),
			},
		},
	}
}

func runIndex(e *env, g globals, opts indexOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	if !s.Exists() {
		// No store: nothing to index, and lore-index would make .agent/.
		return &entry.InputError{Field: "store", Msg: "no store here (" + s.Root() + " has no " + entry.Dir + "/; lore init makes one)"}
	}
	helper, err := index.FindHelper(e.getenv)
	if err != nil {
		return errors.New("lore index needs lore-index, next to lore or on PATH (go install ./cmd/... installs both)")
	}
	req := index.StoreRequest(s, opts.op)
	req.TimeoutMS = int(index.Timeout / time.Millisecond)
	if opts.op == index.OpRebuild {
		// Prime's cache of the entries is rebuilt with the index: both
		// see a file rewritten in place in a large store only so.
		if err := s.DropEntryCache(); err != nil {
			return err
		}
		req.TimeoutMS = int(10 * index.Timeout / time.Millisecond)
		req.Progress = e.stderrTerminal && opts.format == "text"
	}
	start := time.Now()
	resp, err := index.Call(helper, req, e.stderr)
	if err != nil {
		return err
	}
	if resp.Busy {
		return errors.New("the search index is busy (another lore process is writing it); try again")
	}
	if resp.Error != "" {
		return errors.New(resp.Error)
	}
	p.Warnings(resp.Report.Warnings)
	if opts.format == "json" {
		return writeJSON(p.out, struct {
			Status *index.Status `json:"status"`
			Report index.Report  `json:"report"`
		}{resp.Status, resp.Report})
	}
	switch {
	case opts.op == index.OpRebuild || resp.Report.Rebuilt:
		fmt.Fprintf(p.out, "Rebuilt the search index: %d entries from %d files in %.1fs\n",
			resp.Report.Indexed, resp.Report.Files, time.Since(start).Seconds())
	case opts.op == index.OpRefresh:
		r := resp.Report
		fmt.Fprintf(p.out, "The search index is up to date: %d %s read again, %d %s indexed, %d removed\n",
			r.Files, words.Plural(r.Files, "file", "files"), r.Indexed, words.Plural(r.Indexed, "entry", "entries"), r.Removed)
	}
	printStatus(p, resp.Status)
	return nil
}

func printStatus(p *printer, st *index.Status) {
	if st == nil {
		return
	}
	if st.Damaged != "" {
		fmt.Fprintf(p.out, "Index:     %s\nStatus:    damaged: %s; the next search or lore index refresh rebuilds it\n", st.Dir, st.Damaged)
		return
	}
	if st.Problem != "" {
		fmt.Fprintf(p.out, "Index:     %s\nStatus:    no usable index: %s; the next search builds it\n", st.Dir, st.Problem)
		return
	}
	fresh := "fresh"
	if !st.Fresh {
		fresh = fmt.Sprintf("%d changed %s not indexed yet; the next search indexes %s",
			st.StaleFiles, words.Plural(st.StaleFiles, "file", "files"), words.Plural(st.StaleFiles, "it", "them"))
	}
	checked := "directories, memories.md and skills (a file rewritten in place is seen once its directory changes, or by lore index rebuild)"
	if st.EveryFile {
		checked = "every file"
	}
	fmt.Fprintf(p.out, "Index:     %s\nEntries:   %d in %d files\nStatus:    %s\nChecked:   %s, before every search\n",
		st.Dir, st.Documents, st.Files, fresh, checked)
	if st.LastError != "" {
		fmt.Fprintf(p.out, "Problem:   an update after a search failed: %s\n", st.LastError)
	}
}
