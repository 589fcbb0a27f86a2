package prompt

import (
	"fmt"
	"sort"
	"strings"

	"lore/internal/words"
	"lore/mdstore"
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
	Memories  []mdstore.Memory
	Knowledge []mdstore.Knowledge
	Learnings []mdstore.Learning
	Journal   []mdstore.JournalEntry
	Skills    []mdstore.Skill
	// Loop is the loop status; shown when the run or the task has a
	// history.
	Loop strategy.Status
	// Relevance, when set, is the full-text relevance of memories,
	// knowledge, learnings and journal entries to the task (0 to 1),
	// keyed by the store path of the entry's file — for a memory,
	// memories.md's path, '#' and its id (MemoryRelevanceKey).
	Relevance map[string]float64
}

// Key names an entry for Section.Entries and the usage
// log: "memory:<id>", "knowledge:<slug>", "learning:<id>",
// "journal:<run>/<name>" (mdstore.JournalEntry.Key), "skill:<name>".
func Key(kind mdstore.Kind, id string) string { return string(kind) + ":" + id }

// Options shape a prime.
type Options struct {
	Budgets mdstore.Budgets
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
	Omitted  int    `json:"omitted"`
	// Entries names the entries shown (as Key does), for usage counts.
	Entries []string `json:"entries,omitempty"`
	// Budget is the characters the section could use; 0 for the
	// instructions, which are outside the budget.
	Budget int `json:"budget_chars"`
}

// Context is a prime: the sections that have content, in order, and one
// line saying what the budget left out ("" when nothing).
type Context struct {
	Sections []Section `json:"sections"`
	Omitted  string    `json:"omitted,omitempty"`
}

// Markdown is the whole prime as the agent reads it.
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

// Prime assembles the context for the next iteration.
func Prime(in Input, opts Options) Context {
	b := opts.Budgets
	total := b.Total * CharsPerToken
	remaining, carry := total, 0
	var ctx Context
	var left []string
	add := func(name string, share int, render func(limit int) part) {
		limit := share + carry
		if total > 0 {
			limit = min(limit, remaining)
		}
		p := render(limit)
		used := runeLen(p.md)
		carry = max(0, limit-used)
		remaining -= used
		if p.omitted > 0 {
			left = append(left, plural(p.omitted, sectionNouns[name]))
		}
		if p.md != "" {
			ctx.Sections = append(ctx.Sections, Section{Name: name, Markdown: p.md, Shown: p.shown, Omitted: p.omitted, Entries: p.keys, Budget: limit})
		}
	}
	attempts := strategy.Attempts(in.Journal, in.Task.ID)
	kw := taskKeywords(in.Task, attempts, in.Journal)

	add(SectionAttempts, b.Attempts, func(limit int) part { return attemptsSection(attempts, limit) })
	add(SectionMemories, b.Memories*CharsPerToken, func(limit int) part {
		included, omitted := fitMemories(rankMemories(in.Memories, in.Task, in.Relevance), limit)
		keys := make([]string, len(included))
		for i, m := range included {
			keys[i] = Key(mdstore.KindMemory, m.ID)
		}
		return part{Render(included), len(included), omitted, keys}
	})
	add(SectionKnowledge, b.Knowledge*CharsPerToken, func(limit int) part {
		return knowledgeSection(rankKnowledge(in.Knowledge, in.Task, kw, in.Relevance), limit)
	})
	add(SectionLearnings, b.Learnings, func(limit int) part {
		return learningsSection(rankLearnings(in.Learnings, in.Task, kw.all, in.Relevance), limit)
	})
	add(SectionJournal, b.Journal*CharsPerToken, func(limit int) part {
		return journalSection(pickJournal(in.Journal, in.Task, kw.all, in.Relevance), limit)
	})
	add(SectionLoopStatus, b.LoopStatus, func(limit int) part { return loopStatusSection(in.Loop, in.Task.ID, limit) })
	add(SectionSkills, b.Skills, func(limit int) part { return skillsSection(in.Skills, limit) })

	if len(left) > 0 {
		ctx.Omitted = "_Left out to stay within the budget: " + strings.Join(left, ", ") + ". `lore search` finds them._"
	}
	if opts.Instructions {
		ctx.Sections = append(ctx.Sections, Section{Name: SectionInstructions, Markdown: Instructions(opts.Learn, !opts.MemoriesOff, opts.Models), Shown: 1})
	}
	return ctx
}

