package sigils

import (
	"strings"

	"lore/internal/markdown"
)

// FailureReport is the content of <failure-report>: one "key: value" per
// line (seed 002). WhatTried and WhyFailed are required: a report that
// lacks one is kept for what it does say, and Complete is false.
type FailureReport struct {
	WhatTried     string
	WhyFailed     string
	ErrorCategory string // "unknown" when not given
	RelevantFiles []string
	StackTrace    string // at most MaxStackTrace characters
	Line          int    // of its opening tag
}

// Complete reports whether the report says both what was tried and why
// it failed.
func (f FailureReport) Complete() bool { return f.WhatTried != "" && f.WhyFailed != "" }

// Missing names the required fields the report lacks.
func (f FailureReport) Missing() []string {
	var out []string
	if f.WhatTried == "" {
		out = append(out, "what_tried")
	}
	if f.WhyFailed == "" {
		out = append(out, "why_failed")
	}
	return out
}

func (f FailureReport) empty() bool {
	return f.WhatTried == "" && f.WhyFailed == "" && f.ErrorCategory == "unknown" && len(f.RelevantFiles) == 0 && f.StackTrace == ""
}

// failureKeys are the fields of <failure-report>.
var failureKeys = map[string]bool{"what_tried": true, "why_failed": true, "error_category": true, "relevant_files": true, "stack_trace": true}

// parseFailureReport reads a report the way agents write one. A line
// "key: value" starts a field — a known key in any case, with spaces or
// hyphens for underscores, after a list bullet or in bold; the first of a
// repeated key counts. A snake_case key lore does not know (root_cause:,
// next_steps:) is ignored and ends the field before it (seed 002: unknown
// keys are ignored). Other lines continue the field: a stack_trace keeps
// its lines (blank ones too, and code fences are dropped), relevant_files
// takes one file per "- " line, and the others are joined by spaces.
// relevant_files may be "a, b", "[a, b]" or `["a", "b"]`.
func parseFailureReport(content string) FailureReport {
	fields := map[string][]string{}
	current := ""
	fence := "" // the fence of a code block inside the report
	for _, line := range strings.Split(content, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if fence != "" {
			if markdown.Closes(line, fence) {
				fence = ""
			} else if current != "" {
				fields[current] = append(fields[current], line)
			}
			continue
		}
		if f, _ := markdown.Fence(line); f != "" {
			fence = f
			continue
		}
		if key, value, ok := fieldLine(line, current == "stack_trace"); ok {
			current = ""
			if failureKeys[key] {
				if _, seen := fields[key]; !seen {
					current = key
					fields[key] = nil
					switch value {
					case "|", ">", "|-", ">-": // YAML block markers
						value = ""
					}
					if f, _ := markdown.Fence(value); f != "" {
						fence, value = f, ""
					}
					if value != "" {
						fields[key] = append(fields[key], value)
					}
				}
			}
			continue
		}
		if current == "" {
			continue
		}
		if strings.TrimSpace(line) == "" && current != "stack_trace" {
			current = ""
			continue
		}
		fields[current] = append(fields[current], line)
	}
	f := FailureReport{
		WhatTried:     joinWords(fields["what_tried"]),
		WhyFailed:     joinWords(fields["why_failed"]),
		ErrorCategory: joinWords(fields["error_category"]),
		RelevantFiles: fileList(fields["relevant_files"]),
		StackTrace:    TruncateTrace(trimBlankLines(fields["stack_trace"])),
	}
	if f.ErrorCategory == "" {
		f.ErrorCategory = "unknown"
	}
	return f
}

// fieldWords are the one-word keys agents add to a failure report
// (seed 002: ignored): in a stack trace, a line "word: …" is a key only
// when the word is one of these — "panic: …", "bash: …" or "migrate: …"
// are lines of error output.
var fieldWords = map[string]bool{
	"notes": true, "severity": true, "attempts": true, "attempt": true, "cause": true,
	"impact": true, "suggestion": true, "suggestions": true, "hypothesis": true,
	"summary": true, "fix": true, "workaround": true, "priority": true, "confidence": true,
	"reproduction": true, "repro": true, "steps": true, "next": true, "tried": true, "blockers": true,
}

// fieldLine reads "key: value" and returns the key normalised (lower
// case, underscores). A key is a known one written loosely, or an
// identifier followed by ": " — in a stack trace, only a lower-case
// snake_case one or one of fieldWords ("Error: x", "panic: y", "bash: z"
// are lines of the trace).
func fieldLine(line string, inTrace bool) (key, value string, ok bool) {
	s := strings.TrimLeft(line, " \t")
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "* ") {
		s = s[2:]
	}
	raw, value, found := strings.Cut(s, ":")
	if !found {
		return "", "", false
	}
	raw = strings.Trim(raw, "*_`")
	key = strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(raw))
	if failureKeys[key] {
		return key, strings.TrimSpace(strings.Trim(strings.TrimSpace(value), "*")), true
	}
	if raw == "" || (inTrace && (raw != strings.ToLower(raw) || !strings.Contains(raw, "_") && !fieldWords[raw])) || !(value == "" || value[0] == ' ' || value[0] == '\t') {
		return "", "", false
	}
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", "", false
		}
	}
	return key, "", true
}

func joinWords(lines []string) string {
	var words []string
	for _, l := range lines {
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

// trimBlankLines joins a field's lines, without the blank ones that start
// or end it; the lines keep their indentation.
func trimBlankLines(lines []string) string {
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 0 {
		lines[0] = strings.TrimLeft(lines[0], " \t")
	}
	return strings.Join(lines, "\n")
}

// fileList reads relevant_files: items separated by commas, the whole in
// [brackets] or not, each in quotes or backticks or not, or one per
// "- " line.
func fileList(lines []string) []string {
	out := []string{}
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") {
			l = l[2:]
		}
		l = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(l), "["), "]")
		for _, item := range strings.Split(l, ",") {
			item = strings.Trim(strings.TrimSpace(item), "\"'`")
			if item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}
