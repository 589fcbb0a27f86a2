// Package sigils parses what an agent says at the end of an iteration:
// XML-style tags such as <task-done>, <journal>, <knowledge tags title> or
// <failure-report>, embedded anywhere in its output (seeds 000 and 002).
//
// Only real sigils count. A tag inside inline code or a fenced code
// block is text the agent is showing, not saying (code.go: the code is
// CommonMark's, found by internal/markdown); a sigil that
// is one of the examples of lore's own instructions, or a task sigil whose
// id is a placeholder such as ID, is an echo of the prompt (echo.go).
// These are Ignored, each with its line and why.
//
// Parsing never fails, and never drops anything silently: a sigil that
// makes nothing — not closed, attributes that do not parse, a missing
// title or tags, an empty body, an unknown difficulty, a later copy of a
// sigil that occurs once — is Skipped with its line and the reason. Of
// the task sigils (<task-done>, <task-failed>) the last one counts; of the
// other sigils that occur once the first valid one does (seed 002);
// <knowledge> and <learning> are all returned in order. Content is
// trimmed.
package sigils

import (
	"fmt"
	"sort"
	"strings"
)

// Result is everything recognised in one iteration's output.
type Result struct {
	// Task is the task sigil that counts: the last one. Its Outcome is ""
	// when the output has none.
	Task            Task
	NextModel       string // <next-model>: the model the agent asks for next
	Journal         string // <journal> notes
	Knowledge       []Knowledge
	Learnings       []Learning
	FailureReport   *FailureReport // possibly partial: see Complete
	RetrySuggestion string
	Difficulty      string // one of Difficulties, "" when absent or invalid
	// Skipped are the sigils that made nothing, and why.
	Skipped []Skip
	// Ignored are tags that look like sigils and are not: in code, an
	// echo of lore's instructions, a task sigil holding a placeholder.
	Ignored []Skip
	// Overruled are the task sigils a later one overruled; the reason
	// names the one that counts.
	Overruled []Skip
	// Promise is the completion marker of a loop that does not speak
	// lore's sigils (<promise>COMPLETE</promise>, on a line of its own;
	// the last one counts).
	Promise Promise
	// Lines are the lines of the sigils that occur once and count
	// (journal, next-model, retry-suggestion, difficulty-estimate,
	// failure-report).
	Lines map[string]int
}

// Empty reports whether the output holds no sigil that counts.
func (r Result) Empty() bool {
	return r.Task.Outcome == "" && r.NextModel == "" && r.Journal == "" && len(r.Knowledge) == 0 &&
		len(r.Learnings) == 0 && r.FailureReport == nil && r.RetrySuggestion == "" && r.Difficulty == "" && r.Promise.Value == ""
}

// Promise is a <promise>VALUE</promise>: the marker Ralph loops ask an
// agent for when the work is over. Complete says it is (COMPLETE, DONE,
// ITERATION_DONE: the iteration's task is done); "BLOCKED: why" is not.
type Promise struct {
	Value string
	Line  int
}

// Complete reports whether the promise says the work it was asked for is
// done.
func (p Promise) Complete() bool {
	switch strings.ToUpper(strings.TrimSpace(p.Value)) {
	case "COMPLETE", "COMPLETED", "DONE", "ITERATION_DONE", "TASK_COMPLETE", "ALL_TASKS_COMPLETE":
		return true
	}
	return false
}

// Task is a <task-done>ID</task-done> or <task-failed>ID</task-failed>.
type Task struct {
	Outcome string // "done" or "failed"; "" for none
	ID      string
	Line    int
}

// Sigil is the tag's name: task-done or task-failed.
func (t Task) Sigil() string { return "task-" + t.Outcome }

// Skip is one sigil that made nothing, or one tag that is not a sigil:
// the tag's name, the line of the output its opening tag is on (from 1),
// and why.
type Skip struct {
	Sigil  string `json:"sigil"`
	Line   int    `json:"line"`
	Reason string `json:"reason"`
}

// Knowledge is one <knowledge tags="…" title="…">body</knowledge>.
type Knowledge struct {
	Title string
	Tags  []string // lowercased, trimmed, without empties
	Body  string
	Line  int
	Cites []string // its cites="a.go,b.go:10-20" (or files="…"): what it is about
}