var sectionNouns = map[string][2]string{
	SectionAttempts:   {"earlier attempt", "earlier attempts"},
	SectionMemories:   {"memory", "memories"},
	SectionKnowledge:  {"knowledge entry", "knowledge entries"},
	SectionLearnings:  {"learning", "learnings"},
	SectionJournal:    {"journal entry", "journal entries"},
	SectionLoopStatus: {"loop status", "loop status"},
	SectionSkills:     {"skill", "skills"},
}

func plural(n int, nouns [2]string) string {
	if n == 1 {
		return "1 " + nouns[0]
	}
	return fmt.Sprintf("%d %s", n, nouns[1])
}

// fit keeps, in priority order, the blocks that fit in limit characters
// beside fixed (the section's heading and the other parts shown with it);
// a block that does not fit is skipped whole and a smaller one after it
// may still fit. It returns the indexes kept, in priority order, or none.
func fit(blocks []string, fixed, limit int) []int {
	var kept []int
	used := fixed
	for i, b := range blocks {
		if n := runeLen(b); used+n <= limit {
			kept = append(kept, i)
			used += n
		}
	}
	if used == fixed {
		return nil
	}
	return kept
}

// part is a section as rendered within its limit: its text, how many
// entries it shows and leaves out, and the keys (Key) of those shown.
type part struct {
	md             string
	shown, omitted int
	keys           []string
}

// fitSection renders head and the blocks that fit in limit, in priority
// order; key(i) names block i's entry. md is "" when no block fits.
func fitSection(head string, blocks []string, limit int, key func(i int) string) part {
	kept := fit(blocks, runeLen(head), limit)
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
	return part{b.String(), len(kept), len(blocks) - len(kept), keys}
}

// attemptsSection renders seed 002's Previous Attempts, oldest first; when
// the budget is short the most recent attempts are kept and older ones
// dropped.
func attemptsSection(attempts []mdstore.JournalEntry, limit int) part {
	if len(attempts) == 0 {
		return part{}
	}
	head := fmt.Sprintf("### Previous Attempts\n\nThis task has been attempted %d time(s) before. **Do not repeat these approaches.**\n\n", len(attempts))
	tail := ""
	if f := attempts[len(attempts)-1].Failure; f != nil && f.RetrySuggestion != "" {
		tail = "\n**Suggested approach for this retry:**\n" + strings.TrimSpace(f.RetrySuggestion) + "\n"
	}
	const truncated = "_(Earlier attempts truncated due to context budget)_\n\n"
	// Newest first: the most recent attempt is the one worth keeping.
	blocks := make([]string, len(attempts))
	for i := range attempts {
		j := len(attempts) - 1 - i
		blocks[i] = attemptBlock(j+1, attempts[j])
		if j > 0 {
			blocks[i] = "\n" + blocks[i]
		}
	}
	kept := fit(blocks, runeLen(head+tail), limit)
	if len(kept) < len(attempts) {
		kept = fit(blocks, runeLen(head+tail+truncated), limit)
	}
	if len(kept) == 0 || kept[0] != 0 {
		return part{omitted: len(attempts)}
	}
	// A kept block must not follow a dropped one (the list is a history):
	// keep the unbroken run of newest attempts.
	n := 0
	for n < len(kept) && kept[n] == n {
		n++
	}
	var b strings.Builder
	b.WriteString(head)
	if n < len(attempts) {
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
	keys := make([]string, n)
	for i := range n {
		keys[i] = Key(mdstore.KindJournal, attempts[len(attempts)-1-i].Key())
	}
	return part{b.String(), n, len(attempts) - n, keys}
}

// attemptBlock renders one attempt (seed 002's template).
func attemptBlock(n int, e mdstore.JournalEntry) string {
	var b strings.Builder
	if e.Model != "" {
		fmt.Fprintf(&b, "#### Attempt %d (%s, %s)\n\n", n, e.Model, e.Outcome)
	} else {
		fmt.Fprintf(&b, "#### Attempt %d (%s)\n\n", n, e.Outcome)
	}
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
		b.WriteString("- **Error output:**\n  ```\n")
		for _, l := range strings.Split(trace, "\n") {
			b.WriteString(strings.TrimRight("  "+l, " ") + "\n")
		}
		b.WriteString("  ```\n")
	}
	return b.String()
}

