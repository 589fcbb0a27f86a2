package entry

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"lore/internal/markdown"
	"lore/mdstore/entry/yamlfm"
	"lore/sigils"
)

// Outcomes of an iteration (seed 000), and lore's unreported: an agent
// that speaks no sigil at all (a loop with its own conventions) said
// nothing of how its task went — neither a success nor a failure. An
// iteration with sigils but no task sigil is blocked.
var Outcomes = []string{"done", "failed", "retried", "blocked", "interrupted", "unreported"}

// JournalEntry is one iteration of an agent loop.
type JournalEntry struct {
	RunID         string   `json:"run_id"`
	Iteration     int      `json:"iteration"`
	TaskID        string   `json:"task_id,omitempty"`
	FeatureID     string   `json:"feature_id,omitempty"`
	Outcome       string   `json:"outcome"`
	Model         string   `json:"model,omitempty"`
	NextModel     string   `json:"next_model,omitempty"` // asked for with <next-model>
	DurationSecs  float64  `json:"duration_secs"`
	CostUSD       float64  `json:"cost_usd"`
	FilesModified []string `json:"files_modified"`
	Difficulty    string   `json:"difficulty,omitempty"`
	CreatedAt     string   `json:"created_at"`
	Failure       *Failure `json:"failure,omitempty"`
	// IngestKey is the caller's idempotency key (lore ingest --key; lore
	// run and the Claude Code Stop hook pass one): an ingest that repeats
	// it in the run records this iteration again instead of a new one.
	IngestKey string `json:"ingest_key,omitempty"`
	// RevertedAt is when lore revert undid what the iteration wrote to
	// the store (RFC 3339); the entry itself is kept. The attempt still
	// happened: stuck detection and the loop's figures count it as it was.
	RevertedAt string `json:"reverted_at,omitempty"`
	Notes      string `json:"notes"` // the <journal> notes: the file's body
	Path       string `json:"path"`
}

// AgentErrorCategory is the error_category of an iteration in which the
// agent did not run to the end — it exited with a status other than 0
// without saying how its task went, or its CLI reported an
// infrastructure failure (a rate limit, an overload, authentication, the
// network, its own crash, a timeout, an empty output). Such an iteration
// is recorded as failed (the outcomes older lore reads) with this
// category and the agent's message; it is no attempt at the task: it
// counts toward neither stuck detection nor model escalation.
const AgentErrorCategory = "agent_error"

// AgentError reports whether e is an agent error (AgentErrorCategory).
func (e JournalEntry) AgentError() bool {
	return e.Outcome == "failed" && e.Failure != nil && e.Failure.ErrorCategory == AgentErrorCategory
}

// Failure is what a failed attempt reports (seed 002's failure_reports).
type Failure struct {
	WhatTried       string   `json:"what_tried"`
	WhyFailed       string   `json:"why_failed"`
	ErrorCategory   string   `json:"error_category"`
	RelevantFiles   []string `json:"relevant_files"`
	StackTrace      string   `json:"stack_trace,omitempty"`
	RetrySuggestion string   `json:"retry_suggestion,omitempty"`
}

// Key is "<run>/<name>", how the CLI names an entry: its file's name
// without .md, unique in the store — run-1a2b3c4d/0003-4fa9c2, or
// run-1a2b3c4d/0003 for a file named before iterations had tags (see
// JournalPath). An entry without a file yet is "<run>/<NNNN>".
func (e JournalEntry) Key() string {
	if e.Path == "" {
		return fmt.Sprintf("%s/%04d", e.RunID, e.Iteration)
	}
	return e.RunID + "/" + JournalName(e.Path)
}

// journalName is the name of the journal file at p, without .md.
func JournalName(p string) string {
	return strings.TrimSuffix(p[strings.LastIndexByte(p, '/')+1:], ".md")
}

// ValidRunID reports whether id can name a run (and its directory):
// lowercase letters, digits, '.', '_' and '-'. lore makes run-{8 hex}.
func ValidRunID(id string) bool { return isRunID(id) && !strings.Contains(id, "..") }

// NewRunID makes run-{8 hex}.
func NewRunID(random io.Reader) (string, error) {
	return NewID(random, "run-", 4, nil, "")
}

// parseJournalKey splits a Key, "run/0003-4fa9c2", or "run/0003" (or
// "run/3"), into the run and the name.
func ParseJournalKey(key string) (run, name string, err error) {
	run, name, ok := strings.Cut(key, "/")
	name = strings.TrimSuffix(name, ".md")
	if !ok || !ValidRunID(run) || name == "" || strings.HasPrefix(name, ".") || !isRunID(name) {
		return "", "", &InputError{Field: "entry", Msg: fmt.Sprintf("%q is not <run>/<iteration>, such as run-1a2b3c4d/0003 or run-1a2b3c4d/0003-4fa9c2", key)}
	}
	return run, name, nil
}

