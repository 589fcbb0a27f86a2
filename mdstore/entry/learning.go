package entry

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"lore/internal/words"
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
	err := check.Texts(TextField{Name: "category", Value: &in.Category}, TextField{Name: "task", Value: &in.Task}, TextField{Name: "body", Value: &in.Body},
		TextField{Name: "status", Value: &in.Status}, TextField{Name: "kind", Value: &in.Kind}, TextField{Name: "task_type", Value: &in.TaskType})
	if err != nil {
		return in, err
	}
	if err := check.List("tags", &in.Tags); err != nil {
		return in, err
	}
	if err := check.List("source_runs", &in.Runs); err != nil {
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
	return in, nil
}

// parseLearning reads one learning file.
func ParseLearning(data []byte, path string) (Learning, error) {
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
	l.StatusReason = d.str("status_reason", false)
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

func RenderLearning(l Learning) []byte {
	w := newFrontmatterWriter()
	w.plain("id", l.ID)
	w.plain("category", l.Category)
	w.list("tags", l.Tags, true)
	w.str("task", l.Task)
	w.str("created_at", l.CreatedAt)
	w.plain("status", l.Status)
	w.str("status_reason", l.StatusReason)
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

// Duplicates tells whether a learning says nearly what one of a list of
// learnings says: the same category and more than 80% of their keywords
// in common (seed 002). Each learning's keywords are taken once.
//
// A question costs what the few learnings that could be its duplicates
// cost, not the whole list (prefix filtering): two sets with more than 80%
// in common share a word among the first |set| - ⌊0.8|set|⌋ words of
// each, in any fixed order of words, so each learning is filed under
// those words only and a question looks at the learnings filed under its
// own. The order puts rare words first (NewDuplicates), so that the
// lists stay short.
type Duplicates struct {
	categories []string
	words      []map[string]bool
	filed      map[string][]int // word → positions of learnings filed under it
	// frequency orders words: rarer first, then alphabetical. It is
	// fixed when the first learning is added.
	frequency map[string]int
	// expected holds the keywords of the bodies NewDuplicates counted,
	// so that each is taken once
	expected map[string]*keyed
	// the last other body asked about, for the Add or Set that follows
	lastBody string
	last     *keyed
}

// keyed is a body's keywords and, once asked for, its prefix.
type keyed struct {
	words  map[string]bool
	prefix []string
	filed  bool // prefix is set
}

// NewDuplicates returns an empty list that expects learnings like bodies
// (the ones that will be added or asked about), whose words it counts to
// order them. The zero Duplicates orders words alphabetically, which
// gives the same answers, more slowly on a long list of similar words.
func NewDuplicates(bodies ...string) *Duplicates {
	d := &Duplicates{frequency: map[string]int{}, expected: make(map[string]*keyed, len(bodies))}
	for _, b := range bodies {
		if d.expected[b] != nil {
			continue
		}
		k := &keyed{words: KeywordSet(b)}
		d.expected[b] = k
		for w := range k.words {
			d.frequency[w]++
		}
	}
	return d
}

// Of returns the position of the first learning of the list that a
// learning of this category and body nearly duplicates, or -1.
func (d *Duplicates) Of(category, body string) int {
	k := d.keyed(body)
	w := k.words
	best := -1
	for _, word := range d.prefixOf(k) {
		for _, i := range d.filed[word] {
			if (best < 0 || i < best) && d.categories[i] == category && NearDuplicateWords(w, d.words[i]) {
				best = i
			}
		}
	}
	return best
}

// Add appends a learning to the list.
func (d *Duplicates) Add(category, body string) {
	d.categories = append(d.categories, category)
	d.words = append(d.words, nil)
	d.Set(len(d.categories)-1, category, body)
}

// Set replaces the learning at position i. What it was filed under before
// is left: Of checks every learning it finds against what it is now.
func (d *Duplicates) Set(i int, category, body string) {
	k := d.keyed(body)
	d.categories[i], d.words[i] = category, k.words
	if d.filed == nil {
		d.filed = map[string][]int{}
	}
	for _, word := range d.prefixOf(k) {
		if list := d.filed[word]; len(list) == 0 || list[len(list)-1] != i {
			d.filed[word] = append(list, i)
		}
	}
}

// Len is how many learnings the list holds.
func (d *Duplicates) Len() int { return len(d.categories) }

// prefixOf is the words a body's keywords are filed and looked up under:
// the first len(w) - ⌊0.8·len(w)⌋ in the list's order of words (rarer
// first, then alphabetical), worked out once per body.
func (d *Duplicates) prefixOf(k *keyed) []string {
	if k.filed {
		return k.prefix
	}
	type counted struct {
		word string
		n    int
	}
	words := make([]counted, 0, len(k.words))
	for w := range k.words {
		words = append(words, counted{w, d.frequency[w]})
	}
	slices.SortFunc(words, func(a, b counted) int {
		if a.n != b.n {
			return cmp.Compare(a.n, b.n)
		}
		return strings.Compare(a.word, b.word)
	})
	k.prefix = make([]string, len(words)-len(words)*4/5)
	for i := range k.prefix {
		k.prefix[i] = words[i].word
	}
	k.filed = true
	return k.prefix
}

// keyed is body's keywords: counted by NewDuplicates, or taken now.
func (d *Duplicates) keyed(body string) *keyed {
	if k := d.expected[body]; k != nil {
		return k
	}
	if d.last != nil && body == d.lastBody {
		return d.last
	}
	d.lastBody, d.last = body, &keyed{words: KeywordSet(body)}
	return d.last
}

func KeywordSet(body string) map[string]bool {
	w := map[string]bool{}
	for _, k := range words.Keywords(body) {
		w[k] = true
	}
	return w
}

// learningWords is a learning's keywords as the near-duplicate check of
// a write compares them (the blob cache keeps them): distinct, sorted,
// each between spaces (" cache redis ttl "), so that a word is found by
// looking for it between spaces; "" when there are none.
func LearningWords(body string) string {
	set := KeywordSet(body)
	if len(set) == 0 {
		return ""
	}
	ws := make([]string, 0, len(set))
	for w := range set {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	return " " + strings.Join(ws, " ") + " "
}

// wordsAsked is a learning asked about, for comparing with learningWords:
// its keywords, and the few of them (between spaces) one of which any
// near-duplicate must hold — more than 80% shared leaves fewer than
// len(w) - ⌊0.8·len(w)⌋ of them out, so a set of that many, here the
// longest, cannot be left out whole.
type wordsAsked struct {
	w      map[string]bool
	filter []string
}

func AskWords(body string) wordsAsked {
	a := wordsAsked{w: KeywordSet(body)}
	ws := make([]string, 0, len(a.w))
	for w := range a.w {
		ws = append(ws, w)
	}
	slices.SortFunc(ws, func(x, y string) int {
		if len(x) != len(y) {
			return cmp.Compare(len(y), len(x))
		}
		return strings.Compare(x, y)
	})
	for _, w := range ws[:len(ws)-len(ws)*4/5] {
		a.filter = append(a.filter, " "+w+" ")
	}
	return a
}

// nearDuplicateOf says what nearDuplicateWords says of a's keywords and
// those of learningWords words, reading words only when it holds one of
// a's filter words.
func (a wordsAsked) NearDuplicateOf(words string) bool {
	n := strings.Count(words, " ") - 1
	small, large := min(len(a.w), n), max(len(a.w), n)
	if small <= 0 || float64(small) <= 0.8*float64(large) {
		return false
	}
	held := false
	for _, f := range a.filter {
		if strings.Contains(words, f) {
			held = true
			break
		}
	}
	if !held {
		return false
	}
	common := 0
	for _, w := range strings.Fields(words) {
		if a.w[w] {
			common++
		}
	}
	return float64(common)/float64(len(a.w)+n-common) > 0.8
}

// nearDuplicateWords says whether two learnings' keywords make them near
// duplicates: more than 80% shared (Jaccard). Sets whose sizes differ by
// more than that are told apart without comparing words.
func NearDuplicateWords(a, b map[string]bool) bool {
	small, large := min(len(a), len(b)), max(len(a), len(b))
	if small == 0 || float64(small) <= 0.8*float64(large) { // the overlap is at most small/large
		return false
	}
	common := 0
	for w := range a {
		if b[w] {
			common++
		}
	}
	return float64(common)/float64(len(a)+len(b)-common) > 0.8
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
