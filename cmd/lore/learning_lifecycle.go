package main

import (
	"fmt"
	"strings"

	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
)

// lore learning status, promote, summarize and supersede: a learning's
// lifecycle (mdstore/lifecycle), each planned, then applied unless a dry
// run asks only for the plan.

type learningStatusOptions struct {
	id, status, reason, format string
}

func runLearningStatus(e *env, g globals, opts learningStatusOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	l, res, err := lifecycle.SetStatus(s, opts.id, opts.status, opts.reason)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printWrite(p, res, "Status of learning", l.ID)
	text := fmt.Sprintf("%sLearning %s is %s", p.emoji("💡"), p.paint(ansiYellow, l.ID), l.Status)
	if res == nil {
		text = fmt.Sprintf("Unchanged: %s is already %s", p.paint(ansiYellow, l.ID), l.Status)
	}
	return printLearningChange(p, opts.format, l, res, text)
}

type learningPromoteOptions struct {
	ids    []string
	dryRun bool
	format string
}

func runLearningPromote(e *env, g globals, opts learningPromoteOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	plan, err := lifecycle.PlanPromotion(s, opts.ids)
	if err != nil {
		return err
	}
	p := g.printer(e)
	res, err := carryOut(p, s, plan, opts.dryRun, "Promotion of learnings", "")
	if err != nil {
		return err
	}
	promoted := plan.Promotions
	if opts.format == "json" {
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			Promoted []lifecycle.Promotion `json:"promoted"`
			DryRun   bool                  `json:"dry_run,omitempty"`
			Commit   string                `json:"commit,omitempty"`
		}{append([]lifecycle.Promotion{}, promoted...), opts.dryRun, commit})
	}
	if len(promoted) == 0 {
		fmt.Fprintln(p.out, "Nothing to promote: no learning is staged")
		return nil
	}
	rows := make([][]string, len(promoted))
	for i, x := range promoted {
		rows[i] = []string{x.ID, x.Status, x.Reason}
	}
	p.table([]string{"ID", "STATUS", "REASON"}, rows)
	if opts.dryRun {
		fmt.Fprintf(p.out, "Dry run: %d staged %s; nothing changed\n", len(promoted), words.Plural(len(promoted), "learning", "learnings"))
	}
	return nil
}

type learningSummarizeOptions struct {
	dryRun bool
	format string
}

func runLearningSummarize(e *env, g globals, opts learningSummarizeOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	plan, err := lifecycle.PlanSummary(s)
	if err != nil {
		return err
	}
	p := g.printer(e)
	res, err := carryOut(p, s, plan, opts.dryRun, "Summary of learnings", "")
	if err != nil {
		return err
	}
	merges := plan.Merges
	if opts.format == "json" {
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			Merges  []lifecycle.Merge          `json:"merges"`
			Skipped []lifecycle.SkippedCluster `json:"skipped,omitempty"`
			DryRun  bool                       `json:"dry_run,omitempty"`
			Commit  string                     `json:"commit,omitempty"`
		}{append([]lifecycle.Merge{}, merges...), plan.Skipped, opts.dryRun, commit})
	}
	printMerges(p, merges, plan.Skipped, opts.dryRun)
	return nil
}

// printMerges lists a summarization's merges, or what it would merge, and
// the clusters it skipped and why.
func printMerges(p *printer, merges []lifecycle.Merge, skipped []lifecycle.SkippedCluster, dryRun bool) {
	for _, sk := range skipped {
		fmt.Fprintf(p.out, "Skipped: %s, %d learnings (%s): %s\n", sk.Category, len(sk.Members), strings.Join(sk.Members, ", "), sk.Reason)
	}
	if len(merges) == 0 {
		if len(skipped) == 0 {
			fmt.Fprintln(p.out, "Nothing to summarize: no learnings of a category share half their tags")
		} else {
			fmt.Fprintf(p.out, "Nothing to summarize: %d %s skipped\n", len(skipped), words.Plural(len(skipped), "cluster", "clusters"))
		}
		return
	}
	for _, m := range merges {
		id := m.Learning.ID
		if id == "" {
			id = "(new)"
		}
		kept := m.Members[len(m.Members)-1]
		fmt.Fprintf(p.out, "%s %s: %s merged, %s kept as it is\n", p.paint(ansiYellow, id), m.Category,
			strings.Join(m.Members[:len(m.Members)-1], ", "), kept)
	}
	if dryRun {
		fmt.Fprintf(p.out, "Dry run: %d %s would be merged; nothing changed\n", len(merges), words.Plural(len(merges), "cluster", "clusters"))
	}
}

type learningSupersedeOptions struct {
	old, newer, format string
}

func runLearningSupersede(e *env, g globals, opts learningSupersedeOptions) error {
	s, err := g.openStore(e)
	if err != nil {
		return err
	}
	l, res, err := lifecycle.Supersede(s, opts.old, opts.newer)
	if err != nil {
		return err
	}
	p := g.printer(e)
	printWrite(p, res, "Supersede of learning", l.ID)
	text := fmt.Sprintf("%sLearning %s is superseded by %s", p.emoji("💡"), p.paint(ansiYellow, l.ID), p.paint(ansiYellow, l.SupersededBy))
	if res == nil {
		text = fmt.Sprintf("Unchanged: %s is already superseded by %s", p.paint(ansiYellow, l.ID), l.SupersededBy)
	}
	return printLearningChange(p, opts.format, l, res, text)
}

// printLearningChange prints a learning a command changed: as JSON with
// the commit (none when nothing changed), its id, or the text.
func printLearningChange(p *printer, format string, l entry.Learning, res *mdstore.WriteResult, text string) error {
	switch format {
	case "json":
		commit := commitOf(res)
		return writeJSON(p.out, struct {
			entry.Learning
			Changed bool   `json:"changed"`
			Commit  string `json:"commit,omitempty"`
		}{l, res != nil, commit})
	case "quiet":
		fmt.Fprintln(p.out, l.ID)
	default:
		fmt.Fprintln(p.out, text)
	}
	return nil
}

// lifecyclePlan is a plan of mdstore/lifecycle's, applied as one commit.
type lifecyclePlan interface {
	Apply(*mdstore.Store) (*mdstore.WriteResult, error)
}

// carryOut applies plan unless the command is a dry run, which prints
// the plan alone, and says what the write noted; noun names the change
// ("Prune", "Summary of learnings").
func carryOut(p *printer, s *mdstore.Store, plan lifecyclePlan, dryRun bool, noun, id string) (*mdstore.WriteResult, error) {
	if dryRun {
		return nil, nil
	}
	res, err := plan.Apply(s)
	if err == nil {
		printWrite(p, res, noun, id)
	}
	return res, err
}