func ParseJournal(data []byte, path string) (JournalEntry, error) {
	d, err := parseFrontmatter(data, path)
	if err != nil {
		return JournalEntry{}, err
	}
	e := JournalEntry{Path: path}
	e.RunID = d.Str("run_id", true)
	if e.RunID != "" && !ValidRunID(e.RunID) {
		d.Problem(d.FieldLine("run_id"), "run_id %q may only hold lowercase letters, digits, '.', '_' and '-'", e.RunID)
	}
	e.Iteration = d.Integer("iteration", true)
	if parts := strings.Split(path, "/"); len(parts) >= 2 && e.RunID != "" {
		if dir := parts[len(parts)-2]; dir != e.RunID {
			d.Problem(d.FieldLine("run_id"), "run_id %q does not match its directory %s", e.RunID, dir)
		}
		if n, _, ok := JournalFileName(parts[len(parts)-1]); ok && n != e.Iteration &&
			strconv.Itoa(e.Iteration) == d.Str("iteration", false) { // a bad number is said once
			d.Problem(d.FieldLine("iteration"), "iteration %d does not match the file name %s", e.Iteration, parts[len(parts)-1])
		}
	}
	e.TaskID = d.Str("task_id", false)
	e.FeatureID = d.Str("feature_id", false)
	if d.Str("outcome", true) != "" {
		e.Outcome = d.Enum("outcome", Outcomes)
	}
	e.Model = d.Str("model", false)
	e.NextModel = d.Str("next_model", false)
	e.DurationSecs = d.Number("duration_secs")
	e.CostUSD = d.Number("cost_usd")
	e.FilesModified = d.List("files_modified")
	if e.FilesModified == nil {
		e.FilesModified = []string{}
	}
	e.Difficulty = d.Enum("difficulty", sigils.Difficulties)
	e.CreatedAt = d.Timestamp("created_at", false)
	e.IngestKey = d.Str("ingest_key", false)
	e.RevertedAt = d.Timestamp("reverted_at", false)
	if f := d.Sub("failure"); f != nil {
		e.Failure = &Failure{
			WhatTried:       f.Str("what_tried", false),
			WhyFailed:       f.Str("why_failed", false),
			ErrorCategory:   f.Str("error_category", false),
			RelevantFiles:   f.List("relevant_files"),
			StackTrace:      f.Str("stack_trace", false),
			RetrySuggestion: f.Str("retry_suggestion", false),
		}
		if e.Failure.RelevantFiles == nil {
			e.Failure.RelevantFiles = []string{}
		}
		d.Problems = append(d.Problems, f.Problems...)
	}
	e.Notes = strings.TrimSpace(d.Body())
	if err := docErr(d, path); err != nil {
		return JournalEntry{}, err
	}
	return e, nil
}

func RenderJournal(e JournalEntry) []byte {
	w := yamlfm.NewWriter()
	w.Plain("run_id", e.RunID)
	w.Plain("iteration", strconv.Itoa(e.Iteration))
	w.Str("task_id", e.TaskID)
	w.Str("feature_id", e.FeatureID)
	w.Plain("outcome", e.Outcome)
	w.Str("model", e.Model)
	w.Str("next_model", e.NextModel)
	w.Plain("duration_secs", strconv.FormatFloat(e.DurationSecs, 'f', -1, 64))
	w.Plain("cost_usd", strconv.FormatFloat(e.CostUSD, 'f', -1, 64))
	w.List("files_modified", e.FilesModified, true)
	w.Plain("difficulty", e.Difficulty)
	w.Str("created_at", e.CreatedAt)
	w.Str("ingest_key", e.IngestKey)
	w.Str("reverted_at", e.RevertedAt)
	if f := e.Failure; f != nil {
		w.Mapping("failure")
		w.Str("what_tried", f.WhatTried)
		w.Str("why_failed", f.WhyFailed)
		w.Str("error_category", f.ErrorCategory)
		w.List("relevant_files", f.RelevantFiles, true)
		w.Str("stack_trace", f.StackTrace)
		w.Str("retry_suggestion", f.RetrySuggestion)
		w.EndMapping()
	}
	return w.Done(e.Notes)
}

// CompareIterations orders two entries of one run: by iteration, then,
// for one iteration number recorded on two branches, by creation time,
// then by file name. It returns -1, 0 or +1, as cmp.Compare does.
func CompareIterations(a, b JournalEntry) int {
	if c := cmp.Compare(a.Iteration, b.Iteration); c != 0 {
		return c
	}
	if c := entryTime(a).Compare(entryTime(b)); c != 0 {
		return c
	}
	return cmp.Compare(JournalName(a.Path), JournalName(b.Path))
}

// sortJournal orders entries by run, then CompareIterations, then path.
func SortJournal(es []JournalEntry) {
	slices.SortStableFunc(es, func(a, b JournalEntry) int { return CompareJournal(&a, &b) })
}

func CompareJournal(a, b *JournalEntry) int {
	if c := cmp.Compare(a.RunID, b.RunID); c != 0 {
		return c
	}
	if c := CompareIterations(*a, *b); c != 0 {
		return c
	}
	return cmp.Compare(a.Path, b.Path)
}

