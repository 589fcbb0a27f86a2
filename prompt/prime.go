package prompt

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"lore/internal/markdown"
	"lore/internal/words"
	"lore/mdstore/catalog"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/sigils"
	"lore/strategy"
)

// Task is what prime knows of the coming iteration's task; every field may
// be empty.
type Task struct {
	ID          string   `json:"task_id,omitempty"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Feature     string   `json:"feature,omitempty"`
	Files       []string `json:"files,omitempty"`
	Run         string   `json:"run,omitempty"`
	// Statuses are the learning statuses prime shows (entry.Wanted);
	// none shows the active learnings nothing superseded.
	Statuses []string `json:"-"`
}

// Given says whether anything is known of the task.
func (t Task) Given() bool {
	return t.ID != "" || t.Title != "" || t.Description != "" || t.Feature != "" || len(t.Files) > 0
}

// Limits on how many entries a section shows.
const (
	MaxLearnings       = 5 // seed 002
	RecentJournal      = 5 // entries of this run (seed 000)
	RelevantJournal    = 5 // entries of other runs
	MaxTraceInAttempts = sigils.MaxStackTrace
)

// Input is everything prime chooses from.
type Input struct {
	Task      Task
	Memories  []entry.Memory
	Knowledge []entry.Knowledge
	Learnings []entry.Learning
	Journal   []entry.JournalEntry
	Skills    []entry.Skill
	// Loop is the loop status; shown when the run or the task has a
	// history.
	Loop strategy.Status
	// Chosen, when set, holds the knowledge and learnings in place of
	// Knowledge and Learnings: ranked by their heads, each read whole
	// from its catalog when a section examines it, so that the catalog's
	// store must stay open until the prime is made (Shortlist.With).
	Chosen *Chosen
	// Relevance, when set, is the full-text relevance of memories,
	// knowledge, learnings and journal entries to the task (0 to 1),
	// keyed by the store path of the entry's file — for a memory,
	// memories.md's path, '#' and its id (MemoryRelevanceKey).
	Relevance map[string]float64
	// Stale are the entries a file they cite has changed under, by
	// memory id or entry file path (package provenance); Mark says what
	// prime writes under one it shows ("cites `a.go`, changed in 3
	// commits since — …"). A stale entry ranks below a fresh one of the
	// same relevance.
	Stale map[string]bool
	// Unverified, when set, says whether an entry that is not stale (by
	// memory id or entry file path) is unverified: not tied to the code
	// by a citation, and neither written nor shown by a prime for a
	// while. Mark then says so under it, as under a stale one; it ranks
	// as it would.
	Unverified func(idOrPath string) bool
	// Mark is the text of the line under a stale or unverified entry
	// shown ("" for none).
	Mark func(idOrPath string) string
	// Now is when the prime is made: the recency of seed 004's learnings
	// (the zero time leaves it out).
	Now time.Time
}

// Key names an entry for Section.Entries and the usage
// log: "memory:<id>", "knowledge:<slug>", "learning:<id>",
// "journal:<run>/<name>" (entry.JournalEntry.Key), "skill:<name>".
func Key(kind entry.Kind, id string) string { return string(kind) + ":" + id }

// Options shape a prime.
type Options struct {
	Budgets config.Budgets
	// HeadingLevel is the level of the sections' headings, 1 to
	// MaxHeadingLevel (0: DefaultHeadingLevel); entries sit one level below.
	HeadingLevel int
	// Instructions adds the fixed block on how to use lore (outside the
	// budget); Learn keeps its part on writing new memory.
	Instructions bool
	Learn        bool
	// MemoriesOff leaves memories out of the instructions (config.yaml's
	// memories.inject: none); the caller leaves them out of Input.
	MemoriesOff bool
	// Models are the models the instructions offer for <next-model>
	// (config.yaml's models; nil for the default ones).
	Models []string
}

// Section is one part of a prime.
type Section struct {
	Name     string `json:"name"`
	Markdown string `json:"markdown"`
	Shown    int    `json:"shown"`
	// Omitted counts the entries the budget left out; Capped those past
	// the section's own cap (MaxLearnings).
	Omitted int `json:"omitted"`
	Capped  int `json:"capped,omitempty"`
	// Entries names the entries shown (as Key does), for usage counts.
	Entries []string `json:"entries,omitempty"`
	// Budget is the characters the section could use; 0 for the
	// instructions, which are outside the budget.
	Budget int `json:"budget_chars"`
}

// Context is a prime: the sections that have content, in order, and one
// line saying what was left out and why ("" when nothing).
type Context struct {
	Sections []Section `json:"sections"`
	Omitted  string    `json:"omitted,omitempty"`
}

// Markdown is the whole prime as the agent reads it: the sections, the
// left-out line, and the instructions last.
func (c Context) Markdown() string {
	parts := make([]string, 0, len(c.Sections)+1)
	omitted := c.Omitted != ""
	for _, s := range c.Sections {
		if s.Name == SectionInstructions && omitted {
			parts, omitted = append(parts, c.Omitted+"\n"), false
		}
		parts = append(parts, strings.TrimRight(s.Markdown, "\n")+"\n")
	}
	if omitted {
		parts = append(parts, c.Omitted+"\n")
	}
	return strings.Join(parts, "\n")
}

// budgeted is how many characters of the prime the budget covers: all of
// it but the instructions.
func (c Context) budgeted() int {
	inside := Context{Omitted: c.Omitted}
	for _, s := range c.Sections {
		if s.Name != SectionInstructions {
			inside.Sections = append(inside.Sections, s)
		}
	}
	return runeLen(inside.Markdown())
}

// Names of the sections, in priority order.
const (
	SectionAttempts     = "previous_attempts"
	SectionMemories     = "memories"
	SectionKnowledge    = "knowledge"
	SectionLearnings    = "learnings"
	SectionJournal      = "journal"
	SectionLoopStatus   = "loop_status"
	SectionSkills       = "skills"
	SectionInstructions = "instructions"
)

// Prime assembles the context for the next iteration. With a total budget,
// everything but the instructions fits in it — the left-out line included
// — unless the budget cannot hold even that line, which is then all the
// prime says. The loop status is placed first within the budget, so it
// is never dropped while other entries are shown; when it does not fit
// whole, its stuck-loop warning may still.
func Prime(in Input, opts Options) Context { return Rank(in, opts.HeadingLevel).Prime(opts) }

// Ranked is an input of Prime ranked for its task, ready to be primed
// under any budget: a Claude Code hook primes one input under several
// total budgets to find the largest whose output fits its cap, and ranks
// it once.
type Ranked struct{ pl *plan }

// Rank ranks in for primes whose sections are at headingLevel (as
// Options.HeadingLevel says it).
func Rank(in Input, headingLevel int) Ranked { return Ranked{newPlan(in, outlineAt(headingLevel))} }

// Prime is Prime(in, opts) of the input r was ranked from; its sections
// are at r's heading level, whatever opts.HeadingLevel says.
func (r Ranked) Prime(opts Options) Context {
	pl := r.pl
	total := opts.Budgets.TotalTokens * CharsPerToken
	ctx := pl.assemble(opts.Budgets, total)
	// The left-out line is inside the budget: when it overflows, the
	// sections make room for it and are assembled again (a tighter budget
	// may leave more out and lengthen the line, hence the loop).
	for reserve := 0; total > 0 && reserve < total; {
		over := ctx.budgeted() - total
		if over <= 0 {
			break
		}
		reserve = min(total, reserve+over)
		ctx = pl.assemble(opts.Budgets, total-reserve)
	}
	if opts.Instructions {
		ctx.Sections = append(ctx.Sections, Section{Name: SectionInstructions, Markdown: instructions(pl.o, opts.Learn, !opts.MemoriesOff, opts.Models), Shown: 1})
	}
	return ctx
}

// plan is what a prime is assembled from, worked out once: the budget may
// have it assembled more than once.
type plan struct {
	in       Input
	o        outline
	attempts []entry.JournalEntry
	// The entries of each section ranked for the task, best first; for
	// the memories how long each is as the section shows it (every one is
	// measured, few are shown). The knowledge and the learnings are
	// ranked by their heads and read whole (read) when a section
	// examines them; the learnings shown, and how many their cap left out,
	// do not depend on the budget.
	memories   []*entry.Memory
	memoryLens []int
	knowledge  ranking
	learnings  ranking
	journal    journalRanking
	read       *wholeEntries
	// learningsKept are the learnings kept for their section, in the
	// order shown; learningsCapped how many its cap left out.
	learningsKept   []entry.Learning
	learningsCapped int
	// compared counts the entries asked about near-duplicates (a test
	// counts the work a prime does).
	compared int
	// loop and stuck are the Loop Status whole and reduced to its
	// stuck-loop warning ("" when not stuck or not shown).
	loop, stuck string
	// markOf are the stale lines written (mark).
	markOf map[string]string
}

func newPlan(in Input, o outline) *plan {
	// An agent error is no attempt: nothing in it is an approach not to
	// repeat. Loop Status says how many there were.
	attempts := slices.DeleteFunc(strategy.Attempts(in.Journal, in.Task.ID), entry.JournalEntry.AgentError)
	kw := taskKeywords(in.Task, attempts, in.Journal)
	pl := &plan{in: in, o: o, attempts: attempts}
	var knowledge, learnings candidates
	if ch := in.Chosen; ch != nil {
		knowledge, learnings = ch.knowledge, ch.learnings
		pl.read = &wholeEntries{catalog: ch.c}
	} else {
		knowledge.cs[0], learnings.cs[0] = kw.candidatesOf(in.Knowledge, in.Learnings, in.Task)
		pl.read = &wholeEntries{input: catalog.Entries{Knowledge: in.Knowledge, Learnings: in.Learnings}}
	}
	ko, lo := knowledgeOrder(in.Task), learningsOrder(in.Task, in.Now)
	pl.knowledge = ko.rank(knowledge, in.Relevance).freshFirst(ko, in.Relevance, in.Stale)
	pl.learnings = lo.rank(learnings, in.Relevance).freshFirst(lo, in.Relevance, in.Stale)
	var x examination
	x, pl.learningsKept = pl.examineLearnings()
	pl.learningsCapped = x.leftOut(pl.learnings.len(), min(len(pl.learningsKept), MaxLearnings))
	pl.memories = rankMemories(in.Memories, in.Task, in.Relevance, in.Stale)
	pl.memoryLens = make([]int, len(pl.memories))
	for i := range pl.memories {
		pl.memoryLens[i] = o.memoryLen(*pl.memories[i])
	}
	pl.journal = rankJournal(in.Journal, in.Task, kw, in.Relevance)
	if in.Loop.Run.Total > 0 || in.Loop.Task.Attempts > 0 || in.Loop.Run.AgentErrors > 0 || in.Loop.Task.AgentErrors > 0 {
		pl.loop = o.loopStatus(in.Loop, in.Task.ID)
		if in.Loop.Stuck {
			pl.stuck = o.section("Loop Status") + "\n" + stuckWarning
		}
	}
	return pl
}

// assemble fills the sections in priority order within total characters
// (no total when total is 0 and the budget has none): each section gets
// its share and what the sections before it left unused.
func (pl *plan) assemble(b config.Budgets, total int) Context {
	in, o := pl.in, pl.o
	hard := b.TotalTokens > 0
	// Each section costs its text and the blank line before it; the first
	// has none.
	remaining, carry := total+1, 0
	var ctx Context
	var budget, capped []string
	shown := map[string]bool{}

	// The loop status first: it is small and says where the loop stands.
	loop := ""
	for _, md := range []string{pl.loop, pl.stuck} {
		if md != "" && runeLen(md) <= b.LoopStatusChars && (!hard || runeLen(md)+1 <= remaining) {
			loop = md
			break
		}
	}
	switch {
	case loop != "":
		remaining -= runeLen(loop) + 1
	case pl.loop != "" && hard:
		remaining = 0 // nothing is shown in its place
	}

	add := func(name string, share int, render func(limit, most int) part) {
		limit := share + carry
		if hard {
			limit = min(limit, remaining-1)
		}
		// No entry takes more than a share of the section's own budget
		// (or of its limit, when that is less): what earlier sections
		// left unused is for more entries, not longer ones.
		p := render(max(0, limit), entryCap(max(0, min(share, limit))))
		used := runeLen(p.md)
		carry = max(0, limit-used)
		if p.md != "" {
			remaining -= used + 1
		}
		if p.omitted > 0 {
			budget = append(budget, plural(p.omitted, sectionNouns[name]))
		}
		if p.capped > 0 {
			capped = append(capped, p.capNote)
		}
		for _, k := range p.keys {
			shown[k] = true
		}
		if p.md != "" {
			ctx.Sections = append(ctx.Sections, Section{Name: name, Markdown: p.md, Shown: p.shown, Omitted: p.omitted, Capped: p.capped, Entries: p.keys, Budget: limit})
		}
	}

	add(SectionAttempts, b.AttemptsChars, func(limit, _ int) part { return o.attemptsSection(pl.attempts, limit) })
	add(SectionMemories, b.MemoriesTokens*CharsPerToken, func(limit, most int) part {
		memories, lens := o.capMemories(pl.memories, pl.memoryLens, most)
		pl.marks(memories, lens)
		included, omitted, dups, compared := o.fitMemories(memories, lens, limit)
		pl.compared += compared
		keys := make([]string, len(included))
		for i, m := range included {
			keys[i] = Key(entry.KindMemory, m.ID)
		}
		p := part{md: o.renderMemories(included, pl.mark), shown: len(included), omitted: omitted, keys: keys}
		if dups > 0 {
			p.capped, p.capNote = dups, plural(dups, [2]string{"memory that repeats one shown", "memories that repeat those shown"})
		}
		return p
	})
	add(SectionKnowledge, b.KnowledgeTokens*CharsPerToken, pl.knowledgeSection)
	add(SectionLearnings, b.LearningsChars, func(limit, most int) part {
		return o.learningsSection(pl.learningsKept, pl.learningsCapped, limit, most)
	})
	add(SectionJournal, b.JournalTokens*CharsPerToken, func(limit, most int) part {
		return o.journalSection(pl.journal.pick(shown), limit, most)
	})
	if loop != "" {
		ctx.Sections = append(ctx.Sections, Section{Name: SectionLoopStatus, Markdown: loop, Shown: 1, Budget: runeLen(loop)})
	}
	switch {
	case loop == "" && pl.loop != "":
		budget = append(budget, "the loop status")
	case loop != pl.loop:
		budget = append(budget, "the loop's figures")
	}
	add(SectionSkills, b.SkillsChars, func(limit, _ int) part { return o.skillsSection(in.Skills, limit) })

	ctx.Omitted = leftOutLine(budget, capped)
	return ctx
}

// leftOutLine says what the budget and the sections' caps left out; ""
// when nothing.
func leftOutLine(budget, capped []string) string {
	var why []string
	if len(budget) > 0 {
		why = append(why, "to stay within the budget: "+strings.Join(budget, ", "))
	}
	why = append(why, capped...)
	if len(why) == 0 {
		return ""
	}
	return "_Left out " + strings.Join(why, "; ") + ". `lore search` finds them._"
}

var sectionNouns = map[string][2]string{
	SectionAttempts:  {"earlier attempt", "earlier attempts"},
	SectionMemories:  {"memory", "memories"},
	SectionKnowledge: {"knowledge entry", "knowledge entries"},
	SectionLearnings: {"learning", "learnings"},
	SectionJournal:   {"journal entry", "journal entries"},
	SectionSkills:    {"skill", "skills"},
}

func plural(n int, nouns [2]string) string {
	return fmt.Sprintf("%d %s", n, words.Plural(n, nouns[0], nouns[1]))
}

// fit keeps, in priority order, the blocks that fit in limit characters
// beside fixed (the section's heading and the other parts shown with it),
// given their lengths; a block that does not fit is skipped whole and a
// smaller one after it may still fit. It returns the indexes kept, in
// priority order, or none.
func fit(lengths []int, fixed, limit int) []int {
	var kept []int
	used := fixed
	for i, n := range lengths {
		if used+n <= limit {
			kept = append(kept, i)
			used += n
		}
	}
	if used == fixed {
		return nil
	}
	return kept
}

// runeLens is the length of each block, in characters.
func runeLens(blocks []string) []int {
	lens := make([]int, len(blocks))
	for i, b := range blocks {
		lens[i] = runeLen(b)
	}
	return lens
}

// part is a section as rendered within its limit: its text, how many
// entries it shows and how many the limit left out, the keys (Key) of
// those shown, and how many entries its cap left out, said by capNote.
type part struct {
	md             string
	shown, omitted int
	keys           []string
	capped         int
	capNote        string
}

// fitSection renders head and the blocks that fit in limit, in priority
// order; key(i) names block i's entry. md is "" when no block fits.
func fitSection(head string, blocks []string, limit int, key func(i int) string) part {
	kept := fit(runeLens(blocks), runeLen(head), limit)
	if len(kept) == 0 {
		return part{omitted: len(blocks)}
	}
	var b strings.Builder
	b.WriteString(head)
	keys := make([]string, len(kept))
	for k, i := range kept {
		b.WriteString(blocks[i])
		keys[k] = key(i)
	}
	return part{md: b.String(), shown: len(kept), omitted: len(blocks) - len(kept), keys: keys}
}

// attemptsSection renders seed 002's Previous Attempts, oldest first; when
// the budget is short the most recent attempts are kept and older ones
// dropped. A task solved before and attempted again shows the attempt
// that solved it, and only the failures since as approaches not to repeat.
func (o outline) attemptsSection(attempts []entry.JournalEntry, limit int) part {
	if len(attempts) == 0 {
		return part{}
	}
	solved := -1 // the last attempt that solved the task
	for i, a := range attempts {
		if a.Outcome == "done" {
			solved = i
		}
	}
	since := attempts[solved+1:]
	head := o.section("Previous Attempts") + "\n"
	var solvedKey []string
	if solved >= 0 {
		head += o.solvedBlock(attempts[solved])
		solvedKey = []string{Key(entry.KindJournal, attempts[solved].Key())}
		if len(since) > 0 {
			head += fmt.Sprintf("\nIt has been attempted %d time(s) since. **Do not repeat these approaches.**\n\n", len(since))
		}
	} else {
		head += fmt.Sprintf("This task has been attempted %d time(s) before. **Do not repeat these approaches.**\n\n", len(attempts))
	}
	tail := ""
	if len(since) > 0 {
		if f := since[len(since)-1].Failure; f != nil && f.RetrySuggestion != "" {
			tail = "\n**Suggested approach for this retry:**\n" + strings.TrimSpace(f.RetrySuggestion) + "\n"
		}
	}
	if len(since) == 0 {
		if runeLen(head) > limit {
			return part{omitted: 1}
		}
		return part{md: head, shown: 1, keys: solvedKey}
	}
	const truncated = "_(Earlier attempts truncated due to context budget)_\n\n"
	// Newest first: the most recent attempt is the one worth keeping.
	blocks := make([]string, len(since))
	for i := range since {
		j := len(since) - 1 - i
		blocks[i] = o.attemptBlock(solved+2+j, since[j])
		if j > 0 {
			blocks[i] = "\n" + blocks[i]
		}
	}
	lens := runeLens(blocks)
	kept := fit(lens, runeLen(head+tail), limit)
	if len(kept) < len(since) {
		kept = fit(lens, runeLen(head+tail+truncated), limit)
	}
	if len(kept) == 0 || kept[0] != 0 {
		return part{omitted: len(since) + len(solvedKey)}
	}
	// A kept block must not follow a dropped one (the list is a history):
	// keep the unbroken run of newest attempts.
	n := 0
	for n < len(kept) && kept[n] == n {
		n++
	}
	var b strings.Builder
	b.WriteString(head)
	if n < len(since) {
		b.WriteString(truncated)
	}
	for i := n - 1; i >= 0; i-- {
		block := blocks[i]
		if i == n-1 {
			block = strings.TrimPrefix(block, "\n")
		}
		b.WriteString(block)
	}
	b.WriteString(tail)
	keys := solvedKey
	for i := range n {
		keys = append(keys, Key(entry.KindJournal, since[len(since)-1-i].Key()))
	}
	return part{md: b.String(), shown: len(keys), omitted: len(since) - n, keys: keys}
}

// solvedBlock says which earlier attempt solved the task, with its notes.
func (o outline) solvedBlock(e entry.JournalEntry) string {
	var b strings.Builder
	by := fmt.Sprintf("iteration %d of run %s", e.Iteration, e.RunID)
	if e.Model != "" {
		by += " (" + e.Model + ")"
	}
	fmt.Fprintf(&b, "This task was solved before by %s and is attempted again: check whether that work is still in place before redoing it.\n\n", by)
	b.WriteString(o.entry("Solved before by " + by))
	b.WriteString("\n")
	if len(e.FilesModified) > 0 {
		fmt.Fprintf(&b, "- **Files**: %s\n", strings.Join(e.FilesModified, ", "))
	}
	notes := strings.TrimSpace(e.Notes)
	if notes == "" {
		notes = "(no notes were recorded)"
	}
	writeNotes(&b, notes)
	return b.String()
}

// attemptBlock renders one attempt (seed 002's template).
func (o outline) attemptBlock(n int, e entry.JournalEntry) string {
	var b strings.Builder
	if e.Model != "" {
		b.WriteString(o.entry(fmt.Sprintf("Attempt %d (%s, %s)", n, e.Model, e.Outcome)))
	} else {
		b.WriteString(o.entry(fmt.Sprintf("Attempt %d (%s)", n, e.Outcome)))
	}
	b.WriteString("\n")
	f := e.Failure
	if f == nil {
		fmt.Fprintf(&b, "- **Outcome:** %s after %dms\n- **No structured failure report was provided.**\n", e.Outcome, int64(e.DurationSecs*1000))
		return b.String()
	}
	line := func(label, value string) {
		if value = strings.Join(strings.Fields(value), " "); value != "" {
			fmt.Fprintf(&b, "- **%s:** %s\n", label, value)
		}
	}
	line("Approach", f.WhatTried)
	line("Why it failed", f.WhyFailed)
	line("Error type", f.ErrorCategory)
	line("Files involved", strings.Join(f.RelevantFiles, ", "))
	if trace := strings.TrimSpace(sigils.TruncateTrace(f.StackTrace)); trace != "" {
		fence := markdown.FenceFor(trace)
		b.WriteString("- **Error output:**\n  " + fence + "\n")
		for _, l := range strings.Split(trace, "\n") {
			b.WriteString(strings.TrimRight("  "+l, " ") + "\n")
		}
		b.WriteString("  " + fence + "\n")
	}
	return b.String()
}

// keywords are what makes an entry relevant to a task, lowercased.
type keywords struct {
	// in says which of the task's sets of keywords hold a word: one
	// lookup for each tag or file of the tens of thousands of entries a
	// prime ranks.
	in map[string]keywordSets
	// feature is the task's feature, lowercased.
	feature string
	// taskType is the task's type in seed 004's table (strategy.TaskType).
	taskType string
	// textTags weighs the knowledge tags found in the task's text by
	// their rarity (weighTextTags).
	textTags tagWeights
	// learningTags weighs the learnings' tags among the task's keywords
	// by their rarity (weighLearningTags).
	learningTags tagWeights
}

// keywordSets are sets of a task's keywords.
type keywordSets uint8

const (
	inText  keywordSets = 1 << iota // words of the title and description
	inFiles                         // the task's files and their words
	// inAll are text, files, the feature, the task's type and the error
	// categories of earlier attempts.
	inAll
	// inRecent are the files the latest iteration modified and their
	// words: they break ties between entries relevant to the task, and
	// make no entry relevant on their own.
	inRecent
)

// add puts word in sets.
func (kw keywords) add(word string, sets keywordSets) { kw.in[word] |= sets }

func taskKeywords(t Task, attempts, journal []entry.JournalEntry) keywords {
	kw := keywords{in: map[string]keywordSets{}}
	for _, w := range words.Keywords(t.Title + " " + t.Description) {
		if !words.StopWords[w] {
			kw.add(w, inText|inAll)
		}
	}
	if t.Feature != "" {
		kw.feature = strings.ToLower(t.Feature)
		kw.add(kw.feature, inAll)
	}
	// The task's type in seed 004's table is a keyword: the learnings
	// extracted from runs of that type carry it as a tag, and seed 004
	// retrieves by it (a task that fits no type brings in nothing).
	kw.taskType = strategy.GeneralTaskType
	if text := t.Title + " " + t.Description; strings.TrimSpace(text) != "" {
		if kw.taskType = strategy.TaskType(text); kw.taskType != strategy.GeneralTaskType {
			kw.add(kw.taskType, inAll)
		}
	}
	for _, f := range t.Files {
		kw.add(strings.ToLower(f), inFiles|inAll)
		for _, w := range pathWords(f) {
			kw.add(w, inFiles|inAll)
		}
	}
	for _, f := range recentFiles(journal) {
		kw.add(strings.ToLower(f), inRecent)
		for _, w := range pathWords(f) {
			kw.add(w, inRecent)
		}
	}
	for _, a := range attempts {
		if a.Failure != nil && a.Failure.ErrorCategory != "" {
			kw.add(strings.ToLower(a.Failure.ErrorCategory), inAll)
		}
	}
	return kw
}

// recentFiles are the files the most recent iteration modified.
func recentFiles(journal []entry.JournalEntry) []string {
	if i := latest(len(journal), func(i int) string { return journal[i].CreatedAt }); i >= 0 {
		return journal[i].FilesModified
	}
	return nil
}

// latest is the first of n journal entries created last (created(i) is
// entry i's created_at), -1 when there are none.
func latest(n int, created func(i int) string) int {
	at, last := -1, moment{}
	for i := range n {
		if m := momentOf(created(i)); at < 0 || m.after(last) {
			at, last = i, m
		}
	}
	return at
}

// newer says whether timestamp a is after b. Two UTC RFC 3339 times of the
// same form (what lore writes) compare as text, without parsing: ranking
// thousands of journal entries compares them often.
func newer(a, b string) bool { return momentOf(a).after(momentOf(b)) }

// moment is a timestamp as newer compares it, looked at once: a sort
// compares each entry's time with many others. It holds no pointer, so
// that the keys a ranking sorts are cheap to collect.
type moment struct {
	// n is, when utc says the text is "YYYY-MM-DDTHH:MM:SSZ", its
	// fourteen digits read as one number: two such times compare as their
	// texts do. Otherwise it is the time the text parses to
	// (entry.ParseTimestamp; the zero time when it does not parse), in
	// seconds since 1970, and nsec its nanoseconds.
	n    int64
	nsec int32
	utc  bool
}

func momentOf(s string) moment {
	if !utcSeconds(s) {
		t := entry.ParseTimestamp(s)
		return moment{n: t.Unix(), nsec: int32(t.Nanosecond())}
	}
	m := moment{utc: true}
	for _, i := range utcDigits {
		m.n = m.n*10 + int64(s[i]-'0')
	}
	return m
}

// after is newer of the texts m and o are of.
func (m moment) after(o moment) bool {
	if m.utc && o.utc {
		return m.n > o.n
	}
	a, b := m.seconds(), o.seconds()
	return a > b || a == b && m.nsec > o.nsec
}

// seconds is the time since 1970 m's text parses to, in seconds.
func (m moment) seconds() int64 {
	if !m.utc {
		return m.n
	}
	d := m.n
	second, minute, hour := d%100, d/100%100, d/10000%100
	day, month, year := d/1000000%100, d/100000000%100, d/10000000000
	if month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour > 23 || minute > 59 || second > 59 {
		return zeroTimeSec // as time.Parse refuses it
	}
	return daysSince1970(year, month, day)*86400 + hour*3600 + minute*60 + second
}

// zeroTimeSec is the zero time.Time in seconds since 1970.
var zeroTimeSec = time.Time{}.Unix()

// daysIn is how many days month has in year (proleptic Gregorian).
func daysIn(month, year int64) int64 {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysSince1970 is how many days from 1970-01-01 a date of the years 0
// to 9999 is (Howard Hinnant's days_from_civil).
func daysSince1970(year, month, day int64) int64 {
	if month <= 2 {
		year--
	}
	era := (year+400)/400 - 1 // the 400-year era, for year -1 too
	yearOfEra := year - era*400
	dayOfYear := (153*((month+9)%12)+2)/5 + day - 1
	dayOfEra := yearOfEra*365 + yearOfEra/4 - yearOfEra/100 + dayOfYear
	return era*146097 + dayOfEra - 719468
}

// utcDigits are the places of the digits of "YYYY-MM-DDTHH:MM:SSZ".
var utcDigits = [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}

// utcSeconds says whether s is "YYYY-MM-DDTHH:MM:SSZ".
func utcSeconds(s string) bool {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return false
	}
	for _, i := range utcDigits {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pathWords splits a path on / . - _ into words longer than two
// characters (seed 000).
func pathWords(p string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(p), func(r rune) bool {
		return r == '/' || r == '.' || r == '-' || r == '_' || r == '\\'
	}) {
		if len([]rune(w)) > 2 {
			out = append(out, w)
		}
	}
	return out
}

// scored is an entry with its rank for the task.
type scored[T any] struct {
	entry T
	rank
}

// best orders scored entries by rank; those it cannot tell apart keep
// their order. It sorts their places, not the entries (a few hundred
// bytes each).
func best[T any](list []scored[T]) []T {
	order := make([]int, len(list))
	for i := range list {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return list[i].compare(&list[j].rank) })
	out := make([]T, len(list))
	for i, k := range order {
		out[i] = list[k].entry
	}
	return out
}

// journalRanking is the Run Journal's candidates: the entries of the
// task's run (or the latest run), newest first, and with a task the
// entries of other runs about the same task or feature, sharing the
// task's files or relevant to its text, most relevant first (files shared
// with the latest iteration break ties).
type journalRanking struct {
	this, others []*entry.JournalEntry
	// earlier are the run's entries older than its RecentJournal newest
	// that are relevant to the task, most relevant first (earlierInRun).
	earlier []*entry.JournalEntry
}

func rankJournal(journal []entry.JournalEntry, t Task, kw keywords, rel map[string]float64) journalRanking {
	run := t.Run
	if i := latest(len(journal), func(i int) string { return journal[i].CreatedAt }); run == "" && i >= 0 {
		run = journal[i].RunID
	}
	// Pointers into journal: a store's journal is thousands of entries,
	// and an entry is a few hundred bytes to copy.
	var jr journalRanking
	var others []*entry.JournalEntry
	for i := range journal {
		if journal[i].RunID == run {
			jr.this = append(jr.this, &journal[i])
		} else {
			others = append(others, &journal[i])
		}
	}
	sort.SliceStable(jr.this, func(i, j int) bool { return entry.CompareIterations(*jr.this[i], *jr.this[j]) > 0 })
	if !t.Given() {
		return jr
	}
	jr.earlier = kw.earlierInRun(jr.this, t, rel)
	var list []scored[*entry.JournalEntry]
	for _, e := range others {
		if s, tie := kw.journalScore(e.TaskID, e.FeatureID, e.FilesModified, t, rel[e.Path]); s > 0 {
			list = append(list, scored[*entry.JournalEntry]{e, rank{score: s, tie: tie, time: momentOf(e.CreatedAt)}})
		}
	}
	jr.others = best(list)
	return jr
}

// journalScore is the score of another run's journal entry for task t
// (rankJournal) given its task, feature, files and full-text relevance,
// and the tie-breaker of files shared with the latest iteration; a score
// of 0 leaves it out.
func (kw keywords) journalScore(taskID, featureID string, files []string, t Task, relevance float64) (s float64, tie int) {
	m, tie := kw.journalMatch(taskID, featureID, files, t)
	return m.score(relevance), tie
}

// journalMatch is what of the task a journal entry matches, apart from its
// relevance: the task, the feature, how many of the task's files.
type journalMatch struct {
	task, feature bool
	files         int
}

// journalMatch is journalScore's matches and tie-breaker.
func (kw keywords) journalMatch(taskID, featureID string, files []string, t Task) (m journalMatch, tie int) {
	m.task = t.ID != "" && taskID == t.ID
	m.feature = t.Feature != "" && featureID == t.Feature
	for _, f := range files {
		in := kw.in[strings.ToLower(f)]
		if in&inFiles != 0 {
			m.files++
		}
		if in&inRecent != 0 {
			tie++
		}
	}
	return m, tie
}

// score is the score of an entry with these matches and relevance: the
// relevance, 3 for the task, 2 for the feature, 1 for each file, added in
// that order.
func (m journalMatch) score(relevance float64) float64 {
	s := relevance
	if m.task {
		s += 3
	}
	if m.feature {
		s += 2
	}
	for range m.files {
		s++
	}
	return s
}

// LoopStatus renders seed 002's Loop Status block, with the stuck-loop
// warning when the task failed strategy.StuckThreshold times in a row.
func LoopStatus(st strategy.Status, taskID string) string {
	return outline(DefaultHeadingLevel).loopStatus(st, taskID)
}

func (o outline) loopStatus(st strategy.Status, taskID string) string {
	var b strings.Builder
	b.WriteString(o.section("Loop Status") + "\n")
	limit := "unlimited"
	if st.Limit > 0 {
		limit = fmt.Sprint(st.Limit)
	}
	fmt.Fprintf(&b, "- **Iteration:** %d of %s\n", st.Iteration, limit)
	switch {
	case taskID != "" && st.Task.LastOutcome == "done":
		// Its last attempt finished it: say so, not only how many came before.
		fmt.Fprintf(&b, "- **This task:** done (its last attempt, %s, succeeded); another would be attempt #%d\n", st.Task.LastSuccessAt, st.Attempt)
	case taskID != "":
		fmt.Fprintf(&b, "- **This task:** attempt #%d, %d consecutive failure(s)\n", st.Attempt, st.Task.ConsecutiveFailures)
	}
	if st.Run.Total > 0 {
		fmt.Fprintf(&b, "- **Run success rate:** %d/%d iterations succeeded (%d%%)\n", st.Run.Successes, st.Run.Total, st.Run.SuccessPercent())
	}
	if n := st.Run.Unreported; n > 0 {
		fmt.Fprintf(&b, "- **Not reported:** %d %s of this run said nothing of how %s task went\n", n, words.Plural(n, "iteration", "iterations"), words.Plural(n, "its", "their"))
	}
	if n, last := agentErrors(st, taskID); n > 0 {
		b.WriteString(agentErrorLine(n, last))
	}
	if st.Model.Model != "" {
		fmt.Fprintf(&b, "- **Current model:** %s (%s)\n", st.Model.Model, st.Model.Reason)
	}
	if st.Stuck {
		b.WriteString("\n" + stuckWarning)
	}
	return b.String()
}

// agentErrors are the latest iterations in a row in which the agent did
// not run to the end — the task's, or with no task (or none for it) the
// run's — and the last one's why_failed.
func agentErrors(st strategy.Status, taskID string) (int, string) {
	if taskID != "" && st.Task.AgentErrors > 0 {
		return st.Task.AgentErrors, st.Task.LastAgentError
	}
	if taskID == "" || st.Task.AgentErrors == 0 && st.Task.Attempts == 0 {
		return st.Run.AgentErrorsInARow, st.Run.LastAgentError
	}
	return 0, ""
}

// agentErrorLine is Loop Status' line on n agent errors in a row.
func agentErrorLine(n int, last string) string {
	advice := "not counted as attempts"
	if n >= strategy.StuckThreshold {
		advice = "check the agent"
	}
	return fmt.Sprintf("- **Agent errors:** the agent has not run to the end %d time(s) in a row: %s (last: %s)\n", n, advice, words.FirstLine(last, 160))
}

// stuckWarning is seed 002's stuck-loop warning.
const stuckWarning = "> ⚠️ **Stuck loop detected.** This task has failed 3+ times consecutively.\n" +
	"> Consider: decomposing the task, trying a fundamentally different approach,\n" +
	"> or signaling `<task-failed>` with a clear explanation.\n"

func (o outline) skillsSection(skills []entry.Skill, limit int) part {
	return fitSection(o.skillsHead(), skillLines(skills), limit, func(i int) string { return Key(entry.KindSkill, skills[i].Name) })
}
