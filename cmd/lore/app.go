package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/loop"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// version, when set at build time with -ldflags "-X main.version=…",
// is what lore --version says; otherwise it reads the build info.
var version string

// versionText is what lore --version says of a binary built as bi: the
// module's version for a release ("v1.2.3"); for a build from a checkout
// "devel", the commit and its time, and "(modified)" when the worktree had
// changes; "devel" alone when the build recorded neither (go run, tests,
// -buildvcs=false, a git worktree: go finds no .git directory there).
func versionText(bi *debug.BuildInfo) string {
	if bi == nil {
		return "devel"
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	short := rev[:min(len(rev), 12)]
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		// A build from a checkout gets a pseudo-version holding the commit
		// (v0.0.0-20260101120000-6fcc3f9a1b2c), "+dirty" when modified; only
		// a tagged, clean commit gets its tag. Without VCS settings the
		// version is the one the module was fetched at.
		if rev == "" || !modified && !strings.Contains(v, "+dirty") && !strings.Contains(v, short) {
			return v
		}
	}
	out := "devel"
	for _, part := range []string{short, when} {
		if part != "" {
			out += " " + part
		}
	}
	if modified {
		out += " (modified)"
	}
	return out
}

// appVersion is the version newApp gives urfave/cli, which prints it for
// --version and in the main help.
func appVersion(e *env) string {
	if version != "" {
		return version
	}
	if e.buildInfo == nil {
		return versionText(nil)
	}
	bi, _ := e.buildInfo()
	return versionText(bi)
}

// run executes lore with args (without the program name) and returns the
// exit status.
func run(args []string, e *env) int {
	e.argSecrets = secretsIn(args)
	app := newApp(e)
	err := app.Run(append([]string{"lore"}, normalizeArgs(app, args)...))
	return exitCode(e, err)
}

var globalFlags = []cli.Flag{
	&cli.StringFlag{Name: "root", Usage: "the directory holding .agent/ (default: the top of the enclosing git worktree; outside git, the nearest directory up with .agent/, else this one)", EnvVars: []string{"LORE_ROOT"}},
	&cli.StringFlag{Name: "color", Value: "auto", Usage: "colour and emoji: auto (on a terminal, without NO_COLOR), always or never"},
}

// globals are the options every command shares.
type globals struct {
	root  string
	color string
}

func globalsFrom(c *cli.Context) globals {
	return globals{root: c.String("root"), color: c.String("color")}
}

// runWith is how a command's Action ends once its flags are checked: it
// calls the command's run function with the options they built, or hands
// them to e.runCommand when that is set.
func runWith[O any](e *env, g globals, opts O, run func(*env, globals, O) error) error {
	if e.runCommand != nil {
		return e.runCommand(g, opts)
	}
	// A missing entry's error names the id nearest to the one asked for.
	return withNearID(run(e, g, opts), func(k entry.Kind) []string { return storeIDs(e, g, k) })
}

// storeIDs are the ids of the store's entries of kind k (none when the
// store does not open).
func storeIDs(e *env, g globals, k entry.Kind) []string {
	s, err := g.openStore(e)
	if err != nil {
		return nil
	}
	var ids []string
	if k == entry.KindMemory {
		ms, _, _ := s.Memories()
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		return ids
	}
	es, _, _ := s.Entries()
	switch k {
	case entry.KindKnowledge:
		for _, x := range es.Knowledge {
			ids = append(ids, x.Slug)
		}
	case entry.KindLearning:
		for _, x := range es.Learnings {
			ids = append(ids, x.ID)
		}
	case entry.KindJournal:
		for _, x := range es.Journal { // its key, and "<run>/<NNNN>" as people type it
			ids = append(ids, x.Key(), fmt.Sprintf("%s/%04d", x.RunID, x.Iteration))
		}
	}
	return ids
}

// openStore opens the store named by --root or, by default, the one of
// the enclosing git worktree.
func (g globals) openStore(e *env) (*mdstore.Store, error) {
	return g.open(e, false)
}

// open is openStore; lenient opens a store whose config.yaml does not
// read, with the defaults, and says nothing of the config (lore validate
// reports its problems).
func (g globals) open(e *env, lenient bool) (*mdstore.Store, error) {
	return loop.Open(loop.OpenOptions{Dir: e.workDir, Root: g.root, LoreBinary: e.loreBinary, Bare: lenient,
		Store: g.storeOptions(e, lenient)}, g.printer(e))
}

// storeOptions are the options a store is opened with: the env's clock,
// random source and environment.
func (g globals) storeOptions(e *env, lenient bool) mdstore.Options {
	return mdstore.Options{Now: e.now, Random: e.random, Getenv: e.getenv, IgnoreBadConfig: lenient}
}

func (g globals) printer(e *env) *printer {
	decorate := false
	switch g.color {
	case "always":
		decorate = true
	case "auto", "":
		decorate = e.stdoutTerminal && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
	}
	return newPrinter(e.stdout, e.stderr, decorate)
}

func (g globals) validate() error {
	switch g.color {
	case "auto", "always", "never", "":
		return nil
	}
	return usagef("invalid --color %q (use auto, always or never)", g.color)
}