// Learning is one <learning category="…" tags="…">body</learning>.
type Learning struct {
	Category string // as written; unknown categories are kept
	Tags     []string
	Body     string
	Line     int
	Cites    []string // as Knowledge's
}

// cited is a sigil's cites="…" or files="…" attribute, as a list.
func cited(el element) []string {
	return append(splitList(el.attrs["cites"], false), splitList(el.attrs["files"], false)...)
}

// MaxStackTrace is how many characters of a stack trace are kept.
const MaxStackTrace = 500

// maxOpenTag bounds an opening tag with its attributes, so that a long
// output full of malformed tags is still read in linear time.
const maxOpenTag = 4096

// Difficulties are the values <difficulty-estimate> accepts.
var Difficulties = []string{"trivial", "easy", "moderate", "hard", "blocked"}

// Names are the sigils lore reads.
var Names = []string{"task-done", "task-failed", "next-model", "journal", "retry-suggestion",
	"difficulty-estimate", "failure-report", "knowledge", "learning", "promise"}

// Parse reads every sigil in text.
func Parse(text string) Result {
	var r Result
	lines := newLineIndex(text)
	elements, skipped, ignored := scan(text, lines)
	r.Skipped, r.Ignored = skipped, ignored
	once := map[string]int{} // sigil → line of the one that counts
	r.Lines = once
	var tasks []Task
	var partial *FailureReport
	for _, el := range elements {
		if why := echoOf(el); why != "" {
			r.ignore(el, why)
			continue
		}
		switch el.name {
		case "knowledge":
			title, tags := strings.TrimSpace(el.attrs["title"]), splitList(el.attrs["tags"], true)
			if why := missing(part{"title", title == ""}, part{"tags", len(tags) == 0}, part{"body", el.content == ""}); why != "" {
				r.skip(el, why)
				continue
			}
			r.Knowledge = append(r.Knowledge, Knowledge{Title: title, Tags: tags, Body: el.content, Line: el.line, Cites: cited(el)})
		case "learning":
			category, tags := strings.TrimSpace(el.attrs["category"]), splitList(el.attrs["tags"], false)
			if why := missing(part{"category", category == ""}, part{"tags", len(tags) == 0}, part{"body", el.content == ""}); why != "" {
				r.skip(el, why)
				continue
			}
			r.Learnings = append(r.Learnings, Learning{Category: category, Tags: tags, Body: el.content, Line: el.line, Cites: cited(el)})
		case "failure-report":
			if line, ok := once[el.name]; ok {
				r.skip(el, fmt.Sprintf("only the first complete <failure-report> counts (line %d)", line))
				continue
			}
			fr := parseFailureReport(el.content)
			fr.Line = el.line
			switch {
			case fr.Complete():
				r.FailureReport, once[el.name] = &fr, el.line
			case fr.empty():
				r.skip(el, "no what_tried, why_failed, error_category, relevant_files or stack_trace line in it")
			case partial != nil:
				r.skip(el, fmt.Sprintf("incomplete, like the one at line %d that is kept", partial.Line))
			default:
				partial = &fr
				r.skip(el, "no "+strings.Join(fr.Missing(), " and ")+": what it does say is kept")
			}
		default:
			if len(el.attrs) > 0 {
				r.skip(el, "<"+el.name+"> takes no attributes")
				continue
			}
			if el.content == "" {
				r.skip(el, "empty")
				continue
			}
			if el.name == "promise" {
				// On a line of its own: in a sentence ("I will say
				// <promise>COMPLETE</promise> once …") it is talk.
				if !aloneOnLine(text, el) {
					r.ignore(el, "not on a line of its own: a completion marker is said alone")
					continue
				}
				r.Promise = Promise{Value: el.content, Line: el.line}
				continue
			}
			if el.name == "task-done" || el.name == "task-failed" {
				if strings.ContainsAny(el.content, "\n\r") {
					r.skip(el, "a task id is one line")
					continue
				}
				if why := taskIDProblem(el.content); why != "" {
					r.ignore(el, why)
					continue
				}
				tasks = append(tasks, Task{Outcome: strings.TrimPrefix(el.name, "task-"), ID: el.content, Line: el.line})
				continue
			}
			value, why := checkSimple(el.name, el.content)
			if why != "" {
				r.skip(el, why)
				continue
			}
			if line, ok := once[el.name]; ok {
				r.skip(el, fmt.Sprintf("only the first <%s> counts (line %d)", el.name, line))
				continue
			}
			once[el.name] = el.line
			switch el.name {
			case "next-model":
				r.NextModel = value
			case "journal":
				r.Journal = value
			case "retry-suggestion":
				r.RetrySuggestion = value
			case "difficulty-estimate":
				r.Difficulty = value
			}
		}
	}
	if r.FailureReport == nil {
		r.FailureReport = partial
	}
	r.chooseTask(tasks)
	sortSkips(r.Skipped)
	sortSkips(r.Ignored)
	return r
}