// keywords are what makes an entry relevant to a task, lowercased.
type keywords struct {
	text  map[string]bool // words of the title and description
	files map[string]bool // words of the task's files and of the files the latest iteration modified
	all   map[string]bool // those, the feature, the files themselves and the error categories of earlier attempts
}

func taskKeywords(t Task, attempts, journal []mdstore.JournalEntry) keywords {
	kw := keywords{text: map[string]bool{}, files: map[string]bool{}, all: map[string]bool{}}
	for _, w := range words.Keywords(t.Title + " " + t.Description) {
		kw.text[w], kw.all[w] = true, true
	}
	if t.Feature != "" {
		kw.all[strings.ToLower(t.Feature)] = true
	}
	for _, f := range append(append([]string(nil), t.Files...), recentFiles(journal)...) {
		kw.all[strings.ToLower(f)] = true
		for _, w := range pathWords(f) {
			kw.files[w], kw.all[w] = true, true
		}
	}
	for _, a := range attempts {
		if a.Failure != nil && a.Failure.ErrorCategory != "" {
			kw.all[strings.ToLower(a.Failure.ErrorCategory)] = true
		}
	}
	return kw
}

// recentFiles are the files the most recent iteration modified.
func recentFiles(journal []mdstore.JournalEntry) []string {
	var latest *mdstore.JournalEntry
	for i := range journal {
		if latest == nil || newer(journal[i].CreatedAt, latest.CreatedAt) {
			latest = &journal[i]
		}
	}
	if latest == nil {
		return nil
	}
	return latest.FilesModified
}

// newer says whether timestamp a is after b. Two UTC RFC 3339 times of the
// same form (what lore writes) compare as text, without parsing: ranking
// thousands of journal entries compares them often.
func newer(a, b string) bool {
	if len(a) == len(b) && utcSeconds(a) && utcSeconds(b) {
		return a > b
	}
	return mdstore.ParseTimestamp(a).After(mdstore.ParseTimestamp(b))
}

