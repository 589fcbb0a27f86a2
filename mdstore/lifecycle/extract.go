package lifecycle

import (
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/strategy"
)

// Extraction (seed 004's LearningExtractor): a run's journal is read for
// what it teaches — strategies, anti-patterns, an estimate, conventions —
// and each becomes a staged learning (kind, task_type, confidence,
// success_rate, source_runs) for lore learning promote to validate.

// namedPattern is an expression and what a match means.
type namedPattern struct {
	name string
	re   *regexp.Regexp
}

// strategyCategories normalize what a successful iteration learned into
// seed 004's strategy categories.
var strategyCategories = sync.OnceValue(func() []namedPattern {
	return []namedPattern{
		{"Test-driven development approach", regexp.MustCompile(`(?i)tests? (first|before)|test-driven|\btdd\b`)},
		{"Incremental implementation", regexp.MustCompile(`(?i)incremental|one (function|step|piece) at a time|small steps`)},
		{"Minimal changes approach", regexp.MustCompile(`(?i)minimal change|smallest (possible )?change`)},
		{"Implement first, refactor after", regexp.MustCompile(`(?i)refactor(ed)? after`)},
	}
})

// antiPatterns are seed 004's error patterns and what to avoid.
var antiPatterns = sync.OnceValue(func() []namedPattern {
	return []namedPattern{
		{"Syntax errors - check code carefully before execution", regexp.MustCompile(`(?i)syntax|parse`)},
		{"Null/undefined errors - add validation checks", regexp.MustCompile(`(?i)undefined|null`)},
		{"Timeout errors - break into smaller steps", regexp.MustCompile(`(?i)timeout|timed out`)},
		{"Permission errors - check file/directory permissions", regexp.MustCompile(`(?i)permission|access denied`)},
		{"Module not found - verify dependencies installed", regexp.MustCompile(`(?i)cannot find module|module not found`)},
	}
})

// Extracted is a learning extraction would stage, and whether the store
// has it already (a near-duplicate).
type Extracted struct {
	Learning entry.Learning `json:"learning"`
	Kept     bool           `json:"already_there,omitempty"`
}

// ExtractionPlan is the learnings a run's journal gives (seed 004),
// each marked Kept when the store has it already.
type ExtractionPlan struct {
	Run       string
	Learnings []Extracted
}

