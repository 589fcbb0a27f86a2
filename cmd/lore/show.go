package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"lore/loop"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
)

// lore show, lore knowledge show, lore learning show and lore journal
// show: one entry, read and counted in the usage log by loop.Show, then
// printed as a table of fields, as JSON, or as prime shows it.

func runShow(e *env, g globals, opts showOptions) error {
	return showEntry(e, g, "", opts.id, opts.format)
}

func runKnowledgeShow(e *env, g globals, opts knowledgeShowOptions) error {
	return showEntry(e, g, entry.KindKnowledge, opts.slug, opts.format)
}

func runLearningShow(e *env, g globals, opts learningShowOptions) error {
	return showEntry(e, g, entry.KindLearning, opts.id, opts.format)
}

func runJournalShow(e *env, g globals, opts journalShowOptions) error {
	return showEntry(e, g, entry.KindJournal, opts.key, opts.format)
}

// showEntry prints the entry of kind ("": by the id's shape) id names in
// format: table, json or markdown.
func showEntry(e *env, g globals, kind entry.Kind, id, format string) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	p := g.printer(e)
	sh, err := loop.Show(s, kind, id, p)
	if errors.Is(err, entry.ErrNotFound) && kind != entry.KindLearning {
		// A memory or knowledge entry another superseded: its block or
		// file went in that commit, which says so in a trailer.
		if r, ok, ferr := lifecycle.FindRetired(s, id); ferr == nil && ok {
			return showRetired(p, r, format)
		}
	}
	if err != nil {
		return err
	}
	switch format {
	case "json":
		var v any
		switch {
		case sh.Memory != nil:
			v = toJSON(*sh.Memory)
		case sh.Knowledge != nil:
			v = sh.Knowledge
		case sh.Learning != nil:
			v = sh.Learning
		case sh.Journal != nil:
			v = sh.Journal
		default:
			v = sh.Skill
		}
		return writeJSON(p.out, v)
	case "markdown":
		fmt.Fprint(p.out, sh.Markdown())
		return nil
	}
	switch {
	case sh.Memory != nil:
		p.memoryDetail(*sh.Memory)
	case sh.Knowledge != nil:
		k := sh.Knowledge
		p.fields([][2]string{{"Slug", p.paint(ansiYellow, k.Slug)}, {"Title", k.Title}, {"Tags", strings.Join(k.Tags, ", ")},
			{"Feature", k.Feature}, {"Created", k.CreatedAt}, {"Updated", k.UpdatedAt}, {"File", k.Path}})
		fmt.Fprintf(p.out, "\n%s\n", k.Body)
	case sh.Learning != nil:
		l := sh.Learning
		// Every field the file holds (seed 004's too), as it holds it.
		p.fields([][2]string{{"ID", p.paint(ansiYellow, l.ID)}, {"Category", l.Category}, {"Status", l.Status}, {"Reason", l.StatusReason}, {"Tags", strings.Join(l.Tags, ", ")},
			{"Task", l.Task}, {"Kind", l.Kind}, {"Task type", l.TaskType}, {"Confidence", optionalFloat(l.Confidence)}, {"Success rate", optionalFloat(l.SuccessRate)},
			{"Source runs", strings.Join(l.SourceRuns, ", ")}, {"Created", l.CreatedAt}, {"Superseded by", l.SupersededBy}, {"File", l.Path}})
		fmt.Fprintf(p.out, "\n%s\n", l.Body)
	case sh.Journal != nil:
		printJournalDetail(p, *sh.Journal)
	case sh.Skill != nil:
		p.fields([][2]string{{"Skill", p.paint(ansiYellow, sh.Skill.Name)}, {"Description", sh.Skill.Description}, {"File", sh.Skill.Path}})
	}
	return nil
}

// showRetired prints a memory or knowledge entry another superseded, as
// it was, and what replaced it in which commit.
func showRetired(p *printer, r lifecycle.Retired, format string) error {
	if format == "json" {
		var v any = r.Knowledge
		if r.Memory != nil {
			v = toJSON(*r.Memory)
		}
		return writeJSON(p.out, struct {
			Entry        any    `json:"entry"`
			SupersededBy string `json:"superseded_by"`
			Commit       string `json:"commit"`
		}{v, r.By, r.Commit})
	}
	note := fmt.Sprintf("Superseded by %s in %s", r.By, r.Commit[:12])
	if r.Memory != nil {
		p.memoryDetail(*r.Memory)
		fmt.Fprintf(p.out, "\n%s\n", note)
		return nil
	}
	k := r.Knowledge
	p.fields([][2]string{{"Slug", p.paint(ansiYellow, k.Slug)}, {"Title", k.Title}, {"Tags", strings.Join(k.Tags, ", ")},
		{"Created", k.CreatedAt}, {"Updated", k.UpdatedAt}, {"Superseded by", r.By + " in " + r.Commit[:12]}})
	fmt.Fprintf(p.out, "\n%s\n", k.Body)
	return nil
}

// printJournalDetail prints an iteration's fields, its failure report and
// its notes.
func printJournalDetail(p *printer, je entry.JournalEntry) {
	cost := ""
	if je.CostUSD != 0 {
		cost = fmt.Sprintf("$%.4f", je.CostUSD)
	}
	p.fields([][2]string{{"Entry", p.paint(ansiYellow, je.Key())}, {"Outcome", outcomeColour(p, je.Outcome)}, {"Task", je.TaskID}, {"Feature", je.FeatureID},
		{"Model", je.Model}, {"Next model", je.NextModel}, {"Duration", strconv.FormatFloat(je.DurationSecs, 'f', 1, 64) + "s"}, {"Cost", cost},
		{"Files", strings.Join(je.FilesModified, ", ")}, {"Difficulty", je.Difficulty}, {"Created", je.CreatedAt}, {"Reverted", je.RevertedAt}})
	if f := je.Failure; f != nil {
		fmt.Fprintln(p.out)
		p.fields([][2]string{{"What was tried", f.WhatTried}, {"Why it failed", f.WhyFailed}, {"Category", f.ErrorCategory},
			{"Relevant files", strings.Join(f.RelevantFiles, ", ")}, {"Retry suggestion", f.RetrySuggestion}})
		if f.StackTrace != "" {
			fmt.Fprintf(p.out, "%s\n%s\n", p.paint(ansiBold, "Error output:"), f.StackTrace)
		}
	}
	if je.Notes != "" {
		fmt.Fprintf(p.out, "\n%s\n", je.Notes)
	}
}

// optionalFloat is a number a file may leave out, as the file has it.
func optionalFloat(f *float64) string {
	if f == nil {
		return ""
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}
