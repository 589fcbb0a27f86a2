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
	op     string // index.OpStatus, OpRefresh, OpRebuild or OpStop
	format string
}

func indexCommand(e *env) *cli.Command {
	// action is a subcommand's: op is what it asks of the index.
	action := func(op string) cli.ActionFunc {
		return func(c *cli.Context) error {
			if op == index.OpStop {
				return runWith(e, globalsFrom(c), indexOptions{op: op}, runIndex)
			}
			if err := checkFormat(c.String("format"), "text", "json"); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), indexOptions{op: op, format: c.String("format")}, runIndex)
		}
	}
	return &cli.Command{
		Name:  "index",
		Usage: "the search index: its status, a refresh, a rebuild, or stopping its resident lore-index",
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
what went wrong if an update failed after its search was answered, and
whether a resident lore-index serves the store (or why none could). It reads
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
			{
				Name:      "stop",
				Usage:     "stop the resident lore-index of this store",
				UsageText: "lore index stop",
				Description: `A resident lore-index answers searches without a process started for each
(opt-in: git config lore.indexServer true, or LORE_INDEX_SERVER=1). It goes
by itself after 10 idle minutes, when lore-index is installed again, or when
the repository is removed; lore index stop asks it to go now, and returns
once it no longer listens. The next search starts another one if it is
still asked for.`,
				Action: action(index.OpStop),
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
	if opts.op == index.OpStop {
		r, err := index.StopResident(index.Dir(s))
		if errors.Is(err, index.ErrNoResident) {
			fmt.Fprintln(p.out, "No resident lore-index serves this store.")
			return nil
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(p.out, "Stopped the resident lore-index (pid %d, %d %s answered).\n", r.PID, r.Requests, words.Plural(r.Requests, "search", "searches"))
		return nil
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
	var resident *index.Resident
	residentErr := ""
	if opts.op == index.OpStatus {
		resident, _ = index.PingResident(index.Dir(s))
		residentErr = index.ResidentError(index.Dir(s))
	}
	if opts.format == "json" {
		return writeJSON(p.out, struct {
			Status        *index.Status   `json:"status"`
			Report        index.Report    `json:"report"`
			Resident      *index.Resident `json:"resident,omitempty"`
			ResidentError string          `json:"resident_error,omitempty"`
		}{resp.Status, resp.Report, resident, residentErr})
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
	if opts.op == index.OpStatus {
		printResident(p, resident, residentErr)
	}
	return nil
}

// printResident says whether a resident lore-index serves the store, or
// why none could.
func printResident(p *printer, r *index.Resident, failed string) {
	switch {
	case r == nil && failed != "":
		fmt.Fprintf(p.out, "Resident:  none: the last one could not listen (%s); lore starts no other until lore index stop\n", failed)
		return
	case r == nil:
		fmt.Fprintln(p.out, "Resident:  none (git config lore.indexServer true keeps one after a search)")
		return
	}
	hears := "hears of changes from the kernel, and checks every file only after one"
	if !r.Watching {
		hears = "checks every file of a small store before each search (no inotify here, or a file system it cannot vouch for)"
	}
	fmt.Fprintf(p.out, "Resident:  lore-index pid %d, since %s, %d %s answered; it %s\n",
		r.PID, r.Started.Local().Format("2006-01-02 15:04"), r.Requests, words.Plural(r.Requests, "search", "searches"), hears)
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
