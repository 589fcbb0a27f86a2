package entry

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"lore/mdstore/entry/yamlfm"
)

// Learning categories of seed 002. Others are kept as written.
var LearningCategories = []string{"success_pattern", "pitfall", "tool_usage", "code_structure", "testing_strategy", "debugging_technique", "other"}

// Learning statuses: active ones are injected, staged ones wait for
// review, rejected and pruned ones are kept for history (seed 004).
var LearningStatuses = []string{"active", "staged", "rejected", "pruned"}

// Learning kinds of seed 004.
var LearningKinds = []string{"strategy", "antipattern", "estimate", "convention"}

// Learning is a reusable insight from an iteration: .agent/learnings/<id>.md.
type Learning struct {
	ID           string   `json:"id"` // l-{6 hex}
	Category     string   `json:"category"`
	Tags         []string `json:"tags"`
	Task         string   `json:"task,omitempty"`
	CreatedAt    string   `json:"created_at,omitempty"`
	Status       string   `json:"status"`
	StatusReason string   `json:"status_reason,omitempty"` // why it was given its status (lore learning status --reason)
	SupersededBy string   `json:"superseded_by,omitempty"`
	Kind         string   `json:"kind,omitempty"`
	TaskType     string   `json:"task_type,omitempty"`
	Confidence   *float64 `json:"confidence,omitempty"`
	SuccessRate  *float64 `json:"success_rate,omitempty"`
	SourceRuns   []string `json:"source_runs,omitempty"`
	Body         string   `json:"body"`
	Path         string   `json:"path"`
}

// ValidLearningID reports whether id has the form l-{6 hex}.
func ValidLearningID(id string) bool { return isLearningID(id) }

// newLearningID makes l-{6 hex}, avoiding the ids taken says are taken.
func NewLearningID(random io.Reader, taken func(string) bool) (string, error) {
	return NewID(random, "l-", 3, taken, "no free learning id")
}

// NewLearning is what a caller provides to add a learning.
type NewLearning struct {
	Category string
	Tags     []string
	Task     string
	Body     string
	Status   string   // "" means active
	Kind     string   // optional, seed 004
	TaskType string   // optional
	Runs     []string // source runs
}

// normalize checks a learning to add: no secret in any field (check), a
// category, tags, a body, a known status and kind.
func (in NewLearning) Normalize(check *SecretCheck) (NewLearning, error) {
	if err := check.Texts(in.TextFields()...); err != nil {
		return in, err
	}
	in.Category = strings.ToLower(strings.TrimSpace(in.Category))
	if in.Category == "" {
		return in, &InputError{Field: "category", Msg: "a learning needs a category (" + strings.Join(LearningCategories, ", ") + ")"}
	}
	if !isCategory(in.Category) {
		// Not echoed: whatever was typed here is not a category.
		return in, &InputError{Field: "category", Msg: "a category is one lowercase word of letters, digits, '_' and '-', such as pitfall or tool_usage"}
	}
	tags, err := InputTags(in.Tags)
	if err != nil {
		return in, err
	}
	if len(tags) == 0 {
		return in, &InputError{Field: "tags", Msg: "a learning needs at least one tag"}
	}
	in.Tags = tags
	in.Task = strings.TrimSpace(in.Task)
	if in.Body, err = NormalizeText("body", in.Body); err != nil {
		return in, err
	}
	if in.Status == "" {
		in.Status = "active"
	}
	if !slices.Contains(LearningStatuses, in.Status) {
		return in, &InputError{Field: "status", Msg: fmt.Sprintf("status %q must be one of %s", in.Status, strings.Join(LearningStatuses, ", "))}
	}
	if in.Kind != "" && !slices.Contains(LearningKinds, in.Kind) {
		return in, &InputError{Field: "kind", Msg: fmt.Sprintf("kind %q must be one of %s", in.Kind, strings.Join(LearningKinds, ", "))}
	}
	file := RenderLearning(Learning{Category: in.Category, Tags: in.Tags, Task: in.Task, Status: in.Status, Kind: in.Kind, TaskType: in.TaskType, SourceRuns: in.Runs, Body: in.Body})
	return in, tooLarge("learning", file, "body", in.Body, "tags", strings.Join(in.Tags, ", "), "task", in.Task, "task_type", in.TaskType, "source_runs", strings.Join(in.Runs, ", "))
}

