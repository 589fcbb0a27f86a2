package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"lore/hooks"
	"lore/index"
	"lore/mdstore"
	"lore/prompt"
	"lore/strategy"
	"lore/usage"
)

type primeOptions struct {
	budget         int // tokens, 0 = only the section shares
	headingLevel   int // of the sections (prompt.Options.HeadingLevel)
	types          string
	tags           string
	recent         int             // days, 0 = no limit
	set            map[string]bool // the flags given: they win over config.yaml
	format         string
	hook           string // "claude": print a SessionStart hook's JSON
	task           prompt.Task
	loop           strategy.Input
	noInstructions bool
	noLearn        bool
}

func primeCommand(e *env) *cli.Command {
	formats := []string{"markdown", "json"}
	return &cli.Command{
		Name:  "prime",
		Usage: "print the context for the next iteration, within a token budget",
		UsageText: "lore prime [--task-id ID --title T --description D --feature F --files a,b --run R --iteration N --limit N --model M]\n" +
			"           [--budget TOKENS] [-t types] [--tags a,b] [--recent DAYS] [--no-instructions] [--no-learn] [--format markdown|json]\n\n" +
			"lore prime --hook claude: a Claude Code SessionStart hook (the payload on stdin names the session).\n\n" +
			"Sections, in priority order, each only when it has content: Previous Attempts, Memories,\n" +
			"Project Knowledge, Learnings, Run Journal, Loop Status, Available Skills; then how to use lore.\n" +
			"4 characters count as one token; entries are never cut, and one line says what was left out.",
		Flags: primeFlags(
			formatFlag("markdown", formats...),
			&cli.StringFlag{Name: "hook", Usage: "print what an agent's session-start hook prints: claude"},
		),
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("prime takes no arguments")
			}
			if err := checkFormat(c.String("format"), formats...); err != nil {
				return err
			}
			opts, err := primeOptionsFrom(c)
			if err != nil {
				return err
			}
			opts.format, opts.hook = c.String("format"), c.String("hook")
			run := runPrime
			switch opts.hook {
			case "":
			case "claude":
				if c.IsSet("format") {
					return usagef("--hook claude prints the hook's JSON; leave out --format")
				}
				run = runPrimeHook
			default:
				return usagef("unknown --hook %q (lore knows: claude)", opts.hook)
			}
			return runWith(e, globalsFrom(c), opts, run)
		},
	}
}

// primeFlags are the flags that shape the context for a task, with
// extra between the task's description and the loop's flags: lore prime
// and lore run take them.
func primeFlags(extra ...cli.Flag) []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "title", Usage: "the task's title"},
		&cli.StringFlag{Name: "description", Usage: "the task's description"},
		&cli.StringFlag{Name: "feature", Usage: "the feature the task belongs to"},
		&cli.StringFlag{Name: "files", Usage: "comma-separated files the task is about"},
		&cli.IntFlag{Name: "budget", Usage: "total tokens for the memory sections (0: each section its own share)"},
		&cli.IntFlag{Name: "heading-level", Value: prompt.DefaultHeadingLevel, Usage: fmt.Sprintf("heading level of the sections, 1-%d (3 nests them under an orchestrator's ## heading)", prompt.MaxHeadingLevel)},
		typeFilterFlag, tagsFilterFlag,
		&cli.IntFlag{Name: "recent", Usage: "only memories created in the last DAYS days"},
		&cli.BoolFlag{Name: "no-instructions", Usage: "leave out the block on how to use lore"},
		&cli.BoolFlag{Name: "no-learn", Usage: "leave out the instructions to write new memory"},
		&cli.StringFlag{Name: "status", Usage: "learnings of these statuses (comma-separated): " + strings.Join(index.Statuses, ", ") + ", or all (default: active)"},
	}
	return append(append(flags, extra...), taskFlags...)
}

// primeOptionsFrom reads and checks the flags of primeFlags (the format
// and the hook are lore prime's own).
func primeOptionsFrom(c *cli.Context) (primeOptions, error) {
	opts := primeOptions{budget: c.Int("budget"), types: c.String("type"), tags: c.String("tags"), recent: c.Int("recent"),
		noInstructions: c.Bool("no-instructions"), noLearn: c.Bool("no-learn"),
		set: map[string]bool{"budget": c.IsSet("budget"), "type": c.IsSet("type"), "tags": c.IsSet("tags"), "recent": c.IsSet("recent")}}
	if opts.budget < 0 {
		return opts, usagef("--budget must be 0 (no total) or more")
	}
	if opts.recent < 0 {
		return opts, usagef("--recent must be 0 (no limit) or more")
	}
	if opts.headingLevel = c.Int("heading-level"); !prompt.ValidHeadingLevel(opts.headingLevel) {
		return opts, usagef("--heading-level must be 1 to %d (memories sit two levels below their section)", prompt.MaxHeadingLevel)
	}
	loop, err := loopInput(c)
	if err != nil {
		return opts, err
	}
	opts.loop = loop
	opts.task = prompt.Task{ID: loop.TaskID, Title: c.String("title"), Description: c.String("description"),
		Feature: c.String("feature"), Files: splitList(c.String("files")), Run: loop.Run}
	if opts.task.Statuses, err = parseStatuses(c.String("status")); err != nil {
		return opts, err
	}
	return opts, nil
}