// aloneOnLine reports whether el's tags are all its lines hold.
func aloneOnLine(text string, el element) bool {
	lineStart := strings.LastIndexByte(text[:el.start], '\n') + 1
	end := strings.Index(text[el.start:], "</promise>")
	if end < 0 {
		return false
	}
	end += el.start + len("</promise>")
	lineEnd := strings.IndexByte(text[end:], '\n')
	if lineEnd < 0 {
		lineEnd = len(text) - end
	}
	return strings.TrimSpace(text[lineStart:el.start]) == "" && strings.TrimSpace(text[end:end+lineEnd]) == ""
}

// chooseTask keeps the last task sigil and says why each other one was
// ignored, naming both when one output reports one task done and failed.
func (r *Result) chooseTask(tasks []Task) {
	if len(tasks) == 0 {
		return
	}
	last := tasks[len(tasks)-1]
	r.Task = last
	for _, t := range tasks[:len(tasks)-1] {
		why := fmt.Sprintf("a later task sigil counts: <%s>%s</%s> at line %d", last.Sigil(), last.ID, last.Sigil(), last.Line)
		if t.ID == last.ID && t.Outcome != last.Outcome {
			why = fmt.Sprintf("the output also reports <%s>%s</%s> at line %d, and the last task sigil counts", last.Sigil(), last.ID, last.Sigil(), last.Line)
		}
		r.Overruled = append(r.Overruled, Skip{Sigil: t.Sigil(), Line: t.Line, Reason: why})
	}
}

// checkSimple judges the content of a sigil that holds one value.
func checkSimple(name, content string) (string, string) {
	switch name {
	case "next-model":
		if strings.ContainsAny(content, "\n\r") {
			return "", "a model name is one line"
		}
	case "difficulty-estimate":
		value := strings.ToLower(content)
		for _, d := range Difficulties {
			if value == d {
				return value, ""
			}
		}
		return "", fmt.Sprintf("unknown difficulty %s (want %s)", quote(content), strings.Join(Difficulties, ", "))
	}
	return content, ""
}

// part is one thing a sigil needs, and whether it lacks it.
type part struct {
	name    string
	missing bool
}

// missing names the parts a sigil lacks ("no title and no tags"), "" when
// it has them all.
func missing(parts ...part) string {
	var lacks []string
	for _, p := range parts {
		if p.missing {
			lacks = append(lacks, p.name)
		}
	}
	if len(lacks) == 0 {
		return ""
	}
	return "no " + strings.Join(lacks, " and no ")
}

func (r *Result) skip(el element, why string) {
	r.Skipped = append(r.Skipped, Skip{Sigil: el.name, Line: el.line, Reason: why})
}

func (r *Result) ignore(el element, why string) {
	r.Ignored = append(r.Ignored, Skip{Sigil: el.name, Line: el.line, Reason: why})
}

func sortSkips(s []Skip) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].Line < s[j].Line })
}

// quote shows a value in a reason, cut to 40 characters.
func quote(s string) string {
	if r := []rune(s); len(r) > 40 {
		s = string(r[:40]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// splitList reads a comma-separated attribute or field: each item
// trimmed, empties dropped, lowercased when asked.
func splitList(s string, lower bool) []string {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if lower {
			t = strings.ToLower(t)
		}
		if t != "" {
			out = append(out, t)
		}
	}
	return out
}

// TruncateTrace cuts error output to the MaxStackTrace characters that are
// stored, never inside a character.
func TruncateTrace(s string) string {
	count := 0
	for i := range s {
		if count == MaxStackTrace {
			return s[:i]
		}
		count++
	}
	return s
}
