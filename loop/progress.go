package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"lore/internal/fsx"
	"lore/internal/words"
	"lore/mdstore"
	"lore/progress"
	"lore/secrets"
	"lore/sigils"
)

// ProgressLogs are where Ralph loops keep their progress log, relative to
// the repository's top: looked for, in this order, when the caller names
// none.
var ProgressLogs = []string{"progress.txt", "scripts/ralph/progress.txt", ".ralph/progress.md", "progress.md"}

// maxProgressLog bounds the progress log read.
const maxProgressLog = 16 << 20

// ProgressTitle is the title of the knowledge entry that keeps a progress
// log's Codebase Patterns.
const ProgressTitle = "Codebase Patterns"

// readConventions reads what an agent that speaks no task sigil said in
// the conventions of the loops people already run, into in.Sigils: the
// entries its progress log gained (package progress: the story done,
// its text as the notes, its learnings, its files changed; the log's
// Codebase Patterns as a knowledge entry), and a completion marker
// (<promise>COMPLETE</promise>: done). path is the log the caller names,
// "" to look for one (ProgressLogs). An output with a task sigil is left
// as it is. It reports whether the output says the work is complete, and
// whether the task done is a story the agent chose from its log.
func readConventions(s *mdstore.Store, in *mdstore.IngestInput, path string, given Given, r Reporter) (complete, story bool) {
	output, _ := secrets.Redact(in.Output)
	if strings.TrimSpace(output) == "" {
		return false, false // an agent error, whatever its log says
	}
	sig := sigils.Parse(output)
	in.Sigils = &sig // parsed once: ingest reads what this adds, or the output's own
	if sig.Task.Outcome != "" || sig.AgentError(output, in.ProcessEnd) != "" {
		return false, false
	}
	complete = sig.Promise.Complete()
	unreported := sig.Empty() && strings.TrimSpace(output) != ""
	log, name := readProgressLog(s, path, r)
	if len(log.Entries) == 0 {
		log.Entries = progress.Parse([]byte(output)).Entries // an agent that prints its entry
	}
	entries := newEntries(s, log.Entries)
	var said []string
	if len(entries) > 0 {
		last := entries[len(entries)-1]
		sig.Task = sigils.Task{Outcome: "done", ID: last.Story}
		var notes []string
		for _, e := range entries {
			notes = append(notes, e.Text)
			for _, l := range e.Learnings {
				tags := []string{"progress"}
				if e.Story != "" {
					tags = append(tags, strings.ToLower(e.Story))
				}
				sig.Learnings = append(sig.Learnings, sigils.Learning{Category: l.Category, Tags: tags, Body: l.Text})
			}
			if !given.Files {
				for _, f := range e.Files {
					if !slices.Contains(in.Files, f) {
						in.Files = append(in.Files, f)
					}
				}
			}
		}
		if sig.Journal != "" {
			notes = append(notes, sig.Journal)
		}
		sig.Journal = strings.Join(notes, "\n\n")
		n := len(sig.Learnings)
		said = append(said, fmt.Sprintf("%s %s (done), %d %s", words.Plural(len(entries), "entry", "entries"), stories(entries), n, words.Plural(n, "learning", "learnings")))
	}
	if log.Patterns != "" {
		sig.Knowledge = append(sig.Knowledge, sigils.Knowledge{Title: ProgressTitle, Tags: []string{"codebase-patterns", "progress"}, Body: log.Patterns})
		said = append(said, "its Codebase Patterns")
	}
	switch {
	case sig.Task.Outcome != "":
	case complete:
		sig.Task = sigils.Task{Outcome: "done", ID: in.TaskID}
		if sig.Journal == "" {
			sig.Journal = strings.TrimSpace(output)
		}
		said = append(said, fmt.Sprintf("<promise>%s</promise> at line %d: done", sig.Promise.Value, sig.Promise.Line))
	case unreported && len(said) > 0:
		// Only the log's patterns: the output itself still says nothing
		// of how the task went.
		sig.Task, sig.Journal = sigils.Task{Outcome: "unreported", ID: in.TaskID}, strings.TrimSpace(output)
	}
	if len(said) > 0 {
		from := "the output"
		if name != "" {
			from = name
		}
		r.Notice("read the loop's own conventions from " + from + ": " + strings.Join(said, "; "))
	}
	return complete, len(entries) > 0
}

// readProgressLog reads the progress log at path (relative to the
// repository's top, or absolute), or the first of ProgressLogs there is;
// name is the path read, "" for none.
func readProgressLog(s *mdstore.Store, path string, r Reporter) (log progress.Log, name string) {
	top := s.Root()
	if repo := s.Repo(); repo != nil {
		top = repo.WorkTree
	}
	candidates := ProgressLogs
	if path != "" {
		candidates = []string{path}
	}
	for _, c := range candidates {
		full := c
		if !filepath.IsAbs(c) {
			full = filepath.Join(top, filepath.FromSlash(c))
		}
		data, err := fsx.ReadRegular(full, maxProgressLog)
		if err != nil {
			if path != "" || !os.IsNotExist(err) {
				r.Notice(fmt.Sprintf("warning: the progress log %s was not read: %v", c, err))
			}
			continue
		}
		return progress.Parse(data), c
	}
	return progress.Log{}, ""
}

// newEntries are the entries of a progress log no iteration has recorded
// yet: those after the last one whose heading is a line of the notes of
// an iteration in the journal. When the journal has none of them (lore's
// first iteration on this log), only the newest entry is new: the log's
// history is not this iteration's.
func newEntries(s *mdstore.Store, entries []progress.Entry) []progress.Entry {
	if len(entries) == 0 {
		return nil
	}
	journal, _, err := s.Journal()
	if err != nil {
		return entries[len(entries)-1:]
	}
	recorded := map[string]bool{}
	for _, j := range journal {
		for _, line := range strings.Split(j.Notes, "\n") {
			if strings.HasPrefix(line, "#") {
				recorded[strings.TrimSpace(line)] = true
			}
		}
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if recorded[strings.TrimSpace(entries[i].Heading)] {
			return entries[i+1:]
		}
	}
	return entries[len(entries)-1:]
}

// stories names the entries' stories: "US-001, US-002".
func stories(entries []progress.Entry) string {
	var ids []string
	for _, e := range entries {
		if e.Story != "" {
			ids = append(ids, e.Story)
		}
	}
	return strings.Join(ids, ", ")
}