// SortChronological orders entries as the iterations happened: creation
// time, then run, then CompareIterations.
func SortChronological(es []JournalEntry) {
	slices.SortStableFunc(es, func(a, b JournalEntry) int {
		if c := entryTime(a).Compare(entryTime(b)); c != 0 {
			return c
		}
		if c := cmp.Compare(a.RunID, b.RunID); c != 0 {
			return c
		}
		return CompareIterations(a, b)
	})
}

func entryTime(e JournalEntry) time.Time { return ParseTimestamp(e.CreatedAt) }

// ParseTimestamp reads a timestamp as entries carry it: an RFC 3339 time or
// a bare date. It returns the zero time for anything else.
func ParseTimestamp(s string) time.Time {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t
	}
	t, _ := time.Parse(DateLayout, s)
	return t
}

// normalize checks a journal entry to record: no secret in any field
// (check), a known outcome and difficulty, a run id that can name a
// directory. An empty RunID means the current run (started if there is
// none); Iteration 0 means the next one.
func (in JournalEntry) Normalize(check *SecretCheck) (JournalEntry, error) {
	if err := check.Texts(in.TextFields()...); err != nil {
		return in, err
	}
	if in.Outcome == "" {
		in.Outcome = "blocked"
	}
	if !slices.Contains(Outcomes, in.Outcome) {
		return in, &InputError{Field: "outcome", Msg: fmt.Sprintf("outcome %q must be one of %s", in.Outcome, strings.Join(Outcomes, ", "))}
	}
	if in.Difficulty != "" && !slices.Contains(sigils.Difficulties, in.Difficulty) {
		return in, &InputError{Field: "difficulty", Msg: fmt.Sprintf("difficulty %q must be one of %s", in.Difficulty, strings.Join(sigils.Difficulties, ", "))}
	}
	if in.IngestKey = strings.TrimSpace(in.IngestKey); strings.ContainsAny(in.IngestKey, "\n\r") || len(in.IngestKey) > MaxIngestKey {
		return in, &InputError{Field: "key", Msg: fmt.Sprintf("an ingest key is one line of at most %d bytes", MaxIngestKey)}
	}
	if in.RunID != "" && !ValidRunID(in.RunID) {
		return in, &InputError{Field: "run", Msg: fmt.Sprintf("run id %q may only hold lowercase letters, digits, '.', '_' and '-'", in.RunID)}
	}
	if !(in.DurationSecs >= 0) || !(in.CostUSD >= 0) || math.IsInf(in.DurationSecs, 0) || math.IsInf(in.CostUSD, 0) || in.Iteration < 0 { // NaN is not >= 0
		return in, &InputError{Field: "journal", Msg: "duration and cost must be finite numbers of 0 or more, and iteration cannot be negative"}
	}
	if in.FilesModified == nil {
		in.FilesModified = []string{}
	}
	in.FilesModified = capFiles(in.FilesModified)
	in.Notes = TruncateNotes(strings.TrimSpace(strings.ReplaceAll(in.Notes, "\r\n", "\n")), MaxJournalNotes)
	fields := []string{"ingest_key", in.IngestKey, "task_id", in.TaskID, "feature_id", in.FeatureID, "model", in.Model, "next_model", in.NextModel, "run_id", in.RunID}
	if f := in.Failure; f != nil {
		f.RelevantFiles = capFiles(f.RelevantFiles)
		for _, t := range []*string{&f.WhatTried, &f.WhyFailed, &f.ErrorCategory, &f.RetrySuggestion} {
			*t = TruncateNotes(*t, MaxJournalNotes)
		}
		fields = append(fields, "stack_trace", f.StackTrace, "what_tried", f.WhatTried, "why_failed", f.WhyFailed, "retry_suggestion", f.RetrySuggestion)
	}
	return in, tooLarge("journal entry", RenderJournal(in), fields...)
}

// MaxIngestKey caps an ingest key, in bytes.
const MaxIngestKey = 200

// MaxJournalNotes caps an iteration's notes, in characters, so that one
// note cannot fill a prime.
const MaxJournalNotes = 2000

// truncateNotes keeps the first max characters of notes, cut at the end
// of a line (or of a word, if the first line is longer), closes a code
// fence the cut left open, and marks the cut with [truncated].
func TruncateNotes(notes string, max int) string {
	if utf8.RuneCountInString(notes) <= max {
		return notes
	}
	cut, n := len(notes), 0
	for i := range notes {
		if n == max {
			cut = i
			break
		}
		n++
	}
	kept := notes[:cut]
	if i := strings.LastIndexByte(kept, '\n'); i > 0 {
		kept = kept[:i]
	} else if i := strings.LastIndexAny(kept, " \t"); i > 0 {
		kept = kept[:i]
	}
	kept = strings.TrimRight(kept, " \t\n")
	fence := ""
	for _, line := range strings.Split(kept, "\n") {
		if fence == "" {
			fence, _ = markdown.Fence(line)
		} else if markdown.Closes(line, fence) {
			fence = ""
		}
	}
	if fence != "" {
		return kept + "\n" + fence + "\n[truncated]"
	}
	return kept + " [truncated]"
}
