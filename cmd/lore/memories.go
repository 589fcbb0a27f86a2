package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"lore/hooks"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/provenance"
)

// readMemories opens the store and reads its memories, reporting the
// file's problems; it is where list begins.
func (g globals) readMemories(e *env) ([]entry.Memory, *printer, error) {
	s, err := g.openStore(e)
	if err != nil {
		return nil, nil, err
	}
	p := g.printer(e)
	ms, warnings, err := s.Memories()
	p.Warnings(warnings)
	return ms, p, err
}

// --- init ---

type initOptions struct {
	force bool
}

func initCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create .agent/memories.md",
		UsageText: "lore init [--force]",
		Description: `Creates .agent/memories.md from seed 001's template and commits it, with
the .gitattributes lines that send .agent/ files to lore's merge driver,
which it also registers in this clone's .git/config (see lore merge-driver),
and .agent/.gitignore, which keeps the temporary files of lore's writes
(.<name>.lore-<pid>-<n>.tmp) out of git status. Run again in an older store,
it adds what is missing.
An existing memories.md is left alone ("Already initialized"); --force
starts over, and the old content stays in git history.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "force", Usage: "overwrite an existing memories.md (its old content stays in git history)"}},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("init takes no arguments")
			}
			return runWith(e, globalsFrom(c), initOptions{force: c.Bool("force")}, runInit)
		},
	}
}

func runInit(e *env, g globals, opts initOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	// In a repository, branches that carry memories merge entry by entry:
	// .gitattributes, committed with the store, says which files go to
	// lore's merge driver, and each clone's configuration says what it
	// runs.
	// .agent/.gitignore keeps lore's temporary files out of git status.
	var attributes []mdstore.FileEdit
	if s.InRepository() {
		attributes = append(attributes, hooks.AttributesEdit, hooks.IgnoreEdit)
	}
	created, res, err := s.Init(opts.force, attributes...)
	if err != nil {
		return err
	}
	printNotices(p, res)
	if s.InRepository() {
		lore, loreErr := e.resolveLore()
		if _, err := hooks.RegisterMergeDriver(s.Repo(), lore); err != nil {
			p.Notice(fmt.Sprintf("could not register lore's merge driver in .git/config (%s); lore hooks install does it", err))
		} else {
			noticeGoRun(p, loreErr)
		}
	}
	if !created {
		fmt.Fprintf(p.out, "Already initialized: %s (use --force to start over)\n", entry.MemoriesPath)
		return nil
	}
	fmt.Fprintf(p.out, "%sInitialized %s\n", p.emoji("✨"), entry.MemoriesPath)
	return nil
}

// --- add ---

type addOptions struct {
	content string
	typ     string
	tags    string
	format  string
	cite    []string // files the memory cites, file[:lines]
	// supersedes is the memory the new one replaces: its block leaves
	// memories.md in the same commit.
	supersedes string
}

func addCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "quiet"}
	return &cli.Command{
		Name:      "add",
		Usage:     "store a new memory",
		UsageText: "lore add <content|-> [-t pattern|decision|fix|context] [--tags a,b] [--format table|json|quiet]",
		Description: `Stores a memory directly under its type's section of .agent/memories.md,
newest first, and commits it as "lore: add <type> <id>" with the content as
the body and Lore-Id and Lore-Kind trailers. Several words without quotes
are one memory; - reads the content from stdin (multi-line content keeps
its blank lines).

Tags are lowercased and trimmed. An unknown type, empty content, a tag that
is empty or holds |, "," or --> , or content holding a secret is refused
(exit status 2) and nothing is written.

Files the memory names that exist in the worktree (src/auth.go,
src/auth.go:40-60), and those --cite names, are recorded with their
content as it is now (.agent/citations.md): when one changes, prime and
lore stale say the memory may no longer hold.

A memory of the same type that the new one nearly repeats (more than 80%
of its words in common) is named on stderr: "similar: mem-… — use
--supersedes mem-… to replace it"; the memory is added all the same.
--supersedes ID removes memory ID's block in the same commit, which gets a
"Supersedes: ID" trailer: the old memory leaves prime, search and list, and
lore show and lore history ID still find it in git's history.

--format table prints "Memory stored: <id>", quiet only the id, json the
memory and the commit.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "type", Aliases: []string{"t"}, Value: "pattern", Usage: "memory type: pattern, decision, fix or context"},
			&cli.StringFlag{Name: "tags", Usage: "comma-separated tags"},
			citeFlag(),
			supersedesFlag(),
			formatFlag("table", formats...),
		},
		Action: func(c *cli.Context) error {
			content, err := bodyFrom(e, c.Args().Slice(), "the memory's content")
			if err != nil {
				return err
			}
			opts := addOptions{content: content, typ: c.String("type"), tags: c.String("tags"), format: c.String("format"), cite: c.StringSlice("cite"), supersedes: c.String("supersedes")}
			if err := checkFormat(opts.format, formats...); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), opts, runAdd)
		},
	}
}

