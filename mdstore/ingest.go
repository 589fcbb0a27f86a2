package mdstore

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"lore/internal/neardup"
	"lore/internal/words"
	"lore/mdstore/cites"
	"lore/mdstore/entry"
	"lore/secrets"
	"lore/sigils"
)

// IngestInput is one iteration: the agent's output and what the
// orchestrator knows about it. Empty RunID means the current run; zero
// Iteration means the next one in the run.
type IngestInput struct {
	Output       string
	RunID        string
	Iteration    int
	TaskID       string
	FeatureID    string
	Model        string
	DurationSecs float64
	CostUSD      float64
	Files        []string
	// Key is the caller's idempotency key: an ingest that repeats the key
	// of an iteration of the run records that iteration again (a retry),
	// instead of a new one. "": every ingest is a new iteration unless
	// Iteration names one.
	Key string
	// OutcomeOnly records a journal iteration only when the output
	// reports how a task ended: without a task sigil, only its knowledge
	// and learnings are recorded, and with no sigil at all nothing (a
	// conversational turn of an interactive session is not an iteration).
	OutcomeOnly bool
	// ProcessEnd is how the agent's process ended, as the caller that ran
	// it saw it (lore run), when it did not end well: "exited with status
	// 7", "was stopped with SIGINT (Ctrl-C)". An output without a task
	// sigil is then a failed iteration rather than a blocked one, and its
	// minimal failure report says how the agent ended.
	ProcessEnd string
	// Interrupted records the iteration as interrupted (seed 000: the
	// person stopped it), whatever its task sigil says.
	Interrupted bool
	// Cites are the iteration's files, stamped (package provenance): what
	// its journal entry cites. CitesOf, when set, is what a knowledge
	// entry or learning it writes cites, given its text.
	Cites   []cites.Cite
	CitesOf func(text string) []cites.Cite
	// Sigils, when set, is what the output says, as the caller read it
	// (sigils.Parse of the redacted output, with what a progress log
	// adds); nil: ingest parses the output.
	Sigils *sigils.Result
	// Rewound is what the caller that ran the agent (lore run) saw the
	// agent's git commands take off the branch of lore's commits, and did
	// about it; the journal entry's notes begin with it.
	Rewound string
}

// IngestResult says what one ingest recorded.
type IngestResult struct {
	// Journal is the iteration recorded; nil when OutcomeOnly left it out.
	Journal         *entry.JournalEntry `json:"journal"`
	JournalReplaced bool                `json:"journal_replaced"` // this iteration was recorded already
	Knowledge       []IngestedEntry     `json:"knowledge"`
	Learnings       []IngestedEntry     `json:"learnings"`
	// Skipped are the sigils that made nothing, each with its line in the
	// output and why.
	Skipped  []sigils.Skip `json:"skipped"`
	Warnings []string      `json:"warnings,omitempty"`
	// Ignored are tags that looked like sigils and were not: in code, an
	// echo of lore's instructions, a task sigil holding a placeholder.
	// (A task sigil a later one overruled is a warning.)
	Ignored []sigils.Skip `json:"ignored,omitempty"`
	// NoOutcome says why the iteration has no outcome from the output
	// ("the output is empty", "no task sigil in the output"); "" when a
	// task sigil gave one.
	NoOutcome  string `json:"no_outcome,omitempty"`
	RunStarted bool   `json:"run_started"`
	// Redacted are the secrets ingest found, each replaced by
	// [REDACTED:<rule>] in what it recorded.
	Redacted []Redaction `json:"redacted,omitempty"`
	// ShownLearnings is how many learnings are shown once the iteration is
	// recorded (Learning.Shown), counted from the learnings ingest read for
	// its duplicate check; -1 when it had no learning to check (and read
	// none). SummarizeDue takes it.
	ShownLearnings int `json:"-"`
}

// Redaction is a secret ingest left out of what it recorded: where it was
// in the output ingested or, for one that came from elsewhere (an
// IngestInput field such as TaskID), the field it was found in. Never the
// value.
type Redaction struct {
	Rule  string `json:"rule"`
	Line  int    `json:"line,omitempty"`  // in the output ingested; 0 when it was not there
	Field string `json:"field,omitempty"` // the field it was found in, when Line is 0
}

// IngestedEntry is one knowledge entry or learning an ingest handled.
type IngestedEntry struct {
	ID     string `json:"id"`     // slug or learning id
	Title  string `json:"title"`  // the knowledge title or the learning's category
	Action string `json:"action"` // created, replaced, updated, unchanged; for learnings created or duplicate
}