func runPrime(e *env, g globals, opts primeOptions) error {
	pr, err := preparePrime(e, g, nil, opts)
	if err != nil {
		return err
	}
	p := pr.printer
	if opts.hook == "claude" {
		out, ctx := claudeHookOutput(pr.in, pr.opts)
		recordUse(e, pr.store, p, ctx)
		_, err := p.out.Write(out)
		return err
	}
	ctx := pr.context(e)
	if opts.format == "json" {
		return writeJSON(p.out, struct {
			Task     prompt.Task      `json:"task"`
			Budgets  mdstore.Budgets  `json:"budgets"`
			Sections []prompt.Section `json:"sections"`
			Omitted  string           `json:"omitted,omitempty"`
			Loop     strategy.Status  `json:"loop_status"`
		}{pr.in.Task, pr.opts.Budgets, ctx.Sections, ctx.Omitted, pr.in.Loop})
	}
	fmt.Fprint(p.out, ctx.Markdown())
	return nil
}

// primed is what a prime for a task is made from, read and ranked, ready
// to render: lore prime prints it, lore run hands it to the agent.
type primed struct {
	store   *mdstore.Store
	printer *printer
	in      prompt.Input   // in.Loop is the loop status, with the model lore model chooses
	opts    prompt.Options // with the budgets, the total one included
}

// context renders the prime and counts the entries it shows in the
// usage log.
func (pr primed) context(e *env) prompt.Context {
	ctx := prompt.Prime(pr.in, pr.opts)
	recordUse(e, pr.store, pr.printer, ctx)
	return ctx
}

// preparePrime reads what a prime for opts shows from store s (nil: the
// one g names, opened here): the entries, their relevance to the task
// and the loop status.
func preparePrime(e *env, g globals, s *mdstore.Store, opts primeOptions) (primed, error) {
	types, err := parseTypes(opts.types)
	if err != nil {
		return primed{}, err
	}
	var searcher *index.Searcher
	if taskText(opts.task) != "" {
		searcher = index.NewSearcher(e.getenv, io.Discard) // lore-index starts up while the store is opened
		defer searcher.Close()
	}
	if s == nil {
		if s, err = g.openStore(e); err != nil {
			return primed{}, err
		}
	}
	p := g.printer(e)
	cfg := s.Config()
	p.warnings(cfg.Warnings)
	// Asked of the search index while the files are read.
	relevance := searcher.Relevance(s, taskText(opts.task), opts.task.Statuses, mdstore.KindMemory, mdstore.KindKnowledge, mdstore.KindLearning, mdstore.KindJournal)
	if opts.loop.Run == "" {
		opts.loop.Run, _ = s.CurrentRun()
	}
	opts.loop.Models = cfg.Models
	in := prompt.Input{Task: opts.task, Now: e.now()}
	in.Task.Run = opts.loop.Run
	// The entries prime may show are chosen while memories.md is read
	// and the search index asked: each takes tens of milliseconds in a
	// large store.
	type read struct {
		shortlist *prompt.Shortlist
		warnings  []mdstore.Warning
		err       error
	}
	catalogRead := make(chan read, 1)
	go func() {
		var r read
		var c *mdstore.Catalog
		c, r.warnings, r.err = s.Catalog() // through the per-clone cache of parsed files
		if r.err == nil {
			r.shortlist = prompt.NewShortlist(c, in.Task)
		}
		catalogRead <- r
	}()
	var warnings []mdstore.Warning
	if cfg.Memories.Inject == mdstore.InjectAuto {
		filter := memoryFilter(e, cfg.Memories.Filter, opts, types)
		all, warnings, err := s.Memories()
		p.warnings(warnings)
		if err != nil {
			return primed{}, err
		}
		in.Memories = filter.Filter(all)
	}
	r := <-catalogRead
	p.warnings(r.warnings)
	if r.err != nil {
		return primed{}, r.err
	}
	if in.Skills, warnings, err = s.Skills(); err != nil {
		return primed{}, err
	}
	p.warnings(warnings)
	in.Relevance = <-relevance
	// Only the entries prime may show are read whole.
	entries := r.shortlist.With(in.Relevance)
	in.Knowledge, in.Learnings, in.Journal = entries.Knowledge, entries.Learnings, entries.Journal
	in.Loop = strategy.Compute(in.Journal, opts.loop)
	budgets := cfg.Budgets
	budgets.Total = cfg.Memories.Budget
	if opts.set["budget"] {
		budgets.Total = opts.budget
	}
	popts := prompt.Options{Budgets: budgets, HeadingLevel: opts.headingLevel,
		Instructions: !opts.noInstructions && cfg.Memories.SkillInjection,
		Learn:        !opts.noLearn && cfg.Learn,
		MemoriesOff:  cfg.Memories.Inject == mdstore.InjectNone,
		Models:       cfg.Models}
	return primed{store: s, printer: p, in: in, opts: popts}, nil
}

