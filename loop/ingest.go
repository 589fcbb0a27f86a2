package loop

import (
	"fmt"
	"strings"

	"lore/agentout"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/cites"
	"lore/mdstore/lifecycle"
	"lore/provenance"
	"lore/sigils"
)

// IngestRequest is one iteration to record, and whether the run ends
// with it.
type IngestRequest struct {
	mdstore.IngestInput
	// RunEnd: the run's last iteration. Once it is recorded, EndRun.
	RunEnd bool
	// Objective is the run's, for the end of the run's extraction ("":
	// its tasks and first notes).
	Objective string
	// Format is the format of Output, the agent's output as its CLI wrote
	// it: "" or agentout.Auto tells it from the output. Read in a JSON
	// format (agentout.Read), the text the agent said is what the sigils
	// are parsed from, and the format's model, duration, cost and files
	// modified fill those Given does not name.
	Format agentout.Format
	Given  Given
	// Progress is the progress log of a loop that speaks no task sigil
	// (readConventions), relative to the repository's top: "" looks for
	// one of ProgressLogs.
	Progress string
}

// Ingested is what recording an iteration did.
type Ingested struct {
	*mdstore.IngestResult
	Write *mdstore.WriteResult
	// Merges is the summary of learnings the iteration brought due
	// (seed 002: past learnings.summarize_threshold shown learnings, at
	// most once in ten iterations).
	Merges []lifecycle.Merge
	// End is what the end of the run did, with RunEnd.
	End *RunEnd
	// Format is the format the agent's output was read in.
	Format agentout.Format
	// Complete: the output says the loop's work is complete
	// (<promise>COMPLETE</promise>). Story: the task done is a story
	// the agent chose from its progress log (readConventions).
	Complete, Story bool
}

// Ingest records one iteration in one commit (mdstore.Store.Ingest) from
// the agent's output read in its format, says what it did not take as it
// was, summarizes the learnings when that
// is due, and ends the run when asked, each step its own commit. An error
// after the iteration is recorded comes with the result: the iteration
// stays recorded.
func Ingest(s *mdstore.Store, req IngestRequest, r Reporter) (*Ingested, error) {
	in := req.IngestInput
	format := readAgentOutput(s, &in, req.Format, req.Given, r)
	complete, story := false, false
	if !in.OutcomeOnly {
		complete, story = readConventions(s, &in, req.Progress, req.Given, r)
	}
	stamper := provenance.NewStamper(s)
	in.Cites = stamper.StampEach(in.Files)
	given := sigilCites(in.Sigils)
	in.CitesOf = func(text string) []cites.Cite {
		cs := stamper.Named(text, in.Cites)
		for _, g := range given {
			if strings.Contains(text, g.text) {
				cs = append(cs, stamper.StampEach(g.refs)...)
			}
		}
		return cs
	}
	res, wr, err := s.Ingest(in)
	if err != nil {
		return nil, err
	}
	reportIngest(r, res)
	key := "knowledge and learnings"
	if j := res.Journal; j != nil {
		key = j.Key()
	}
	ReportWrite(r, wr, "Iteration", key)
	out := &Ingested{IngestResult: res, Write: wr, Format: format, Complete: complete, Story: story}
	lifecycle.NoteIteration(s)
	if lifecycle.SummarizeDue(s, res.ShownLearnings) {
		plan, err := lifecycle.PlanSummary(s)
		sr, err := apply(s, plan, err)
		if err != nil {
			return out, fmt.Errorf("the iteration is recorded; summarizing the learnings failed: %w", err)
		}
		out.Merges = plan.Merges
		for _, sk := range plan.Skipped {
			r.Notice(fmt.Sprintf("Summary of learnings: skipped %s, %d learnings (%s): %s", sk.Category, len(sk.Members), strings.Join(sk.Members, ", "), sk.Reason))
		}
		lifecycle.NoteSummarized(s)
		ReportWrite(r, sr, "Summary of learnings", "")
	}
	if req.RunEnd && res.Journal != nil {
		if out.End, err = EndRun(s, res.Journal.RunID, req.Objective, r); err != nil {
			return out, fmt.Errorf("the iteration is recorded; %w", err)
		}
	}
	return out, nil
}

// reportIngest says, one notice each, what ingest did not take as it
// was: the run it started, the secrets it redacted, its warnings, every
// sigil it skipped (with its line and why), and how many tags it ignored
// as shown rather than said.
func reportIngest(r Reporter, res *mdstore.IngestResult) {
	if res.RunStarted && res.Journal != nil {
		r.Notice("started run " + res.Journal.RunID + " (lore journal start names one)")
	}
	if n := len(res.Redacted); n > 0 {
		var where []string
		for _, rd := range res.Redacted {
			if rd.Line > 0 {
				where = append(where, fmt.Sprintf("%s at line %d", rd.Rule, rd.Line))
			} else {
				where = append(where, fmt.Sprintf("%s in %s", rd.Rule, rd.Field))
			}
		}
		r.Notice(fmt.Sprintf("redacted %d %s before recording the iteration: %s", n, words.Plural(n, "secret", "secrets"), strings.Join(where, ", ")))
	}
	for _, w := range res.Warnings {
		r.Notice("warning: " + w)
	}
	for _, s := range res.Skipped {
		where := ""
		if s.Line > 0 {
			where = fmt.Sprintf(" at line %d", s.Line)
		}
		r.Notice(fmt.Sprintf("skipped <%s>%s: %s", s.Sigil, where, s.Reason))
	}
	if shown := len(res.Ignored); shown > 0 {
		r.Notice(fmt.Sprintf("ignored %d %s in code, echoing lore's instructions or holding a placeholder (--format json lists them)", shown, words.Plural(shown, "tag", "tags")))
	}
}

// givenCites are the files a knowledge or learning sigil's cites="…"
// names, and the start of its text, by which the entry it makes is known.
type givenCites struct {
	text string
	refs []string
}

func sigilCites(sig *sigils.Result) []givenCites {
	if sig == nil {
		return nil
	}
	var out []givenCites
	start := func(body string) string { line, _, _ := strings.Cut(strings.TrimSpace(body), "\n"); return line }
	for _, k := range sig.Knowledge {
		if len(k.Cites) > 0 {
			out = append(out, givenCites{start(k.Body), k.Cites})
		}
	}
	for _, l := range sig.Learnings {
		if len(l.Cites) > 0 {
			out = append(out, givenCites{start(l.Body), l.Cites})
		}
	}
	return out
}