// PlanExtraction derives seed 004's learnings from run's journal
// (objective classifies the task; "" takes the run's task ids and what
// its first iteration that says anything says: its notes, or what it
// tried), and marks those the store has already (a near-duplicate of an
// active or staged learning). It changes nothing.
func PlanExtraction(s *mdstore.Store, run, objective string) (*ExtractionPlan, error) {
	entries, _, err := s.Entries()
	if err != nil {
		return nil, err
	}
	var its []entry.JournalEntry
	for _, j := range entries.Journal {
		if j.RunID == run {
			its = append(its, j)
		}
	}
	if len(its) == 0 {
		return nil, &entry.InputError{Field: "run", Msg: fmt.Sprintf("run %s has no iterations in the journal", run)}
	}
	if objective == "" {
		var parts []string
		for _, j := range its {
			if j.TaskID != "" && !strings.Contains(strings.Join(parts, " "), j.TaskID) {
				parts = append(parts, j.TaskID)
			}
		}
		// The first iteration that says what it did: its notes, or
		// what its failure report says it tried.
		for _, j := range its {
			if j.Notes != "" {
				parts = append(parts, j.Notes)
				break
			}
			if f := j.Failure; f != nil && f.WhatTried+f.WhyFailed != "" {
				parts = append(parts, f.WhatTried, f.WhyFailed)
				break
			}
		}
		objective = strings.Join(parts, " ")
	}
	tt := strategy.TaskType(objective)
	var out []Extracted
	stage := func(kind, body string, confidence, successRate float64) {
		c, sr := math.Round(confidence*100)/100, math.Round(successRate*100)/100
		out = append(out, Extracted{Learning: entry.Learning{Category: kind, Kind: kind, TaskType: tt, Tags: []string{tt, kind},
			Status: "staged", Confidence: &c, SuccessRate: &sr, SourceRuns: []string{run}, Body: body}})
	}

	// Strategies: what the successful iterations learned, in more than
	// half of them.
	var done []entry.JournalEntry
	for _, j := range its {
		if j.Outcome == "done" {
			done = append(done, j)
		}
	}
	if len(done) > 0 {
		count := map[string]int{}
		for _, j := range done {
			text := j.Notes
			// The learnings recorded with the iteration: ingest gives them
			// its time and task.
			for _, l := range entries.Learnings {
				if l.CreatedAt == j.CreatedAt && l.CreatedAt != "" && l.Task == j.TaskID {
					text += "\n" + l.Body
				}
			}
			seen := map[string]bool{}
			for _, c := range strategyCategories() {
				if c.re.MatchString(text) && !seen[c.name] {
					seen[c.name] = true
					count[c.name]++
				}
			}
		}
		for _, c := range strategyCategories() {
			n := count[c.name]
			if eff := float64(n) / float64(len(done)); n > 0 && eff > 0.5 {
				stage("strategy", fmt.Sprintf("%s (used in %d of %d successful iterations)", c.name, n, len(done)), min(eff, 0.9), eff)
			}
		}
	}

	// Anti-patterns: error categories of the failure reports seen twice
	// or more.
	type seen struct {
		n    int
		text string
	}
	failures := map[string]*seen{}
	var categories []string
	for _, j := range its {
		f := j.Failure
		if j.Outcome == "done" || j.AgentError() || f == nil || f.ErrorCategory == "" { // an agent error is no approach
			continue
		}
		if failures[f.ErrorCategory] == nil {
			failures[f.ErrorCategory] = &seen{}
			categories = append(categories, f.ErrorCategory)
		}
		failures[f.ErrorCategory].n++
		failures[f.ErrorCategory].text += " " + f.WhyFailed + " " + f.StackTrace
	}
	for _, cat := range categories {
		f := failures[cat]
		if f.n < 2 {
			continue
		}
		what := strings.ReplaceAll(cat, "_", " ") + " errors"
		for _, p := range antiPatterns() {
			if p.re.MatchString(f.text) {
				what = p.name
				break
			}
		}
		stage("antipattern", fmt.Sprintf("Avoid: %s (%d occurrences, category %s)", what, f.n, cat), min(0.25*float64(f.n), 0.8), 0)
	}

	// The estimate: from the completed iterations.
	if len(done) > 0 {
		var secs float64
		files := map[string]bool{}
		for _, j := range its {
			for _, f := range j.FilesModified {
				files[f] = true
			}
		}
		for _, j := range done {
			secs += j.DurationSecs
		}
		complexity := "high"
		switch {
		case len(its) <= 2 && len(files) <= 2:
			complexity = "low"
		case len(its) <= 5 && len(files) <= 5:
			complexity = "medium"
		}
		rate := float64(len(done)) / float64(len(its))
		stage("estimate", fmt.Sprintf("%s tasks: %d iterations, %s each on average, %s complexity, %d%% done",
			tt, len(its), (time.Duration(secs/float64(len(done)))*time.Second).String(), complexity, int(math.Round(rate*100))),
			min(float64(len(done))/5, 0.9), rate)
	}

	// Conventions: patterns in the files the run changed.
	var all []string
	for _, j := range its {
		all = append(all, j.FilesModified...)
	}
	sort.Strings(all)
	all = compactStrings(all)
	var tests, modules []string
	dirs := map[string]int{}
	for _, f := range all {
		base := path.Base(f)
		if strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.HasSuffix(base, "_test.go") {
			tests = append(tests, f)
		}
		if strings.HasSuffix(f, ".mjs") || strings.HasSuffix(f, ".ts") {
			modules = append(modules, f)
		}
		if d, _, ok := strings.Cut(f, "/"); ok {
			dirs[d]++
		}
	}
	examples := func(fs []string) string { return strings.Join(fs[:min(len(fs), 3)], ", ") }
	if len(tests) > 0 {
		stage("convention", "Tests co-located with source or in a test directory: "+examples(tests), 0.7, 1)
	}
	if len(modules) > 0 {
		stage("convention", "ES modules (.mjs, .ts): "+examples(modules), 0.8, 1)
	}
	if top, n := topDir(dirs); n >= 2 && n*2 > len(all) {
		var under []string
		for _, f := range all {
			if strings.HasPrefix(f, top+"/") {
				under = append(under, f)
			}
		}
		stage("convention", fmt.Sprintf("Source lives under %s/: %s", top, examples(under)), 0.6, 1)
	}

	// What the store has already (a near-duplicate) is not staged again.
	bodies := make([]string, len(out))
	for i := range out {
		bodies[i] = out[i].Learning.Body
	}
	live := entry.NewLiveLearnings(entries.Learnings, bodies)
	for i := range out {
		_, out[i].Kept = live.DuplicateOf(out[i].Learning.Category, out[i].Learning.Body)
	}
	return &ExtractionPlan{Run: run, Learnings: out}, nil
}

// Apply stages the plan's learnings that the store does not have, decided
// again as the commit builds on it, as one commit; each gets its id, and
// one found there now is marked Kept. The result is nil when nothing is
// staged.
func (plan *ExtractionPlan) Apply(s *mdstore.Store) (*mdstore.WriteResult, error) {
	out := plan.Learnings
	if len(out) == 0 {
		return nil, nil
	}
	res, err := s.Write(func(tx *mdstore.Tx) error {
		var bodies []string
		for _, e := range out {
			bodies = append(bodies, e.Learning.Body)
		}
		stored, err := tx.Learnings(bodies...)
		if err != nil {
			return err
		}
		now := s.Now().UTC().Format(time.RFC3339)
		var body []string
		for i := range out {
			l := &out[i].Learning
			if _, dup := stored.DuplicateOf(l.Category, l.Body); dup {
				out[i].Kept = true
				continue
			}
			out[i].Kept = false
			id, err := stored.NewID()
			if err != nil {
				return err
			}
			l.ID, l.Path, l.CreatedAt = id, entry.LearningPath(id), now
			tx.Apply(mdstore.Edit{Path: l.Path, Op: mdstore.OpPut, Content: string(entry.RenderLearning(*l))})
			body = append(body, fmt.Sprintf("- %s %s: %s", id, l.Kind, l.Body))
		}
		if len(body) == 0 {
			return mdstore.ErrUnchanged
		}
		tx.SetMessage(mdstore.CommitMessage(fmt.Sprintf("lore: extract %d %s from %s", len(body), words.Plural(len(body), "learning", "learnings"), plan.Run),
			strings.Join(body, "\n"), "Lore-Kind", "extract", "Lore-Run", plan.Run))
		return nil
	})
	if errors.Is(err, mdstore.ErrUnchanged) {
		return nil, nil
	}
	return res, err
}

func compactStrings(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// topDir is the directory most files are under, and how many.
func topDir(dirs map[string]int) (string, int) {
	best, n := "", 0
	for d, c := range dirs {
		if c > n || c == n && d < best {
			best, n = d, c
		}
	}
	return best, n
}