// parseLearning reads one learning file.
func ParseLearning(data []byte, path string) (Learning, error) {
	d, err := parseFrontmatter(data, path)
	if err != nil {
		return Learning{}, err
	}
	l := Learning{Path: path}
	l.ID = d.Str("id", true)
	if l.ID != "" && !ValidLearningID(l.ID) {
		d.Problem(d.FieldLine("id"), "id %q must be l- and 6 hex digits", l.ID)
	}
	if want := strings.TrimSuffix(path[strings.LastIndexByte(path, '/')+1:], ".md"); l.ID != "" && l.ID != want {
		d.Problem(d.FieldLine("id"), "id %q does not match the file name %s.md", l.ID, want)
	}
	l.Category = d.Str("category", true)
	if l.Category != "" && !isCategory(l.Category) {
		d.Problem(d.FieldLine("category"), "category %q must be a lowercase word", l.Category)
	}
	l.Tags = docTags(d, "tags", true, false)
	l.Task = d.Str("task", false)
	l.CreatedAt = d.Timestamp("created_at", false)
	l.Status = d.Enum("status", LearningStatuses)
	if l.Status == "" {
		l.Status = "active"
	}
	l.StatusReason = d.Str("status_reason", false)
	l.SupersededBy = d.Str("superseded_by", false)
	if l.SupersededBy != "" && !ValidLearningID(l.SupersededBy) {
		d.Problem(d.FieldLine("superseded_by"), "superseded_by %q must be a learning id (l- and 6 hex digits)", l.SupersededBy)
	}
	l.Kind = d.Enum("kind", LearningKinds)
	l.TaskType = d.Str("task_type", false)
	if f, ok := d.Fraction("confidence"); ok {
		l.Confidence = &f
	}
	if f, ok := d.Fraction("success_rate"); ok {
		l.SuccessRate = &f
	}
	l.SourceRuns = d.List("source_runs")
	l.Body = strings.TrimSpace(d.Body())
	if l.Body == "" {
		d.Problems = append(d.Problems, yamlfm.Problem{Line: 1, Message: "learning has no body"})
	}
	if err := docErr(d, path); err != nil {
		return Learning{}, err
	}
	return l, nil
}

func RenderLearning(l Learning) []byte {
	w := yamlfm.NewWriter()
	w.Plain("id", l.ID)
	w.Plain("category", l.Category)
	w.List("tags", l.Tags, true)
	w.Str("task", l.Task)
	w.Str("created_at", l.CreatedAt)
	w.Plain("status", l.Status)
	w.Str("status_reason", l.StatusReason)
	w.Plain("superseded_by", l.SupersededBy)
	w.Plain("kind", l.Kind)
	w.Str("task_type", l.TaskType)
	if l.Confidence != nil {
		w.Plain("confidence", strconv.FormatFloat(*l.Confidence, 'f', -1, 64))
	}
	if l.SuccessRate != nil {
		w.Plain("success_rate", strconv.FormatFloat(*l.SuccessRate, 'f', -1, 64))
	}
	w.List("source_runs", l.SourceRuns, false)
	return w.Done(l.Body)
}

// Shown reports whether prime, search and stats show the learning when
// not asked for others: it is active and nothing superseded it.
func (l *Learning) Shown() bool { return ShownLearning(l.Status, l.SupersededBy) }

// State is what a search or prime asks a learning's status to be: ""
// when it is shown, "superseded" when another replaced it (whatever its
// status), else its status.
func (l *Learning) State() string { return LearningState(l.Status, l.SupersededBy) }

func ShownLearning(status, supersededBy string) bool {
	return (status == "" || status == "active") && supersededBy == ""
}

// StateSuperseded is the state of a learning another replaced.
const StateSuperseded = "superseded"

func LearningState(status, supersededBy string) string {
	switch {
	case ShownLearning(status, supersededBy):
		return ""
	case supersededBy != "":
		return StateSuperseded
	}
	return status
}

// Wanted says whether statuses (active, superseded, staged, rejected,
// pruned; none: active alone) ask for a learning in state (State).
func Wanted(statuses []string, state string) bool {
	if state == "" {
		state = "active"
	}
	if len(statuses) == 0 {
		return state == "active"
	}
	for _, s := range statuses {
		if strings.EqualFold(s, state) {
			return true
		}
	}
	return false
}
