// Package sigils parses what an agent says at the end of an iteration:
// XML-style tags such as <task-done>, <journal>, <knowledge tags title> or
// <failure-report>, embedded anywhere in its output (seeds 000 and 002).
//
// Parsing never fails. A malformed or empty sigil is skipped; for sigils
// that occur once, the first valid occurrence wins; repeatable sigils
// (<knowledge>, <learning>) are all returned in order. Content is trimmed.
// The package uses the standard library only.
package sigils

import (
	"strings"
)

// Result is everything recognised in one iteration's output.
type Result struct {
	TaskDone        string // the id in <task-done>, "" when absent
	TaskFailed      string // the id in <task-failed>, "" when absent
	NextModel       string // <next-model>: the model the agent asks for next
	Journal         string // <journal> notes
	Knowledge       []Knowledge
	Learnings       []Learning
	FailureReport   *FailureReport
	RetrySuggestion string
	Difficulty      string // one of Difficulties, "" when absent or invalid
}

// Knowledge is one <knowledge tags="…" title="…">body</knowledge>.
type Knowledge struct {
	Title string
	Tags  []string // lowercased, trimmed, without empties
	Body  string
}

// Learning is one <learning category="…" tags="…">body</learning>.
type Learning struct {
	Category string // as written; unknown categories are kept
	Tags     []string
	Body     string
}

// FailureReport is the content of <failure-report>: one "key: value" per
// line. WhatTried and WhyFailed are required.
type FailureReport struct {
	WhatTried     string
	WhyFailed     string
	ErrorCategory string // "unknown" when not given
	RelevantFiles []string
	StackTrace    string // at most MaxStackTrace characters
}

// MaxStackTrace is how many characters of a stack trace are kept.
const MaxStackTrace = 500

// maxOpenTag bounds an opening tag with its attributes, so that a long
// output full of malformed tags is still read in linear time.
const maxOpenTag = 4096

// Difficulties are the values <difficulty-estimate> accepts.
var Difficulties = []string{"trivial", "easy", "moderate", "hard", "blocked"}

// Parse reads every sigil in text.
func Parse(text string) Result {
	var r Result
	r.TaskDone = firstSimple(text, "task-done", nil)
	r.TaskFailed = firstSimple(text, "task-failed", nil)
	r.NextModel = firstSimple(text, "next-model", func(s string) bool { return !strings.ContainsAny(s, "\n\r") })
	r.Journal = firstSimple(text, "journal", nil)
	r.RetrySuggestion = firstSimple(text, "retry-suggestion", nil)
	r.Difficulty = firstSimple(text, "difficulty-estimate", func(s string) bool {
		for _, d := range Difficulties {
			if s == d {
				return true
			}
		}
		return false
	})
	for _, el := range elements(text, "failure-report") {
		if fr, ok := parseFailureReport(el.content); ok {
			r.FailureReport = &fr
			break
		}
	}
	for _, el := range elements(text, "knowledge") {
		title, okTitle := el.attrs["title"]
		tags := splitTags(el.attrs["tags"], true)
		title = strings.TrimSpace(title)
		if okTitle && title != "" && len(tags) > 0 && el.content != "" {
			r.Knowledge = append(r.Knowledge, Knowledge{Title: title, Tags: tags, Body: el.content})
		}
	}
	for _, el := range elements(text, "learning") {
		category := strings.TrimSpace(el.attrs["category"])
		tags := splitTags(el.attrs["tags"], false)
		if category != "" && len(tags) > 0 && el.content != "" {
			r.Learnings = append(r.Learnings, Learning{Category: category, Tags: tags, Body: el.content})
		}
	}
	return r
}

// firstSimple returns the trimmed content of the first <name>…</name> that
// is non-empty and passes valid (nil accepts anything).
func firstSimple(text, name string, valid func(string) bool) string {
	for _, el := range elements(text, name) {
		if el.content == "" || len(el.attrs) > 0 {
			continue
		}
		if valid == nil || valid(el.content) {
			return el.content
		}
	}
	return ""
}

