package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"lore/hooks"
	"lore/index"
	"lore/loop"
	"lore/mdstore"
	"lore/mdstore/config"
	"lore/prompt"
	"lore/strategy"
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
	at             string // a revision: prime as the store was at that commit
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
			"           [--budget TOKENS] [--heading-level N] [-t types] [--tags a,b] [--recent DAYS] [--no-instructions] [--no-learn]\n" +
			"           [--format markdown|json] [--at REV]\n" +
			"lore prime --hook claude    a Claude Code SessionStart hook (the payload on stdin names the session)",
		Description: `Sections, in priority order, each only when it has content: Previous
Attempts, Memories, Project Knowledge, Learnings, Run Journal, Loop Status,
Available Skills; then how to use lore (the Using Project Memory block,
outside the budget). With a task, each section holds what is most relevant
to it; with none, the most recent entries.

Each section has a share of the budget (config.yaml's budgets); a share a
section does not use passes to the next. --budget caps them all in tokens
(4 characters each): a hard cap on everything but the instructions, the
line saying what was left out included. Entries are never cut; one line
says what was left out and why. The Loop Status is never dropped while
other entries are shown.

--no-instructions drops the instructions block; --no-learn keeps its
reading part and the sigils that say how the task went, without lore add,
<journal>, <knowledge> and <learning>. --heading-level 3 nests the whole
prime under an orchestrator's own ## heading. --format json gives the
sections as data, with the loop status and the keys of the entries shown.
.agent/config.yaml sets defaults for all of this; a flag wins.

--hook claude prints {"hookSpecificOutput":{"hookEventName":"SessionStart",
"additionalContext":"…"}}, the largest prime whose JSON stays under the
10,000 characters Claude Code adds to the context whole; with no payload,
or one that is not JSON, it still prints the context and exits 0.

--at REV prints what prime gave at commit REV (a hash, HEAD~3, a tag):
the store as REV holds it, ranked by the same code, as of REV's commit
time, with a search index built for it; the run is the one of REV's
newest journal entry unless --run names one; the usage log is this
clone's as it was then (unverified marks). It answers "what did the
agent see at iteration 14": give it the commit before that iteration's
and the task's flags as they were.`,
		Flags: primeFlags(
			formatFlag("markdown", formats...),
			&cli.StringFlag{Name: "hook", Usage: "print what an agent's session-start hook prints: claude"},
			&cli.StringFlag{Name: "at", Usage: "prime as the store was at commit REV (a hash, HEAD~3, a tag)"},
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
			opts.format, opts.hook, opts.at = c.String("format"), c.String("hook"), c.String("at")
			run := runPrime
			switch opts.hook {
			case "":
			case "claude":
				if c.IsSet("format") {
					return usagef("--hook claude prints the hook's JSON; leave out --format")
				}
				if opts.at != "" {
					return usagef("--hook claude primes the session now; leave out --at")
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
	req, err := opts.request()
	if err != nil {
		return err
	}
	p := g.printer(e)
	var s *mdstore.Store
	var search *index.Searcher
	if opts.at != "" {
		past, err := openPast(e, g, opts.at)
		if err != nil {
			return err
		}
		defer past.Close()
		s, search = past.Store, loop.SearcherFor(req.Task, past.Getenv(e.getenv))
	} else {
		search = loop.SearcherFor(req.Task, e.getenv) // lore-index starts up while the store is opened
		if s, err = g.openStore(e); err != nil {
			search.Close()
			return err
		}
	}
	defer search.Close()
	pr, err := loop.Prime(s, search, req, p)
	if err != nil {
		return err
	}
	if opts.hook == "claude" {
		out, _ := pr.ClaudeHook()
		_, err := p.out.Write(out)
		return err
	}
	ctx := pr.Context()
	if opts.format == "json" {
		return writeJSON(p.out, struct {
			Task     prompt.Task      `json:"task"`
			Budgets  config.Budgets   `json:"budgets"`
			Sections []prompt.Section `json:"sections"`
			Omitted  string           `json:"omitted,omitempty"`
			Loop     strategy.Status  `json:"loop_status"`
		}{pr.Input.Task, pr.Options.Budgets, ctx.Sections, ctx.Omitted, pr.Input.Loop})
	}
	fmt.Fprint(p.out, ctx.Markdown())
	return nil
}

// request is the prime the options ask for: the flags given replace
// config.yaml's settings.
func (opts primeOptions) request() (loop.PrimeRequest, error) {
	req := loop.PrimeRequest{Task: opts.task, Loop: opts.loop, HeadingLevel: opts.headingLevel,
		NoInstructions: opts.noInstructions, NoLearn: opts.noLearn}
	if opts.set["budget"] {
		req.Budget = &opts.budget
	}
	if opts.set["type"] {
		types, err := parseTypes(opts.types)
		if err != nil {
			return req, err
		}
		req.MemoryTypes = &types
	}
	if opts.set["tags"] {
		tags := parseTagFilter(opts.tags)
		req.MemoryTags = &tags
	}
	if opts.set["recent"] {
		req.RecentDays = &opts.recent
	}
	return req, nil
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
		g.printer(e).Notice(err.Error() + "; priming the current directory with no session")
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

// openPast opens the store as commit rev held it, its search index built
// (lore prime --at).
func openPast(e *env, g globals, rev string) (*loop.PastStore, error) {
	s, err := g.openStore(e)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	past, err := loop.OpenAt(s, rev, g.storeOptions(e, false))
	if err != nil {
		return nil, err
	}
	for _, n := range past.Notices {
		g.printer(e).Notice(n)
	}
	if err := past.BuildIndex(e.getenv); err != nil {
		past.Close()
		return nil, err
	}
	return past, nil
}
