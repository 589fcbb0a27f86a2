package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"lore/index"
	"lore/internal/fsx"
	"lore/internal/sibling"
	"lore/internal/words"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
)

func exportCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write every entry to stdout: JSON that lore import reads back whole, or CSV",
		UsageText: "lore export [--kind k,…] [--format json|csv]",
		Description: `JSON: {"lore_export": 1, "memories": […], "knowledge": […], "learnings": […],
"journal": […]}, each entry whole. CSV: kind, id, type, tags, created,
status, title, content. Exporting, importing into an empty store and
exporting again gives the same bytes.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "kind", Aliases: []string{"k"}, Usage: "only these kinds (comma-separated): memory, knowledge, learning, journal"},
			formatFlag("json", "json", "csv"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("export takes no arguments (it writes to stdout)")
			}
			if err := checkFormat(c.String("format"), "json", "csv"); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), exportOptions{kinds: c.String("kind"), format: c.String("format")}, runExport)
		},
	}
}

type exportOptions struct{ kinds, format string }

func runExport(e *env, g globals, opts exportOptions) error {
	var kinds []entry.Kind
	if opts.kinds != "" {
		ks, bad, ok := index.KindNames(splitList(opts.kinds))
		if !ok || slices.Contains(ks, entry.KindSkill) {
			if ok {
				bad = "skill"
			}
			return usagef("unknown kind %q%s (use memory, knowledge, learning or journal)", bad,
				didYouMean(bad, kindNames(entry.KindMemory, entry.KindKnowledge, entry.KindLearning, entry.KindJournal)))
		}
		kinds = ks
	}
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	x, warnings, err := lifecycle.ExportFrom(s, kinds...)
	if err != nil {
		return err
	}
	p := g.printer(e)
	p.Warnings(warnings)
	if opts.format == "json" {
		return writeJSON(p.out, x)
	}
	w := csv.NewWriter(p.out)
	w.Write([]string{"kind", "id", "type", "tags", "created", "status", "title", "content"})
	for _, m := range x.Memories {
		w.Write([]string{"memory", m.ID, string(m.Type), strings.Join(m.Tags, ","), m.Created, "", "", m.Content})
	}
	for _, k := range x.Knowledge {
		w.Write([]string{"knowledge", k.Slug, "", strings.Join(k.Tags, ","), k.CreatedAt, "", k.Title, k.Body})
	}
	for _, l := range x.Learnings {
		w.Write([]string{"learning", l.ID, l.Category, strings.Join(l.Tags, ","), l.CreatedAt, l.Status, "", l.Body})
	}
	for _, j := range x.Journal {
		w.Write([]string{"journal", j.Key(), j.Outcome, "", j.CreatedAt, "", j.TaskID, j.Notes})
	}
	w.Flush()
	return w.Error()
}

func importCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "add the entries of a lore export, or of another system's store, the store does not have, as one commit",
		UsageText: "lore import <FILE|-|DIR> [--update] [--format table|json]",
		Description: "Reads what lore export wrote, or in a directory the stores people keep their agents' memory in:\n" +
			"ralph-orchestrator's .ralph/agent/memories.md and its decision journal .ralph/agent/decisions.md\n" +
			"(each DEC-NNN a decision memory), RefoundAI ralph's .ralph/knowledge/*.md and the journal of its\n" +
			".ralph/progress.db (read by lore-sqlite, installed beside lore), aiwg's\n" +
			".aiwg/knowledge/ralph-learnings.json (its checksum verified), beads' memories (bd remember, in\n" +
			".beads/backup/config.jsonl: knowledge named by their keys), a CLAUDE.md (each section a knowledge\n" +
			"entry) and Claude Code's memory folder (MEMORY.md's sections and its topic files, as knowledge).\n" +
			"Any of CLAUDE.md, MEMORY.md (with its folder's topic files), decisions.md or beads' config.jsonl\n" +
			"may be given by itself.\n\n" +
			"Entries the store has (the same id or file, created at the same time, or a learning that nearly\n" +
			"duplicates one) are kept as the store has them; importing twice changes nothing the second time.\n" +
			"One the source has changed is reported (\"1 differs\", and which) and kept; --update takes the\n" +
			"source's version. An entry whose id the store has for another is reported and not imported (a\n" +
			"learning made from aiwg's takes the next id made from aiwg's). Every text of every field is\n" +
			"checked for secrets; an entry lore would not write (as lore validate judges it), one the export\n" +
			"holds twice, or a file that does not read (named with its line) refuses the whole import. Only\n" +
			"regular files are read, through no symbolic link: a link, a FIFO or a device is refused, naming it.\n\n" +
			"One commit, \"lore: import N entries from SOURCE\" (its path in the repository, or else its base\n" +
			"name: never an absolute path), its body counting each kind; each entry keeps its id, times and\n" +
			"status. On a terminal, stderr names the files read and counts the entries weighed; otherwise it holds only\n" +
			"warnings (a file left out because it does not parse).",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "update", Usage: "take the source's version of the entries the store has from it that differ"},
			formatFlag("table", "table", "json"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("import needs exactly one file (- for stdin)")
			}
			if err := checkFormat(c.String("format"), "table", "json"); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), importOptions{source: c.Args().First(), format: c.String("format"), update: c.Bool("update")}, runImport)
		},
	}
}

type importOptions struct {
	source, format string
	update         bool
}

func runImport(e *env, g globals, opts importOptions) error {
	p := g.printer(e)
	x, err := readImport(e, p, opts.source)
	if err != nil {
		return err
	}
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	plan, err := lifecycle.PlanImport(x, importSource(e, s.Root(), opts.source))
	if err != nil {
		return err
	}
	plan.Update = opts.update
	if e.stderrTerminal {
		plan.Progress = importProgress(e.stderr) // the raw stream: its \r is meant
	}
	res, wr, err := plan.Apply(s)
	if err != nil {
		return err
	}
	printWrite(p, wr, "Import from", opts.source)
	if opts.format == "json" {
		commit := commitOf(wr)
		return writeJSON(p.out, struct {
			lifecycle.ImportResult
			Commit string `json:"commit,omitempty"`
		}{res, commit})
	}
	for _, k := range []entry.Kind{entry.KindMemory, entry.KindKnowledge, entry.KindLearning, entry.KindJournal} {
		if res.Any(k) {
			fmt.Fprintf(p.out, "%-10s %s\n", string(k)+":", res.Summary(k))
		}
	}
	for _, r := range res.Reidentified {
		fmt.Fprintf(p.out, "learning %s: its id was another's in the store\n", r)
	}
	differ := 0
	for _, d := range res.Differs {
		differ += len(d)
	}
	switch {
	case res.Total() == 0 && differ > 0:
		fmt.Fprintf(p.out, "Nothing imported: %d %s from the source; lore import --update takes the source's version\n", differ, words.Plural(differ, "entry differs", "entries differ"))
	case res.Total() == 0:
		fmt.Fprintln(p.out, "Nothing to import: the store has every entry")
	}
	return nil
}

// readImport reads what lore import is given: a lore export (a file, or
// - for stdin), or a directory holding the seed systems' stores
// (mdstore.ReadSeedStores), whose files it names on stderr.
func readImport(e *env, p *printer, source string) (lifecycle.Export, error) {
	if source != "-" {
		if info, err := os.Stat(e.abs(source)); err == nil && info.IsDir() {
			x, found, warnings, err := lifecycle.ReadSeedStores(e.abs(source), readProgressDB)
			p.Warnings(warnings)
			if err != nil {
				return x, err
			}
			if len(found) == 0 {
				return x, &entry.InputError{Field: "dir", Msg: source + ": no store lore can import there (.ralph/agent/memories.md, .ralph/agent/decisions.md, .ralph/knowledge/*.md, .ralph/progress.db, .aiwg/knowledge/ralph-learnings.json, .beads/backup/config.jsonl, CLAUDE.md, or Claude Code's memory folder with its MEMORY.md)"}
			}
			if e.stderrTerminal { // progress for a person; a script's stderr stays quiet
				for _, f := range found {
					p.Notice("read " + displayPath(e.workDir, f))
				}
			}
			return x, nil
		}
	}
	if source != "-" {
		x, found, warnings, ok, err := lifecycle.ReadSourceFile(e.abs(source))
		if ok {
			p.Warnings(warnings)
			if err == nil && e.stderrTerminal {
				for _, f := range found {
					p.Notice("read " + displayPath(e.workDir, f))
				}
			}
			return x, err
		}
	}
	var data []byte
	var err error
	if source == "-" {
		if data, err = io.ReadAll(io.LimitReader(e.stdin, lifecycle.MaxExportSize+1)); err == nil && len(data) > lifecycle.MaxExportSize {
			err = fmt.Errorf("larger than %s", fsx.FormatSize(lifecycle.MaxExportSize))
		}
	} else {
		// A regular file, not a link, a FIFO or a device: /dev/zero or a
		// pipe no one writes would never end.
		if data, err = fsx.ReadRegular(e.abs(source), lifecycle.MaxExportSize); err != nil {
			if skip, ok := fsx.Skipped(err); ok {
				return lifecycle.Export{}, &entry.InputError{Field: "file", Msg: fmt.Sprintf("%s: %s: lore imports a regular file (or - for stdin)", source, skip.Reason())}
			}
		}
	}
	if err != nil {
		return lifecycle.Export{}, fmt.Errorf("read %s: %w", source, err)
	}
	x, ok, err := lifecycle.ReadExport(data)
	if err != nil {
		return x, fmt.Errorf("%s: %w", source, err)
	}
	if !ok {
		return x, &entry.InputError{Field: "file", Msg: source + ": not a lore export (lore export writes one)"}
	}
	return x, nil
}

// importSource names what an import read, for its commit message: its
// path relative to the repository when it is inside it, else its base
// name — never an absolute path, which would put a user's home directory
// in the shared history.
func importSource(e *env, root, source string) string {
	if source == "-" {
		return "stdin"
	}
	p := filepath.Clean(e.abs(source))
	for _, r := range []string{root, evalSymlinks(root)} {
		if rel, err := filepath.Rel(evalSymlinks(r), evalSymlinks(p)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.Base(p)
}

func evalSymlinks(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// importProgress shows on a terminal how many entries an import has
// weighed, on one line rewritten about a hundred times at most.
func importProgress(w io.Writer) func(done, total int) {
	return func(done, total int) {
		if done == total || done%max(1, total/100) == 0 {
			fmt.Fprintf(w, "\rlore: importing %d/%d %s", done, total, words.Plural(total, "entry", "entries"))
		}
		if done == total {
			fmt.Fprintln(w)
		}
	}
}

// displayPath is p relative to dir when it lies below it.
func displayPath(dir, p string) string {
	if rel, err := filepath.Rel(dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

// SQLiteHelperName is the program that reads a SQLite store for lore
// import; it is not linked into lore because the driver slows every
// command's start (see cmd/lore-sqlite).
const SQLiteHelperName = "lore-sqlite"

// sqliteHelperTimeout bounds a run of lore-sqlite, which bounds its own
// read to a minute (progressdb.DefaultLimits).
const sqliteHelperTimeout = 2 * time.Minute

// readProgressDB reads the journal of RefoundAI ralph's progress.db at p
// with lore-sqlite, which writes it as a lore export. lore-sqlite dies
// with lore: it is killed when lore returns, when its answer grows past
// an export's cap, after sqliteHelperTimeout, and on Linux when lore
// itself is killed (helperAttr).
func readProgressDB(p string) ([]entry.JournalEntry, error) {
	helper, ok := sibling.Find(SQLiteHelperName)
	if !ok {
		return nil, fmt.Errorf("%s: reading it needs %s, next to lore or on PATH (go install ./cmd/... installs it)", p, SQLiteHelperName)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sqliteHelperTimeout)
	defer cancel()
	stdout := &cappedBuffer{max: lifecycle.MaxExportSize, full: cancel}
	stderr := &cappedBuffer{max: 64 << 10}
	cmd := exec.CommandContext(ctx, helper, p)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = helperAttr()
	// Pdeathsig follows the thread that starts the helper: this goroutine
	// keeps it until the helper has ended.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Run(); err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
		switch {
		case stdout.over:
			return nil, fmt.Errorf("%s: %s: its answer is larger than %s", p, SQLiteHelperName, fsx.FormatSize(lifecycle.MaxExportSize))
		case ctx.Err() != nil:
			return nil, fmt.Errorf("%s: %s did not finish in %v", p, SQLiteHelperName, sqliteHelperTimeout)
		case strings.HasPrefix(msg, SQLiteHelperName+": "):
			return nil, errors.New(strings.TrimPrefix(msg, SQLiteHelperName+": "))
		case strings.Contains(msg, "out of memory"):
			return nil, fmt.Errorf("%s: %s ran out of memory reading it", p, SQLiteHelperName)
		}
		return nil, fmt.Errorf("%s: %s: %w", p, SQLiteHelperName, err)
	}
	x, ok, err := lifecycle.ReadExport(stdout.Bytes())
	if err == nil && !ok {
		err = errors.New("its answer is not a lore export")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", p, SQLiteHelperName, err)
	}
	return x.Journal, nil
}

// cappedBuffer keeps at most max bytes of what is written to it. Past
// them a write calls full, which stops the writer, and fails; with no
// full, the rest is dropped.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
	full func()
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) <= b.max {
		return b.Buffer.Write(p)
	}
	b.over = true
	if b.full == nil {
		b.Buffer.Write(p[:b.max-b.Len()])
		return len(p), nil
	}
	b.full()
	return 0, errors.New("too large")
}