// utcSeconds says whether s is "YYYY-MM-DDTHH:MM:SSZ".
func utcSeconds(s string) bool {
	if len(s) != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18} {
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

// tagMatches counts the tags found among the keywords.
func tagMatches(tags []string, kw map[string]bool) int {
	n := 0
	for _, t := range tags {
		if kw[strings.ToLower(t)] {
			n++
		}
	}
	return n
}

// rankKnowledge orders knowledge entries for a task by seed 000's score (+2
// per tag found in the title or description, +2 per tag matching the
// feature, +1 per tag found in the words of recent files) plus full-text
// relevance; entries scoring nothing are left out. Without a task, the
// most recently written come first.
func rankKnowledge(ks []mdstore.Knowledge, t Task, kw keywords, rel map[string]float64) []mdstore.Knowledge {
	if !t.Given() {
		out := append([]mdstore.Knowledge(nil), ks...)
		sort.SliceStable(out, func(i, j int) bool { return newer(knowledgeTime(out[i]), knowledgeTime(out[j])) })
		return out
	}
	feature := strings.ToLower(t.Feature)
	type scored struct {
		k     mdstore.Knowledge
		score float64
	}
	var list []scored
	for _, k := range ks {
		s := 0.0
		for _, tag := range k.Tags {
			tag = strings.ToLower(tag)
			if kw.text[tag] {
				s += 2
			}
			if feature != "" && tag == feature {
				s += 2
			}
			if kw.files[tag] {
				s++
			}
		}
		s += 2 * rel[k.Path]
		if s > 0 {
			list = append(list, scored{k, s})
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return newer(knowledgeTime(list[i].k), knowledgeTime(list[j].k))
	})
	out := make([]mdstore.Knowledge, len(list))
	for i, s := range list {
		out[i] = s.k
	}
	return out
}

func knowledgeTime(k mdstore.Knowledge) string {
	if k.UpdatedAt != "" {
		return k.UpdatedAt
	}
	return k.CreatedAt
}

func knowledgeSection(ks []mdstore.Knowledge, limit int) part {
	return fitSection(knowledgeHead, knowledgeBlocks(ks), limit, func(i int) string { return Key(mdstore.KindKnowledge, ks[i].Slug) })
}

// rankLearnings picks the active learnings for a task: most tags matching
// the task's keywords first, then the most recent; near-duplicates (same
// category, more than 80% of their words shared) shown once, the most
// recent. Without a task, the most recent. At most MaxLearnings.
func rankLearnings(ls []mdstore.Learning, t Task, kw map[string]bool, rel map[string]float64) []mdstore.Learning {
	type scored struct {
		l     mdstore.Learning
		score float64
	}
	var list []scored
	for _, l := range ls {
		if l.Status != "" && l.Status != "active" {
			continue
		}
		s := 0.0
		if t.Given() {
			s = float64(tagMatches(l.Tags, kw)) + rel[l.Path]
			if s == 0 {
				continue
			}
		}
		list = append(list, scored{l, s})
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return newer(list[i].l.CreatedAt, list[j].l.CreatedAt)
	})
	// Near duplicates shown once, the newest.
	var out []mdstore.Learning
	bodies := make([]string, len(list))
	for i, s := range list {
		bodies[i] = s.l.Body
	}
	dups := mdstore.NewDuplicates(bodies...)
	for _, s := range list {
		switch dup := dups.Of(s.l.Category, s.l.Body); {
		case dup < 0:
			out = append(out, s.l)
			dups.Add(s.l.Category, s.l.Body)
		case newer(s.l.CreatedAt, out[dup].CreatedAt):
			out[dup] = s.l
			dups.Set(dup, s.l.Category, s.l.Body)
		}
	}
	return out
}

func learningsSection(ls []mdstore.Learning, limit int) part {
	omitted := max(0, len(ls)-MaxLearnings)
	ls = ls[:min(len(ls), MaxLearnings)]
	p := fitSection(learningsHead, learningLines(ls), limit, func(i int) string { return Key(mdstore.KindLearning, ls[i].ID) })
	p.omitted += omitted
	return p
}

// pickJournal chooses the Run Journal: the last RecentJournal entries of
// the task's run (or the latest run), and up to RelevantJournal entries of
// other runs about the same task or feature or sharing files or keywords,
// most relevant first. The result is in priority order; the section shows
// this run's entries oldest first.
func pickJournal(journal []mdstore.JournalEntry, t Task, kw map[string]bool, rel map[string]float64) []journalPick {
	run := t.Run
	if run == "" {
		var latest *mdstore.JournalEntry
		for i := range journal {
			if latest == nil || newer(journal[i].CreatedAt, latest.CreatedAt) {
				latest = &journal[i]
			}
		}
		if latest != nil {
			run = latest.RunID
		}
	}
	// Pointers into journal: a store's journal is thousands of entries,
	// and an entry is a few hundred bytes to copy.
	var this, others []*mdstore.JournalEntry
	for i := range journal {
		if journal[i].RunID == run {
			this = append(this, &journal[i])
		} else {
			others = append(others, &journal[i])
		}
	}
	sort.SliceStable(this, func(i, j int) bool { return mdstore.CompareIterations(*this[i], *this[j]) > 0 })
	var out []journalPick
	for i, e := range this[:min(len(this), RecentJournal)] {
		out = append(out, journalPick{*e, true, i})
	}
	if !t.Given() {
		return out
	}
	type scored struct {
		e     *mdstore.JournalEntry
		score float64
	}
	var list []scored
	for _, e := range others {
		s := 0.0
		if len(rel) > 0 {
			s = rel[e.Path]
		}
		if t.ID != "" && e.TaskID == t.ID {
			s += 3
		}
		if t.Feature != "" && e.FeatureID == t.Feature {
			s += 2
		}
		for _, f := range e.FilesModified {
			if kw[strings.ToLower(f)] {
				s++
			}
		}
		if s > 0 {
			list = append(list, scored{e, s})
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return newer(list[i].e.CreatedAt, list[j].e.CreatedAt)
	})
	for _, s := range list[:min(len(list), RelevantJournal)] {
		out = append(out, journalPick{*s.e, false, 0})
	}
	return out
}

