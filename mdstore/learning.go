package mdstore

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
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

func newLearningID(random io.Reader, taken func(string) bool) (string, error) {
	if random == nil {
		random = rand.Reader
	}
	for i := 0; i < 1000; i++ {
		var b [3]byte
		if _, err := io.ReadFull(random, b[:]); err != nil {
			return "", fmt.Errorf("mdstore: id: %w", err)
		}
		id := "l-" + hex.EncodeToString(b[:])
		if !taken(id) {
			return id, nil
		}
	}
	return "", fmt.Errorf("mdstore: no free learning id")
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

func (in NewLearning) normalize() (NewLearning, error) {
	in.Category = strings.ToLower(strings.TrimSpace(in.Category))
	if in.Category == "" {
		return in, &InputError{Field: "category", Msg: "a learning needs a category (" + strings.Join(LearningCategories, ", ") + ")"}
	}
	if !isCategory(in.Category) {
		return in, &InputError{Field: "category", Msg: fmt.Sprintf("category %q must be a lowercase word such as pitfall or tool_usage", in.Category)}
	}
	tags, err := NormalizeTags(in.Tags)
	if err != nil {
		return in, err
	}
	if len(tags) == 0 {
		return in, &InputError{Field: "tags", Msg: "a learning needs at least one tag"}
	}
	in.Tags = tags
	in.Task = strings.TrimSpace(in.Task)
	if in.Body, err = normalizeContent(in.Body); err != nil {
		return in, &InputError{Field: "body", Msg: strings.Replace(err.(*InputError).Msg, "content", "body", 1)}
	}
	if in.Status == "" {
		in.Status = "active"
	}
	if !contains(LearningStatuses, in.Status) {
		return in, &InputError{Field: "status", Msg: fmt.Sprintf("status %q must be one of %s", in.Status, strings.Join(LearningStatuses, ", "))}
	}
	if in.Kind != "" && !contains(LearningKinds, in.Kind) {
		return in, &InputError{Field: "kind", Msg: fmt.Sprintf("kind %q must be one of %s", in.Kind, strings.Join(LearningKinds, ", "))}
	}
	if err := refuseSecrets("learning", append([]string{in.Body, in.Task}, in.Tags...)...); err != nil {
		return in, err
	}
	return in, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// parseLearning reads one learning file.
func parseLearning(data []byte, path string) (Learning, error) {
	d, err := parseFrontmatter(data, path)
	if err != nil {
		return Learning{}, err
	}
	l := Learning{Path: path}
	l.ID = d.str("id", true)
	if l.ID != "" && !ValidLearningID(l.ID) {
		d.problem(d.fieldLine("id"), "id %q must be l- and 6 hex digits", l.ID)
	}
	if want := strings.TrimSuffix(path[strings.LastIndexByte(path, '/')+1:], ".md"); l.ID != "" && l.ID != want {
		d.problem(d.fieldLine("id"), "id %q does not match the file name %s.md", l.ID, want)
	}
	l.Category = d.str("category", true)
	if l.Category != "" && !isCategory(l.Category) {
		d.problem(d.fieldLine("category"), "category %q must be a lowercase word", l.Category)
	}
	l.Tags = d.tags("tags", true, false)
	l.Task = d.str("task", false)
	l.CreatedAt = d.timestamp("created_at", false)
	l.Status = d.enum("status", LearningStatuses)
	if l.Status == "" {
		l.Status = "active"
	}
	l.SupersededBy = d.str("superseded_by", false)
	if l.SupersededBy != "" && !ValidLearningID(l.SupersededBy) {
		d.problem(d.fieldLine("superseded_by"), "superseded_by %q must be a learning id (l- and 6 hex digits)", l.SupersededBy)
	}
	l.Kind = d.enum("kind", LearningKinds)
	l.TaskType = d.str("task_type", false)
	if f, ok := d.fraction("confidence"); ok {
		l.Confidence = &f
	}
	if f, ok := d.fraction("success_rate"); ok {
		l.SuccessRate = &f
	}
	l.SourceRuns = d.list("source_runs")
	l.Body = strings.TrimSpace(d.body)
	if l.Body == "" {
		d.problems = append(d.problems, Warning{Path: path, Line: 1, Message: "learning has no body"})
	}
	if err := d.err(); err != nil {
		return Learning{}, err
	}
	return l, nil
}

func renderLearning(l Learning) []byte {
	w := newFrontmatterWriter()
	w.plain("id", l.ID)
	w.plain("category", l.Category)
	w.list("tags", l.Tags, true)
	w.str("task", l.Task)
	w.str("created_at", l.CreatedAt)
	w.plain("status", l.Status)
	w.plain("superseded_by", l.SupersededBy)
	w.plain("kind", l.Kind)
	w.str("task_type", l.TaskType)
	if l.Confidence != nil {
		w.plain("confidence", strconv.FormatFloat(*l.Confidence, 'f', -1, 64))
	}
	if l.SuccessRate != nil {
		w.plain("success_rate", strconv.FormatFloat(*l.SuccessRate, 'f', -1, 64))
	}
	w.list("source_runs", l.SourceRuns, false)
	return w.done(l.Body)
}

// LearningWords are the words of a learning that count for near-duplicate
// detection: lowercase, longer than two characters.
func LearningWords(text string) map[string]bool {
	words := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len([]rune(w)) > 2 {
			words[w] = true
		}
	}
	return words
}

// wordOverlap is the Jaccard similarity of two word sets.
func wordOverlap(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	common := 0
	for w := range a {
		if b[w] {
			common++
		}
	}
	return float64(common) / float64(len(a)+len(b)-common)
}

// NearDuplicateLearnings says whether two learnings say the same thing:
// the same category and more than 80% of their words shared (seed 002).
func NearDuplicateLearnings(a, b Learning) bool {
	return a.Category == b.Category && NearDuplicateWords(LearningWords(a.Body), LearningWords(b.Body))
}

// NearDuplicateWords says whether two learnings' words (LearningWords)
// make them near duplicates: more than 80% shared. Sets whose sizes
// differ by more than that are told apart without comparing words.
func NearDuplicateWords(a, b map[string]bool) bool {
	small, large := min(len(a), len(b)), max(len(a), len(b))
	if float64(small) <= 0.8*float64(large) { // the overlap is at most small/large
		return false
	}
	return wordOverlap(a, b) > 0.8
}

// findNearDuplicateLearning returns the active or staged learning of the
// same category whose words overlap the body's by more than 80%.
func findNearDuplicateLearning(existing []Learning, category, body string) (Learning, bool) {
	words := LearningWords(body)
	for _, l := range existing {
		if l.Category != category || (l.Status != "active" && l.Status != "staged") {
			continue
		}
		if NearDuplicateWords(words, LearningWords(l.Body)) {
			return l, true
		}
	}
	return Learning{}, false
}