func runAdd(e *env, g globals, opts addOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	cs, err := provenance.NewStamper(s).StampFound(opts.cite, opts.content)
	if err != nil {
		return err
	}
	similar := similarTo(s, entry.KindMemory, opts.typ, opts.content, opts.supersedes)
	m, res, err := s.AddMemory(mdstore.NewMemory{Type: entry.MemoryType(opts.typ), Content: opts.content, Tags: entry.SplitTags(opts.tags)},
		append(superseding(entry.KindMemory, opts.supersedes), provenance.Also(cs))...)
	if err != nil {
		return err
	}
	printWrite(p, res, "Memory", m.ID)
	noteSimilar(p, similar, m.ID)
	switch opts.format {
	case "json":
		return writeJSON(p.out, struct {
			memoryJSON
			Commit string `json:"commit,omitempty"`
		}{toJSON(m), res.Commit})
	case "quiet":
		fmt.Fprintln(p.out, m.ID)
	default:
		fmt.Fprintf(p.out, "%sMemory stored: %s\n", p.emoji("📝"), p.paint(ansiYellow, m.ID))
	}
	return nil
}

// --- list ---

type listOptions struct {
	types  string
	last   int
	format string
}

func listCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:      "list",
		Usage:     "list memories, newest first",
		UsageText: "lore list [-t types] [--last N] [--format table|json|markdown]",
		Description: `-t takes a comma-separated list of types; --last N keeps the N newest.
--format markdown prints them grouped by type, in memories.md's format.
To find memories by what they say, use lore search.`,
		Flags: []cli.Flag{
			typeFilterFlag,
			&cli.IntFlag{Name: "last", Usage: "only the N newest memories"},
			formatFlag("table", formats...),
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("list takes no arguments (did you mean lore search?)")
			}
			opts := listOptions{types: c.String("type"), last: c.Int("last"), format: c.String("format")}
			if err := checkFormat(opts.format, formats...); err != nil {
				return err
			}
			if c.IsSet("last") && opts.last < 1 {
				return usagef("--last must be at least 1")
			}
			return runWith(e, globalsFrom(c), opts, runList)
		},
	}
}

func runList(e *env, g globals, opts listOptions) error {
	types, err := parseTypes(opts.types)
	if err != nil {
		return err
	}
	all, p, err := g.readMemories(e)
	if err != nil {
		return err
	}
	ms := prompt.MemoryFilter{Types: types}.Filter(all)
	entry.SortNewestFirst(ms)
	if opts.last > 0 && len(ms) > opts.last {
		ms = ms[:opts.last]
	}
	return printMemories(p, ms, opts.format, "No memories yet. Add one with: lore add \"<what you learned>\" -t pattern")
}

// printMemories writes memories in one of the list formats.
func printMemories(p *printer, ms []entry.Memory, format, empty string) error {
	switch format {
	case "json":
		return writeJSON(p.out, toJSONList(ms))
	case "markdown":
		fmt.Fprint(p.out, prompt.Render(ms))
		return nil
	}
	if len(ms) == 0 {
		fmt.Fprintln(p.out, empty)
		return nil
	}
	p.memoryTable(ms)
	return nil
}

// --- show ---

type showOptions struct {
	id     string
	format string
}

func showCommand(e *env) *cli.Command {
	formats := []string{"table", "json", "markdown"}
	return &cli.Command{
		Name:      "show",
		Usage:     "show any entry by its id: a memory, a learning, a knowledge slug or an iteration",
		UsageText: "lore show <id> [--format table|json|markdown]",
		Description: `Any entry, by its id's shape (the ids prime and search print): mem-… a
memory; l- and six hex digits a learning; <run>/<NNNN>[-<tag>], or
<run>/<iteration>, an iteration; anything else a knowledge slug. It is the
same as lore knowledge, learning or journal show. An unknown id prints
"Error: Memory not found: <id>" (or the kind its shape names), with the
nearest id there is when it is a typo away ("did you mean …?"), and exits 1.
A memory shown counts as used (see lore usage).`,
		Flags: []cli.Flag{formatFlag("table", formats...)},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("show needs exactly one id")
			}
			opts := showOptions{id: c.Args().First(), format: c.String("format")}
			if err := checkFormat(opts.format, formats...); err != nil {
				return err
			}
			return runWith(e, globalsFrom(c), opts, runShow)
		},
	}
}

// --- delete ---

type deleteOptions struct {
	id string
}

func deleteCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "delete",
		Usage:     "delete a memory",
		UsageText: "lore delete <id>",
		Description: `Removes only that memory's block (and the blank line before it) from
memories.md and commits "lore: delete <type> <id>", whose body says which
line the block was on. When a hand edit or a merge left two blocks with the
same id, it removes the one list and show show (the first valid one) and
leaves the other, which the commit names too. An unknown id exits 1. The
memory stays in git's history: lore restore brings it back.`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("delete needs exactly one memory id")
			}
			return runWith(e, globalsFrom(c), deleteOptions{id: c.Args().First()}, runDelete)
		},
	}
}

func runDelete(e *env, g globals, opts deleteOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	_, res, err := s.DeleteMemory(opts.id)
	if err != nil {
		return err
	}
	printWrite(p, res, "Deletion of memory", opts.id)
	fmt.Fprintf(p.out, "%sMemory deleted: %s\n", p.emoji("🗑️ "), p.paint(ansiYellow, opts.id))
	return nil
}
