package loop

import (
	"strings"
	"time"

	"lore/hooks"
	"lore/index"
	"lore/mdstore"
	"lore/mdstore/catalog"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/provenance"
	"lore/strategy"
	"lore/usagelog"
)

// PrimeRequest is what to prime for, and how. A nil override leaves
// config.yaml's setting as it is.
type PrimeRequest struct {
	Task prompt.Task
	// Loop is the task's place in the loop (its run, iteration, limit,
	// strategy and model), for the Loop Status.
	Loop strategy.Input
	// Budget is the total for the memory sections, in tokens (0: each
	// section its own share); nil: memories.budget.
	Budget *int
	// HeadingLevel is the sections' level (prompt.DefaultHeadingLevel
	// when 0).
	HeadingLevel int
	// The memories shown: each replaces its part of memories.filter.
	MemoryTypes *[]entry.MemoryType
	MemoryTags  *[]string
	RecentDays  *int
	// NoInstructions leaves out how to use lore; NoLearn the instructions
	// to write new memory (learn: false in config.yaml does too).
	NoInstructions, NoLearn bool
}

// Primed is what a prime is made from — the entries read and ranked for
// the task, its loop status with the model lore chooses, and the options
// config.yaml and the request give — ready to render while its store is
// open (the knowledge and learnings a section examines are read whole
// then, from the entries cache). lore prime prints it, lore run hands it
// to the agent, the MCP server returns it.
type Primed struct {
	Input   prompt.Input
	Options prompt.Options
	store   *mdstore.Store
	report  Reporter
	stale   *provenance.Report // what Input.Mark asks
}

// Prime reads what a prime for req shows from s: the memories, the
// entries a task makes relevant (asked of search's index while the files
// are read; search may be nil), the skills, and the loop status.
func Prime(s *mdstore.Store, search *index.Searcher, req PrimeRequest, r Reporter) (*Primed, error) {
	cfg := s.Config()
	// Asked of the search index while the files are read.
	relevance := search.Relevance(s, TaskText(req.Task), req.Task.Statuses, entry.KindMemory, entry.KindKnowledge, entry.KindLearning, entry.KindJournal)
	loop := req.Loop
	if loop.Run == "" {
		loop.Run, _ = s.CurrentRun()
	}
	loop.Models = cfg.Models
	in := prompt.Input{Task: req.Task, Now: s.Now()}
	in.Task.Run = loop.Run
	// The entries prime may show are chosen while memories.md is read
	// and the search index asked: each takes tens of milliseconds in a
	// large store.
	type catalogRead struct {
		catalog   *catalog.Catalog
		shortlist *prompt.Shortlist
		warnings  []entry.Warning
		err       error
	}
	catalogDone := make(chan catalogRead, 1)
	go func() {
		var r catalogRead
		r.catalog, r.warnings, r.err = s.Catalog() // through the per-clone cache of parsed files
		if r.err == nil {
			r.shortlist = prompt.NewShortlist(r.catalog, in.Task, in.Now)
		}
		catalogDone <- r
	}()
	var all []entry.Memory
	if cfg.Memories.Inject == config.InjectAuto {
		var warnings []entry.Warning
		var err error
		all, warnings, err = s.Memories()
		r.Warnings(warnings)
		if err != nil {
			<-catalogDone
			return nil, err
		}
		in.Memories = memoryFilter(cfg.Memories.Filter, req, in.Now).Filter(all)
	}
	read := <-catalogDone
	r.Warnings(read.warnings)
	if read.err != nil {
		return nil, read.err
	}
	skills, warnings, err := s.Skills()
	if err != nil {
		return nil, err
	}
	in.Skills = skills
	r.Warnings(warnings)
	// What cited files changed under (after the catalog: a repository is
	// read by one goroutine at a time).
	report, err := provenance.Read(s)
	if err != nil {
		r.Notice("cannot tell which entries are stale: " + err.Error())
	}
	in.Stale, in.Unverified, in.Mark = marks(report, newUnverified(s, cfg.UnverifiedDays, in.Now, all, read.catalog, report))
	stale := report
	in.Relevance = <-relevance
	// Of the knowledge and learnings, only those prime examines are read
	// whole, when it renders the prime (Context, ClaudeHook).
	in.Journal, in.Chosen = read.shortlist.With(in.Relevance)
	in.Loop = strategy.Compute(in.Journal, loop)
	budgets := cfg.Budgets
	budgets.TotalTokens = cfg.Memories.Budget
	if req.Budget != nil {
		budgets.TotalTokens = *req.Budget
	}
	level := req.HeadingLevel
	if level == 0 {
		level = prompt.DefaultHeadingLevel
	}
	opts := prompt.Options{Budgets: budgets, HeadingLevel: level,
		Instructions: !req.NoInstructions && cfg.Memories.SkillInjection,
		Learn:        !req.NoLearn && cfg.Learn,
		MemoriesOff:  cfg.Memories.Inject == config.InjectNone,
		Models:       cfg.Models}
	return &Primed{Input: in, Options: opts, store: s, report: r, stale: stale}, nil
}