func newApp(e *env) *cli.App {
	app := &cli.App{
		Name:    "lore",
		Usage:   "a git-native memory store for coding agents that work in loops",
		Version: appVersion(e),
		Description: "lore keeps what an agent learns as Markdown under .agent/ in your git repository,\n" +
			"commits every change, and hands the next iteration a budgeted context block.",
		Reader:    e.stdin,
		Writer:    e.stdout,
		ErrWriter: e.stderr,
		Flags:     globalFlags,
		Commands: []*cli.Command{
			initCommand(e), addCommand(e), editCommand(e), listCommand(e), showCommand(e),
			deleteCommand(e), searchCommand(e), indexCommand(e), primeCommand(e),
			knowledgeCommand(e), learningCommand(e), journalCommand(e), skillsCommand(e), ingestCommand(e), runAgentCommand(e),
			historyCommand(e), restoreCommand(e), statsCommand(e), exportCommand(e), importCommand(e), pruneCommand(e), revertCommand(e), extractCommand(e),
			statusCommand(e), modelCommand(e), usageCommand(e), staleCommand(e), verifyCommand(e), citeCommand(e), validateCommand(e), syncCommand(e), resolveCommand(e), hooksCommand(e), mcpCommand(e), mergeDriverCommand(e),
		},
		HideHelpCommand: true,
		Before: func(c *cli.Context) error {
			return globalsFrom(c).validate()
		},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("unknown command %q%s", c.Args().First(), didYouMean(c.Args().First(), commandNames(c.App.Commands)))
			}
			return cli.ShowAppHelp(c)
		},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usagef("%s", unknownFlag(c, err))
		},
		ExitErrHandler: func(*cli.Context, error) {}, // exit codes are decided in run
	}
	var setUsageError func(parent string, cmds []*cli.Command)
	setUsageError = func(parent string, cmds []*cli.Command) {
		for _, cmd := range cmds {
			cmd.OnUsageError = app.OnUsageError
			if len(cmd.Subcommands) > 0 && cmd.Action == nil {
				cmd.Action = unknownSubcommand(parent + " " + cmd.Name)
			}
			setUsageError(parent+" "+cmd.Name, cmd.Subcommands)
		}
	}
	setUsageError("lore", app.Commands)
	return app
}

// unknownSubcommand is the Action of a command that only groups
// subcommands (lore journal …): without one it shows its help; with an
// argument that names none of them it is a usage error (exit 2), where
// urfave/cli would say "No help topic" and exit 1.
func unknownSubcommand(path string) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Args().Present() {
			return usagef("unknown command %q for %s%s", c.Args().First(), path, didYouMean(c.Args().First(), commandNames(c.Command.Subcommands)))
		}
		return cli.ShowSubcommandHelp(c)
	}
}

// normalizeArgs lets flags follow arguments, as in seed 001's examples
// (`lore add "text" --type fix`); urfave/cli stops parsing flags at the
// first argument. Global flags given after the command are moved before
// it. "--" ends the flags.
func normalizeArgs(app *cli.App, args []string) []string {
	takesValue := func(flags []cli.Flag, arg string) (known, needsValue bool) {
		name := strings.TrimLeft(arg, "-")
		if i := strings.IndexByte(name, '='); i >= 0 {
			name = name[:i]
			for _, f := range flags {
				for _, n := range f.Names() {
					if n == name {
						return true, false
					}
				}
			}
			return false, false
		}
		for _, f := range flags {
			for _, n := range f.Names() {
				if n == name {
					_, isBool := f.(*cli.BoolFlag)
					return true, !isBool
				}
			}
		}
		return false, false
	}
	var global []string
	i := 0
	// Global flags before the command.
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		known, needsValue := takesValue(app.Flags, args[i])
		global = append(global, args[i])
		i++
		if known && needsValue && i < len(args) {
			global = append(global, args[i])
			i++
		}
	}
	if i >= len(args) {
		return global
	}
	name := args[i]
	cmd := app.Command(name)
	if cmd == nil {
		return append(global, args[i:]...)
	}
	i++
	// A command with subcommands ("lore journal list …"): reorder the
	// subcommand's own arguments.
	path := []string{name}
	for len(cmd.Subcommands) > 0 && i < len(args) {
		var sub *cli.Command
		for _, c := range cmd.Subcommands {
			if c.HasName(args[i]) {
				sub = c
			}
		}
		if sub == nil {
			break
		}
		path = append(path, args[i])
		cmd = sub
		i++
	}
	var flags, positional []string
	for i < len(args) {
		arg := args[i]
		i++
		if arg == "--" {
			if cmd.Name == runCommandName {
				// The agent's command: a second "--", which urfave/cli
				// leaves, tells lore run's Action that it came after one.
				positional = append(positional, arg)
			}
			positional = append(positional, args[i:]...)
			break
		}
		if cmd.Name == runCommandName && (!strings.HasPrefix(arg, "-") || arg == "-") {
			// An agent's command without "--": its flags are not lore's.
			positional = append(positional, args[i-1:]...)
			break
		}
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			positional = append(positional, arg)
			continue
		}
		// A flag whose value is missing ends what urfave/cli gets, so that
		// it says so instead of taking the command, or the "--" before the
		// arguments, for the value.
		if known, needsValue := takesValue(app.Flags, arg); known {
			global = append(global, arg)
			if needsValue && i == len(args) {
				return global
			}
			if needsValue {
				global = append(global, args[i])
				i++
			}
			continue
		}
		known, needsValue := takesValue(cmd.Flags, arg)
		flags = append(flags, arg)
		if known && needsValue && i == len(args) {
			return append(append(global, path...), flags...)
		}
		if known && needsValue {
			flags = append(flags, args[i])
			i++
		}
	}
	out := append(global, path...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}