// MinimalFailureReason is why_failed of the report made for a failed or
// blocked iteration that did not describe its failure (seed 002).
const MinimalFailureReason = "Task failed (no structured report)"

// Ingest records one iteration in one commit: the journal entry (outcome
// from the task sigil that counts, the <journal> notes, the failure report
// and retry suggestion, the difficulty), the knowledge entries (through
// seed 000's dedup, within the output as across outputs) and the
// learnings (skipping near-duplicates). One call is one new iteration,
// unless it names one the run has: by Iteration, or by Key. Recording the
// same iteration again that way, with the same content, changes nothing.
func (s *Store) Ingest(in IngestInput) (*IngestResult, *WriteResult, error) {
	// Secrets never reach git or the terminal through ingest. The output
	// is redacted before its sigils are read, for what is taken from it
	// whole (a minimal failure report's stack trace); then every field
	// of what they yield, and every field of in, is checked as a direct
	// command's input is, redacting what the first pass could not see
	// (a token right against a tag, a tag split from its sigil).
	output, found := secrets.Redact(in.Output)
	var sig sigils.Result
	if in.Sigils != nil {
		sig = *in.Sigils
	} else {
		sig = sigils.Parse(output)
	}
	out := &IngestResult{Skipped: append([]sigils.Skip{}, sig.Skipped...), Ignored: sig.Ignored}
	check := &entry.SecretCheck{Redact: true}
	for _, o := range sig.Overruled {
		out.Warnings = append(out.Warnings, fmt.Sprintf("<%s> at line %d ignored: %s", o.Sigil, o.Line, o.Reason))
	}
	var iteration *entry.JournalEntry
	if !in.OutcomeOnly || sig.Task.Outcome != "" {
		e, err := s.journalOf(in, sig, output, out, check)
		if err != nil {
			return nil, nil, err
		}
		iteration = &e
	} else {
		for name, line := range sig.Lines { // what only an iteration records
			out.skip(name, line, "no task sigil, so no iteration to record it in")
		}
		sort.SliceStable(out.Skipped, func(i, j int) bool { return out.Skipped[i].Line < out.Skipped[j].Line })
	}

	// Sigils that do not make a valid entry are reported, not fatal.
	task, run, feature := in.TaskID, in.RunID, in.FeatureID
	if iteration != nil {
		task, run, feature = iteration.TaskID, iteration.RunID, iteration.FeatureID
	}
	var within outputKnowledge
	for _, k := range sig.Knowledge {
		nk, err := entry.NewKnowledge{Title: k.Title, Tags: k.Tags, Feature: feature, Body: k.Body}.Normalize(check)
		if err != nil {
			out.skip("knowledge", k.Line, inputMessage(err))
			continue
		}
		within.add(nk, k.Line, out)
	}
	knowledge := within.entries
	var learnings []entry.NewLearning
	expected := make([]string, len(sig.Learnings))
	for i, l := range sig.Learnings {
		expected[i] = l.Body
	}
	dups := neardup.New(expected...)
	for _, l := range sig.Learnings {
		nl, err := entry.NewLearning{Category: l.Category, Tags: l.Tags, Task: task, Body: l.Body, Runs: nonEmpty(run)}.Normalize(check)
		if err != nil {
			out.skip("learning", l.Line, inputMessage(err))
			continue
		}
		if dups.Of(nl.Category, nl.Body) >= 0 {
			out.skip("learning", l.Line, "says what a learning before it in this output says")
			continue
		}
		learnings = append(learnings, nl)
		dups.Add(nl.Category, nl.Body)
	}
	for i := range out.Skipped { // a reason quotes what the agent wrote
		out.Skipped[i].Reason, _ = secrets.Redact(out.Skipped[i].Reason)
	}
	for i := range out.Warnings {
		out.Warnings[i], _ = secrets.Redact(out.Warnings[i])
	}
	out.Redacted = redactions(in.Output, found, check.Found)
	if iteration == nil && len(knowledge) == 0 && len(learnings) == 0 {
		return out, &WriteResult{}, nil
	}
	if iteration != nil && iteration.RunID == "" {
		run, started, err := s.currentOrNewRun()
		if err != nil {
			return nil, nil, err
		}
		iteration.RunID, out.RunStarted = run, started
	}

	now := s.now()
	var jplan journalPlan
	kplans := make([]knowledgePlan, len(knowledge))
	lplans := make([]learningPlan, len(learnings))
	bodies := make([]string, len(learnings))
	for i, l := range learnings {
		bodies[i] = l.Body
	}
	var ahead []string
	if len(knowledge) > 0 {
		ahead = append(ahead, entry.KnowledgeDir)
	}
	if len(learnings) > 0 {
		ahead = append(ahead, entry.LearningsDir)
	}
	defer s.readAhead(ahead...)()
	res, err := s.Write(func(tx *Tx) error {
		subject := "lore: ingest knowledge and learnings"
		if task != "" {
			subject += " (" + task + ")"
		}
		var e *entry.JournalEntry
		if iteration != nil {
			if err := planJournal(tx, s, *iteration, now, &jplan); err != nil {
				return err
			}
			e = &jplan.entry
			subject = "lore: ingest " + e.Key() + " (" + e.Outcome
			if e.TaskID != "" {
				subject += " " + e.TaskID
			}
			subject += ")"
		}
		storedK, storedL := &storedKnowledge{}, &StoredLearnings{expect: bodies}
		for i := range knowledge {
			if err := planKnowledge(tx, knowledge[i], now, &kplans[i], storedK); err != nil {
				return err
			}
		}
		for i := range learnings {
			if err := planLearning(tx, s, learnings[i], now, &lplans[i], storedL); err != nil {
				return err
			}
		}
		if e != nil {
			tx.cite(e.Path, in.Cites)
		}
		for _, p := range kplans { // an entry unchanged is no new word on the code: its citations stand
			if in.CitesOf != nil && p.action != entry.KnowledgeUnchanged {
				tx.cite(p.entry.Path, in.CitesOf(p.entry.Title+"\n"+p.entry.Body))
			}
		}
		for _, p := range lplans {
			if !p.duplicate && in.CitesOf != nil {
				tx.cite(p.entry.Path, in.CitesOf(p.entry.Body))
			}
		}
		out.ShownLearnings = -1
		if storedL.loaded {
			out.ShownLearnings = 0
			for i := range storedL.stored {
				if storedL.stored[i].V.Shown() {
					out.ShownLearnings++
				}
			}
			for _, p := range lplans {
				if !p.duplicate && p.entry.Shown() {
					out.ShownLearnings++
				}
			}
		}
		var trailers []string
		if e != nil {
			trailers = journalTrailers(*e, "ingest")
		} else {
			trailers = []string{"Lore-Kind", "ingest"}
			if task != "" {
				trailers = append(trailers, "Task-Id", task)
			}
		}
		tx.SetMessage(CommitMessage(subject, ingestSummary(e, kplans, lplans), trailers...))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if iteration != nil {
		out.Journal, out.JournalReplaced = &jplan.entry, jplan.replaced
	}
	for _, p := range kplans {
		out.Knowledge = append(out.Knowledge, IngestedEntry{ID: p.entry.Slug, Title: p.entry.Title, Action: string(p.action)})
	}
	for _, p := range lplans {
		action := "created"
		if p.duplicate {
			action = "duplicate"
		}
		out.Learnings = append(out.Learnings, IngestedEntry{ID: p.entry.ID, Title: p.entry.Category, Action: action})
	}
	return out, res, nil
}

// journalOf makes the journal entry of an iteration from its sigils: the
// outcome of the task sigil that counts (blocked without one, saying why
// in out.NoOutcome), recorded under in.TaskID when it is given (with a
// warning when the sigil names another task); for an iteration that did
// not succeed, its failure report — what it says even if incomplete — or
// the minimal one made from the output.
func (s *Store) journalOf(in IngestInput, sig sigils.Result, output string, out *IngestResult, check *entry.SecretCheck) (entry.JournalEntry, error) {
	e := entry.JournalEntry{
		RunID: in.RunID, Iteration: in.Iteration, TaskID: strings.TrimSpace(in.TaskID), FeatureID: in.FeatureID,
		Model: in.Model, NextModel: sig.NextModel, DurationSecs: in.DurationSecs, CostUSD: in.CostUSD,
		FilesModified: in.Files, Difficulty: sig.Difficulty, Notes: sig.Journal, IngestKey: in.Key,
	}
	if in.Rewound != "" { // first, where the notes' limit cannot cut it
		e.Notes = strings.TrimSpace(in.Rewound + "\n\n" + e.Notes)
	}
	otherTask := false
	if sig.Task.Outcome != "" {
		e.Outcome = sig.Task.Outcome
		if e.TaskID == "" {
			e.TaskID = sig.Task.ID
		} else {
			otherTask = e.TaskID != sig.Task.ID
		}
	}
	switch {
	case in.Interrupted:
		if sig.Task.Outcome != "" {
			out.Warnings = append(out.Warnings, fmt.Sprintf("<%s> at line %d ignored: the iteration was interrupted", sig.Task.Sigil(), sig.Task.Line))
		}
		e.Outcome = "interrupted"
	case sig.Task.Outcome != "":
	case strings.TrimSpace(in.Output) == "":
		e.Outcome, out.NoOutcome = "blocked", "the output is empty"
	case sig.Empty() && in.ProcessEnd == "": // an agent that speaks no sigil: what it said is the notes
		e.Outcome, e.Notes = "unreported", strings.TrimSpace(output)
	default:
		e.Outcome, out.NoOutcome = "blocked", "no task sigil in the output"
	}
	if in.ProcessEnd != "" && (e.Outcome == "blocked" || e.Outcome == "unreported") {
		e.Outcome = "failed"
	}
	if e.Outcome == "unreported" {
		out.NoOutcome = "no sigil in the output: its text is the iteration's notes"
	}
	if why := sig.AgentError(output, in.ProcessEnd); why != "" && !in.Interrupted {
		// The agent did not run to the end: no attempt at the task.
		e.Outcome = "failed"
		e.Failure = &entry.Failure{WhyFailed: why, ErrorCategory: entry.AgentErrorCategory, RelevantFiles: []string{},
			StackTrace: sigils.TruncateTrace(strings.TrimSpace(output))}
	} else if e.Outcome == "done" || e.Outcome == "unreported" {
		if fr := sig.FailureReport; fr != nil {
			out.skip("failure-report", fr.Line, "the task is done: a failure report is kept only for an iteration that did not succeed")
		}
		if sig.RetrySuggestion != "" {
			out.skip("retry-suggestion", sig.Lines["retry-suggestion"], "the task is done: a retry suggestion is kept only for an iteration that did not succeed")
		}
	} else {
		if fr := sig.FailureReport; fr != nil {
			e.Failure = &entry.Failure{WhatTried: fr.WhatTried, WhyFailed: fr.WhyFailed, ErrorCategory: fr.ErrorCategory, RelevantFiles: fr.RelevantFiles, StackTrace: fr.StackTrace}
			if e.Failure.WhyFailed == "" {
				e.Failure.WhyFailed = MinimalFailureReason
			}
		} else {
			why := MinimalFailureReason
			switch {
			case in.Interrupted && in.ProcessEnd != "":
				why = "Interrupted: the agent " + in.ProcessEnd
			case in.Interrupted:
				why = "Interrupted"
			case in.ProcessEnd != "":
				why += ": the agent " + in.ProcessEnd
			}
			e.Failure = &entry.Failure{WhyFailed: why, ErrorCategory: "unknown", StackTrace: sigils.TruncateTrace(strings.TrimSpace(output))}
		}
		if e.Failure.RelevantFiles == nil {
			e.Failure.RelevantFiles = []string{}
		}
		e.Failure.RetrySuggestion = sig.RetrySuggestion
	}
	if n := len([]rune(e.Notes)); n > entry.MaxJournalNotes {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the <journal> note is %d characters: kept the first %d", n, entry.MaxJournalNotes))
	}
	e, err := e.Normalize(check)
	if err == nil {
		e.FilesModified, err = s.repoFiles(e.FilesModified)
	}
	if err != nil {
		return e, err
	}
	if kept := len(e.FilesModified) - 1; kept >= 0 && kept < len(in.Files) && strings.HasPrefix(e.FilesModified[kept], "… and ") {
		out.Warnings = append(out.Warnings, fmt.Sprintf("the iteration changed %d files: the journal keeps the first %d and how many more (a list of files is kept to %d KiB)",
			len(in.Files), kept, entry.MaxJournalFilesBytes>>10))
	}
	// After the secret check, so that a warning cannot show a secret.
	var warning string
	if e.NextModel, warning = s.config.CheckNextModel(e.NextModel); warning != "" {
		out.Warnings = append(out.Warnings, warning)
	}
	if otherTask { // quoting the task as recorded: a secret in it is redacted
		out.Warnings = append(out.Warnings, fmt.Sprintf("<%s> at line %d names task %s; recorded under --task %s",
			sig.Task.Sigil(), sig.Task.Line, quote(sig.Task.ID), quote(e.TaskID)))
	}
	return e, nil
}

// quote shows a value from the agent or the orchestrator in a warning:
// quoted, cut to 40 characters, with any secret in it redacted.
func quote(s string) string {
	s, _ = secrets.Redact(s)
	return strconv.Quote(words.Shorten(s, 40))
}

// outputKnowledge are the knowledge entries of one output, merged by
// seed 000's rules as they come (findKnowledgeDuplicate, as against the
// store).
type outputKnowledge struct {
	entries []entry.NewKnowledge
	lines   []int             // the output line of each entry
	seen    []entry.Knowledge // title and tags of each entry, as the rules read them
	byTitle map[string]int
}

// add keeps k — or, when it duplicates an entry earlier in the output,
// merges it into that one (tags joined, the later body) and says so in
// out.Skipped.
func (o *outputKnowledge) add(k entry.NewKnowledge, line int, out *IngestResult) {
	if o.byTitle == nil {
		o.byTitle = map[string]int{}
	}
	i, _ := entry.FindKnowledgeDuplicate(o.seen, o.byTitle, k.Title, k.Tags)
	if i < 0 {
		o.byTitle[strings.ToLower(k.Title)] = len(o.entries)
		o.entries, o.lines = append(o.entries, k), append(o.lines, line)
		o.seen = append(o.seen, entry.Knowledge{Title: k.Title, Tags: k.Tags})
		return
	}
	o.entries[i].Tags = entry.MergeTags(o.entries[i].Tags, k.Tags)
	o.entries[i].Body = k.Body
	o.seen[i].Tags = o.entries[i].Tags
	out.skip("knowledge", line, fmt.Sprintf("merged into %q at line %d, as seed 000's dedup would", o.entries[i].Title, o.lines[i]))
}

func (r *IngestResult) skip(sigil string, line int, reason string) {
	r.Skipped = append(r.Skipped, sigils.Skip{Sigil: sigil, Line: line, Reason: reason})
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// ingestSummary is the commit body: the notes' first line, how a failed
// iteration failed and what to try next, and what was recorded besides
// the journal entry (e is nil when there is none).
func ingestSummary(e *entry.JournalEntry, kplans []knowledgePlan, lplans []learningPlan) string {
	var lines []string
	if e != nil {
		if first, _, _ := strings.Cut(e.Notes, "\n"); first != "" {
			lines = append(lines, first, "")
		}
		if f := e.Failure; f != nil {
			lines = append(lines, f.ErrorCategory+": "+oneLine(f.WhyFailed))
			if f.RetrySuggestion != "" {
				lines = append(lines, "retry suggestion: "+oneLine(f.RetrySuggestion))
			}
			lines = append(lines, "")
		}
	}
	for _, p := range kplans {
		if p.action != entry.KnowledgeUnchanged {
			lines = append(lines, fmt.Sprintf("knowledge %s: %s", p.action, p.entry.Slug))
		}
	}
	for _, p := range lplans {
		if !p.duplicate {
			lines = append(lines, fmt.Sprintf("learning added: %s (%s)", p.entry.ID, p.entry.Category))
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// oneLine joins a text's lines for a commit message.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// redactions says where the secrets ingest redacted were: those of the
// first pass over the output at their line, then those found in a field,
// at the line of the output that holds the secret, or by their field when
// none does (a flag's value, a tag lower-cased). Each is said once.
func redactions(output string, inOutput []secrets.Finding, inFields []entry.FieldSecret) []Redaction {
	var out []Redaction
	seen := map[Redaction]bool{}
	add := func(r Redaction) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for _, f := range inOutput {
		add(Redaction{Rule: f.Rule, Line: f.Line})
	}
	for _, f := range inFields {
		if i := strings.Index(output, f.Secret); i >= 0 {
			add(Redaction{Rule: f.Rule, Line: 1 + strings.Count(output[:i], "\n")})
		} else {
			add(Redaction{Rule: f.Rule, Field: f.Field})
		}
	}
	return out
}

func inputMessage(err error) string {
	var ie *entry.InputError
	if errors.As(err, &ie) {
		return ie.Msg
	}
	return err.Error()
}
