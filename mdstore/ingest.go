package mdstore

import (
	"errors"
	"fmt"
	"strings"

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
}

// IngestResult says what one ingest recorded.
type IngestResult struct {
	Journal         JournalEntry    `json:"journal"`
	JournalReplaced bool            `json:"journal_replaced"` // this run and iteration had an entry already
	Knowledge       []IngestedEntry `json:"knowledge"`
	Learnings       []IngestedEntry `json:"learnings"`
	Skipped         []string        `json:"skipped"` // sigils refused, with the reason
	RunStarted      bool            `json:"run_started"`
	// Redacted are the secrets ingest found, each replaced by
	// [REDACTED:<rule>] in what it recorded.
	Redacted []Redaction `json:"redacted,omitempty"`
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
// from the task sigils, the <journal> notes, the failure report and retry
// suggestion, the difficulty), the knowledge entries (through seed 000's
// dedup) and the learnings (skipping near-duplicates). Recording the same
// run and iteration again changes nothing.
func (s *Store) Ingest(in IngestInput) (*IngestResult, *WriteResult, error) {
	// Secrets never reach git or the terminal through ingest. The output
	// is redacted before its sigils are read, for what is taken from it
	// whole (a minimal failure report's stack trace); then every field
	// of what they yield, and every field of in, is checked as a direct
	// command's input is, redacting what the first pass could not see
	// (a token right against a tag, a tag split from its sigil).
	output, found := secrets.Redact(in.Output)
	sig := sigils.Parse(output)
	out := &IngestResult{}
	check := &secretCheck{redact: true}
	entry := JournalEntry{
		RunID: in.RunID, Iteration: in.Iteration, TaskID: strings.TrimSpace(in.TaskID), FeatureID: in.FeatureID,
		Model: in.Model, NextModel: sig.NextModel, DurationSecs: in.DurationSecs, CostUSD: in.CostUSD,
		FilesModified: in.Files, Difficulty: sig.Difficulty, Notes: sig.Journal,
	}
	switch {
	case sig.TaskFailed != "":
		entry.Outcome = "failed"
	case sig.TaskDone != "":
		entry.Outcome = "done"
	default:
		entry.Outcome = "blocked" // no task sigil
	}
	if entry.TaskID == "" {
		entry.TaskID = firstNonEmpty(sig.TaskFailed, sig.TaskDone)
	}
	if entry.Outcome != "done" {
		if fr := sig.FailureReport; fr != nil {
			entry.Failure = &Failure{WhatTried: fr.WhatTried, WhyFailed: fr.WhyFailed, ErrorCategory: fr.ErrorCategory, RelevantFiles: fr.RelevantFiles, StackTrace: fr.StackTrace}
		} else {
			entry.Failure = &Failure{WhyFailed: MinimalFailureReason, ErrorCategory: "unknown", StackTrace: sigils.TruncateTrace(strings.TrimSpace(output))}
		}
		if entry.Failure.RelevantFiles == nil {
			entry.Failure.RelevantFiles = []string{}
		}
		entry.Failure.RetrySuggestion = sig.RetrySuggestion
	}
	entry, err := entry.normalize(check)
	if err != nil {
		return nil, nil, err
	}
	if entry.RunID == "" {
		run, started, err := s.currentOrNewRun()
		if err != nil {
			return nil, nil, err
		}
		entry.RunID, out.RunStarted = run, started
	}

	// Sigils that do not make a valid entry are reported, not fatal.
	var knowledge []NewKnowledge
	titles := map[string]int{} // lower-case title → position in knowledge
	for _, k := range sig.Knowledge {
		nk, err := NewKnowledge{Title: k.Title, Tags: k.Tags, Feature: entry.FeatureID, Body: k.Body}.normalize(check)
		if err != nil {
			out.Skipped = append(out.Skipped, fmt.Sprintf("knowledge %q: %s", nk.Title, inputMessage(err)))
			continue
		}
		knowledge = mergeSameTitle(knowledge, titles, nk)
	}
	var learnings []NewLearning
	expected := make([]string, len(sig.Learnings))
	for i, l := range sig.Learnings {
		expected[i] = l.Body
	}
	dups := NewDuplicates(expected...)
	for _, l := range sig.Learnings {
		nl, err := NewLearning{Category: l.Category, Tags: l.Tags, Task: entry.TaskID, Body: l.Body, Runs: []string{entry.RunID}}.normalize(check)
		if err != nil {
			out.Skipped = append(out.Skipped, fmt.Sprintf("learning (%s): %s", nl.Category, inputMessage(err)))
			continue
		}
		if dups.Of(nl.Category, nl.Body) < 0 {
			learnings = append(learnings, nl)
			dups.Add(nl.Category, nl.Body)
		}
	}

	out.Redacted = redactions(in.Output, found, check.found)

	now := s.now()
	var jplan journalPlan
	kplans := make([]knowledgePlan, len(knowledge))
	lplans := make([]learningPlan, len(learnings))
	bodies := make([]string, len(learnings))
	for i, l := range learnings {
		bodies[i] = l.Body
	}
	res, err := s.write(func(tx *storeTx) error {
		if err := planJournal(tx, s, entry, now, &jplan); err != nil {
			return err
		}
		storedK, storedL := &storedKnowledge{}, &storedLearnings{expect: bodies}
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
		e := jplan.entry
		subject := "lore: ingest " + e.Key() + " (" + e.Outcome
		if e.TaskID != "" {
			subject += " " + e.TaskID
		}
		tx.message(commitMessage(subject+")", ingestSummary(e, kplans, lplans), journalTrailers(e, "ingest")...))
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	out.Journal, out.JournalReplaced = jplan.entry, jplan.replaced
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

// ingestSummary is the commit body: the notes' first line and what was
// recorded besides the journal entry.
func ingestSummary(e JournalEntry, kplans []knowledgePlan, lplans []learningPlan) string {
	var lines []string
	if first, _, _ := strings.Cut(e.Notes, "\n"); first != "" {
		lines = append(lines, first, "")
	}
	for _, p := range kplans {
		if p.action != KnowledgeUnchanged {
			lines = append(lines, fmt.Sprintf("knowledge %s: %s", p.action, p.entry.Slug))
		}
	}
	for _, p := range lplans {
		if !p.duplicate {
			lines = append(lines, fmt.Sprintf("learning added: %s (%s)", p.entry.ID, p.entry.Category))
		}
	}
	if e.Failure != nil && e.Failure.RetrySuggestion != "" {
		lines = append(lines, "retry suggestion recorded")
	}
	return strings.Join(lines, "\n")
}

// redactions says where the secrets ingest redacted were: those of the
// first pass over the output at their line, then those found in a field,
// at the line of the output that holds the secret, or by their field when
// none does (a flag's value, a tag lower-cased). Each is said once.
func redactions(output string, inOutput []secrets.Finding, inFields []fieldSecret) []Redaction {
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
		if i := strings.Index(output, f.secret); i >= 0 {
			add(Redaction{Rule: f.rule, Line: 1 + strings.Count(output[:i], "\n")})
		} else {
			add(Redaction{Rule: f.rule, Field: f.field})
		}
	}
	return out
}

// mergeSameTitle adds k to ks, folding it into an earlier entry of the
// same output with the same title (its body wins, tags are merged);
// byTitle says where each title is.
func mergeSameTitle(ks []NewKnowledge, byTitle map[string]int, k NewKnowledge) []NewKnowledge {
	if i, ok := byTitle[strings.ToLower(k.Title)]; ok {
		ks[i].Tags = mergeTags(ks[i].Tags, k.Tags)
		ks[i].Body = k.Body
		return ks
	}
	byTitle[strings.ToLower(k.Title)] = len(ks)
	return append(ks, k)
}

func inputMessage(err error) string {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie.Msg
	}
	return err.Error()
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