type journalPick struct {
	e      mdstore.JournalEntry
	recent bool // of this run
	rank   int  // among this run's, 0 = newest
}

func journalSection(picks []journalPick, limit int) part {
	if len(picks) == 0 {
		return part{}
	}
	const others = "\n_From other runs:_\n"
	blocks := make([]string, len(picks))
	hasOthers := false
	for i, p := range picks {
		blocks[i] = "\n" + JournalBlock(p.e)
		if !p.recent {
			hasOthers = true
		}
	}
	fixed := runeLen(journalHead)
	if hasOthers {
		fixed += runeLen(others)
	}
	kept := fit(blocks, fixed, limit)
	if len(kept) == 0 {
		return part{omitted: len(picks)}
	}
	var recent, other []int
	for _, i := range kept {
		if picks[i].recent {
			recent = append(recent, i)
		} else {
			other = append(other, i)
		}
	}
	var b strings.Builder
	b.WriteString(journalHead)
	for k := len(recent) - 1; k >= 0; k-- { // oldest first
		b.WriteString(blocks[recent[k]])
	}
	if len(other) > 0 {
		b.WriteString(others)
		for _, i := range other {
			b.WriteString(blocks[i])
		}
	}
	keys := make([]string, len(kept))
	for k, i := range kept {
		keys[k] = Key(mdstore.KindJournal, picks[i].e.Key())
	}
	return part{b.String(), len(kept), len(picks) - len(kept), keys}
}

// loopStatusSection renders seed 002's Loop Status, whole or not at all,
// with the stuck-loop warning when the task failed strategy.StuckThreshold times in
// a row. It is shown when the run or the task has a history.
func loopStatusSection(st strategy.Status, taskID string, limit int) part {
	if st.Run.Total == 0 && st.Task.Attempts == 0 {
		return part{}
	}
	md := LoopStatus(st, taskID)
	if runeLen(md) > limit {
		return part{omitted: 1}
	}
	return part{md: md, shown: 1}
}

// LoopStatus renders the loop status block.
func LoopStatus(st strategy.Status, taskID string) string {
	var b strings.Builder
	b.WriteString("### Loop Status\n\n")
	limit := "unlimited"
	if st.Limit > 0 {
		limit = fmt.Sprint(st.Limit)
	}
	fmt.Fprintf(&b, "- **Iteration:** %d of %s\n", st.Iteration, limit)
	if taskID != "" {
		fmt.Fprintf(&b, "- **This task:** attempt #%d, %d consecutive failure(s)\n", st.Attempt, st.Task.ConsecutiveFailures)
	}
	if st.Run.Total > 0 {
		fmt.Fprintf(&b, "- **Run success rate:** %d/%d iterations succeeded (%d%%)\n", st.Run.Successes, st.Run.Total, st.Run.SuccessPercent())
	}
	if st.Model.Model != "" {
		fmt.Fprintf(&b, "- **Current model:** %s (%s)\n", st.Model.Model, st.Model.Reason)
	}
	if st.Stuck {
		b.WriteString("\n> ⚠️ **Stuck loop detected.** This task has failed 3+ times consecutively.\n" +
			"> Consider: decomposing the task, trying a fundamentally different approach,\n" +
			"> or signaling `<task-failed>` with a clear explanation.\n")
	}
	return b.String()
}

func skillsSection(skills []mdstore.Skill, limit int) part {
	return fitSection(skillsHead, skillLines(skills), limit, func(i int) string { return Key(mdstore.KindSkill, skills[i].Name) })
}