// runPrimeHook is prime as a Claude Code SessionStart hook: the payload
// on stdin gives the project directory and the session, whose run lore
// ingest --hook claude records the session's iterations under. Without a
// payload it primes the current directory, and says so on stderr when
// there was one it could not read: the context matters more than the
// session. It reports a failure itself, with exit status 1 (hookExit).
func runPrimeHook(e *env, g globals, opts primeOptions) error {
	payload, err := hooks.ReadClaudeSessionStart(e.stdin)
	if err != nil && !errors.Is(err, hooks.ErrNoPayload) {
		g.printer(e).notice(err.Error() + "; priming the current directory with no session")
	}
	if g.root == "" && payload.Cwd != "" {
		g.root = payload.Cwd
	}
	if opts.loop.Run == "" {
		opts.loop.Run = hooks.RunID(payload.SessionID)
		opts.task.Run = opts.loop.Run
	}
	return hookExit(e, runPrime(e, g, opts))
}

// claudeHookOutput is the prime as a SessionStart hook's JSON, within the
// characters Claude Code adds to the context whole: the largest total
// budget whose JSON (escapes included) fits. The input is ranked once,
// and primed under each budget tried.
func claudeHookOutput(in prompt.Input, opts prompt.Options) ([]byte, prompt.Context) {
	ranked := prompt.Rank(in, opts.HeadingLevel)
	render := func(total int) ([]byte, prompt.Context) {
		opts.Budgets.Total = total
		ctx := ranked.Prime(opts)
		return hooks.SessionStartOutput(ctx.Markdown()), ctx
	}
	out, ctx := render(opts.Budgets.Total)
	if len(out) < hooks.ClaudeOutputLimit {
		return out, ctx
	}
	// Too long: hi is a total that does not fit, lo one that does.
	hi := opts.Budgets.Total
	if hi == 0 {
		for _, s := range ctx.Sections {
			if s.Name != prompt.SectionInstructions {
				hi += len(s.Markdown) / prompt.CharsPerToken
			}
		}
	}
	lo := 0
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if o, c := render(mid); len(o) < hooks.ClaudeOutputLimit {
			lo, out, ctx = mid, o, c
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		// Even the instructions alone do not fit.
		opts.Instructions = false
		out, ctx = render(1)
	}
	return out, ctx
}

// taskText is what of a task the search index is asked about.
func taskText(t prompt.Task) string {
	return strings.TrimSpace(strings.Join([]string{t.Title, t.Description, t.Feature}, " "))
}

// recordUse counts the entries a prime put before the agent in the
// clone's usage log (for pruning). A failure to record is said, never
// fatal.
func recordUse(e *env, s *mdstore.Store, p *printer, ctx prompt.Context) {
	var keys []string
	for _, sec := range ctx.Sections {
		keys = append(keys, sec.Entries...)
	}
	if err := usage.Open(s.StateDir()).Record(e.now(), keys); err != nil {
		p.notice("could not count the entries used: " + err.Error())
	}
}

// memoryFilter is the filter of the memories prime shows: config.yaml's
// memories.filter, each part replaced by its flag when given.
func memoryFilter(e *env, cfg mdstore.MemoriesFilter, opts primeOptions, types []mdstore.MemoryType) mdstore.MemoryFilter {
	f := mdstore.MemoryFilter{Types: cfg.Types, Tags: cfg.Tags}
	recent := cfg.RecentDays
	if opts.set["type"] {
		f.Types = types
	}
	if opts.set["tags"] {
		f.Tags = parseTagFilter(opts.tags)
	}
	if opts.set["recent"] {
		recent = opts.recent
	}
	if recent > 0 {
		today := e.now().UTC().Truncate(24 * time.Hour)
		f.Since = today.AddDate(0, 0, -recent)
	}
	return f
}