// Context renders the prime and counts the entries it shows in the
// clone's usage log (for pruning).
func (p *Primed) Context() prompt.Context {
	defer p.stale.Keep()() // the marks walk cited files' histories: their trees read once
	ctx := prompt.Prime(p.Input, p.Options)
	p.recordUse(ctx)
	return ctx
}

// ClaudeHook is the prime as a Claude Code SessionStart hook's JSON,
// within the characters Claude Code adds to the context whole: the
// largest total budget whose JSON (escapes included) fits. The entries
// it shows are counted in the usage log.
func (p *Primed) ClaudeHook() ([]byte, prompt.Context) {
	defer p.stale.Keep()()
	opts := p.Options
	ranked := prompt.Rank(p.Input, opts.HeadingLevel) // once, primed under each budget tried
	render := func(total int) ([]byte, prompt.Context) {
		opts.Budgets.TotalTokens = total
		ctx := ranked.Prime(opts)
		return hooks.SessionStartOutput(ctx.Markdown()), ctx
	}
	out, ctx := render(opts.Budgets.TotalTokens)
	if len(out) >= hooks.ClaudeOutputLimit {
		// Too long: hi is a total that does not fit, lo one that does.
		hi := opts.Budgets.TotalTokens
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
	}
	p.recordUse(ctx)
	return out, ctx
}

// recordUse counts the entries ctx put before the agent in the clone's
// usage log. A failure to record is said, never fatal.
func (p *Primed) recordUse(ctx prompt.Context) {
	var keys []string
	for _, sec := range ctx.Sections {
		keys = append(keys, sec.Entries...)
	}
	RecordUse(p.store, p.report, keys...)
}

// RecordUse counts the entries of keys (prompt.Key) as put before an
// agent now, in the clone's usage log; a failure to record is said.
func RecordUse(s *mdstore.Store, r Reporter, keys ...string) {
	if err := usagelog.Open(s.StateDir()).Record(s.Now(), keys); err != nil {
		r.Notice("could not count the entries used: " + err.Error())
	}
}

// TaskText is what of a task the search index is asked about.
func TaskText(t prompt.Task) string {
	return strings.TrimSpace(strings.Join([]string{t.Title, t.Description, t.Feature}, " "))
}

// memoryFilter is the filter of the memories prime shows: config.yaml's
// memories.filter, each part replaced by the request's when given.
func memoryFilter(cfg config.MemoriesFilter, req PrimeRequest, now time.Time) prompt.MemoryFilter {
	f := prompt.MemoryFilter{Types: cfg.Types, Tags: cfg.Tags}
	recent := cfg.RecentDays
	if req.MemoryTypes != nil {
		f.Types = *req.MemoryTypes
	}
	if req.MemoryTags != nil {
		f.Tags = *req.MemoryTags
	}
	if req.RecentDays != nil {
		recent = *req.RecentDays
	}
	if recent > 0 {
		today := now.UTC().Truncate(24 * time.Hour)
		f.Since = today.AddDate(0, 0, -recent)
	}
	return f
}

// marks are the stale entries of report by memory id and entry file
// path, as prompt.Input takes them, the unverified ones (u), and the mark
// of each.
func marks(report *provenance.Report, u *unverified) (map[string]bool, func(string) bool, func(string) string) {
	stale := map[string]bool{}
	if report != nil {
		for _, key := range report.StaleKeys() {
			if strings.HasPrefix(key, "mem-") {
				stale[key] = true
			} else {
				stale[entry.Dir+"/"+key] = true
			}
		}
	}
	mark := func(key string) string {
		switch {
		case stale[key]:
			return report.Mark(key)
		case u.is(key):
			return u.mark(key)
		}
		return ""
	}
	if u == nil {
		return stale, nil, mark
	}
	return stale, u.is, mark
}