func splitTags(s string, lower bool) []string {
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

// element is one <name attrs>content</name> found in the text.
type element struct {
	attrs   map[string]string
	content string // trimmed
}

// elements finds every well-formed <name …>…</name> in text, in order. An
// opening tag without a closing one, or with attributes that do not parse,
// is skipped and the search goes on after it. The scan is linear: the next
// closing tag is found once and reused, and an unclosed opening tag jumps
// straight to the one nested in it.
func elements(text, name string) []element {
	var out []element
	open, closeTag := "<"+name, "</"+name+">"
	nextClose := -2 // absolute position of the next closing tag; -2 unknown, -1 none
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], open)
		if i < 0 {
			break
		}
		start := pos + i
		pos = start + 1
		rest := text[start+len(open):]
		// The tag name must end here: <knowledge-base> is not <knowledge>.
		if rest == "" || !(rest[0] == '>' || isSpace(rest[0])) {
			continue
		}
		attrs, tagLen, ok := parseAttributes(rest)
		if !ok {
			continue
		}
		bodyStart := start + len(open) + tagLen
		if nextClose == -2 || (nextClose >= 0 && nextClose < bodyStart) {
			if j := strings.Index(text[bodyStart:], closeTag); j < 0 {
				nextClose = -1
			} else {
				nextClose = bodyStart + j
			}
		}
		if nextClose < 0 {
			break // nothing after this point is closed
		}
		body := text[bodyStart:nextClose]
		// A second opening tag before the closing one means this one was
		// never closed: <journal>a <journal>b</journal> yields "b".
		if nested := indexOpenTag(body, open); nested >= 0 {
			pos = bodyStart + nested
			continue
		}
		out = append(out, element{attrs: attrs, content: strings.TrimSpace(body)})
		pos = nextClose + len(closeTag)
	}
	return out
}

// indexOpenTag finds another opening tag of the same name.
func indexOpenTag(s, open string) int {
	for from := 0; ; {
		i := strings.Index(s[from:], open)
		if i < 0 {
			return -1
		}
		after := s[from+i+len(open):]
		if after == "" || after[0] == '>' || isSpace(after[0]) {
			return from + i
		}
		from += i + 1
	}
}

// parseAttributes reads name="value" or name='value' pairs up to the '>'
// that ends an opening tag. It returns the attributes and the length of
// the tag's rest including '>'.
func parseAttributes(s string) (map[string]string, int, bool) {
	if len(s) > maxOpenTag {
		s = s[:maxOpenTag] // a longer opening tag is malformed
	}
	attrs := map[string]string{}
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) {
			return nil, 0, false
		}
		if s[i] == '>' {
			return attrs, i + 1, true
		}
		start := i
		for i < len(s) && (isNameChar(s[i])) {
			i++
		}
		if i == start {
			return nil, 0, false
		}
		key := strings.ToLower(s[start:i])
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || s[i] != '=' {
			return nil, 0, false
		}
		i++
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i >= len(s) || (s[i] != '"' && s[i] != '\'') {
			return nil, 0, false
		}
		quote := s[i]
		i++
		end := strings.IndexByte(s[i:], quote)
		if end < 0 {
			return nil, 0, false
		}
		if _, dup := attrs[key]; !dup { // the first of a repeated attribute wins
			attrs[key] = s[i : i+end]
		}
		i += end + 1
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNameChar(c byte) bool {
	return c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// failureKeys are the fields of <failure-report>.
var failureKeys = map[string]bool{"what_tried": true, "why_failed": true, "error_category": true, "relevant_files": true, "stack_trace": true}

// parseFailureReport reads "key: value" lines. Unknown keys are ignored;
// lines after stack_trace that are not a known key continue the trace.
func parseFailureReport(content string) (FailureReport, bool) {
	var fr FailureReport
	fields := map[string]string{}
	current := ""
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimRight(line, "\r")
		key, value, found := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if found && failureKeys[key] {
			if _, seen := fields[key]; !seen {
				fields[key] = strings.TrimSpace(value)
			}
			current = key
			continue
		}
		if current == "stack_trace" && strings.TrimSpace(line) != "" {
			fields[current] += "\n" + strings.TrimRight(line, " \t")
			continue
		}
		current = ""
	}
	fr.WhatTried, fr.WhyFailed = fields["what_tried"], fields["why_failed"]
	if fr.WhatTried == "" || fr.WhyFailed == "" {
		return fr, false
	}
	fr.ErrorCategory = fields["error_category"]
	if fr.ErrorCategory == "" {
		fr.ErrorCategory = "unknown"
	}
	fr.RelevantFiles = splitTags(fields["relevant_files"], false)
	fr.StackTrace = TruncateTrace(strings.TrimSpace(fields["stack_trace"]))
	return fr, true
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
