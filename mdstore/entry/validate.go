package entry

import (
	"bytes"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"lore/internal/fsx"
	"lore/internal/words"
	"lore/mdstore/entry/yamlfm"
	"lore/secrets"
)

// Severity says whether a problem blocks a commit (error) or is only
// said (warning).
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Problem is one thing validation found in a store file.
type Problem struct {
	Path     string   `json:"path"`
	Line     int      `json:"line"` // 1-based; 0 for the whole file
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Rule names the secret rule that matched, for a secret.
	Rule string `json:"rule,omitempty"`
}

// String is the problem as compilers print them:
// "path:line: error: message".
func (p Problem) String() string {
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s: %s", p.Path, p.Severity, p.Message)
	}
	return fmt.Sprintf("%s:%d: %s: %s", p.Path, p.Line, p.Severity, p.Message)
}

// File is a store file to validate: from the worktree, or as the git
// index has it (what the next commit holds).
type File struct {
	Path string // slash-separated, relative to the store root
	Data []byte
	// Unmerged is set for a file the index holds in conflict stages.
	Unmerged bool
	// InHead is set for a staged file that HEAD holds as it is: the next
	// commit does not change it (see InChanges).
	InHead bool
	// Unreadable says why lore does not read this file or directory (Data
	// is then empty): "a symbolic link", "not a regular file (a named
	// pipe)", "larger than 1 MiB".
	Unreadable string
}

// Size caps. An entry is a note, not a log: a file past these is a
// mistake (a pasted build log, a binary) that every prime and search
// would carry.
const (
	MaxEntryFileBytes    = 64 << 10 // a knowledge, learning, journal or skill file
	MaxMemoriesFileBytes = 1 << 20  // memories.md: a warning past this
	MaxStackTraceChars   = 500      // seed 002: stack_trace is cut to 500 characters
)

// Validate checks files — each kind's format, ids, size caps, leftover
// conflict markers and secrets — and what holds across them (a learning
// superseded by one that does not exist). Files outside the store
// (neither under .agent/ nor a skill) are not looked at. Problems come in
// path and line order. config.yaml and citations.md are judged by
// validateOther, which the packages that own their formats provide.
func Validate(files []File, validateOther func(File) []Problem) []Problem {
	var out []Problem
	learningIDs := map[string]bool{}
	type supersede struct {
		path, by string
		line     int
	}
	var supersedes []supersede
	for _, f := range files {
		if !InStore(f.Path) && f.Unreadable == "" {
			continue
		}
		ps, l := validateFile(f, validateOther)
		out = append(out, ps...)
		if l != nil {
			learningIDs[l.ID] = true
			if l.SupersededBy != "" {
				supersedes = append(supersedes, supersede{f.Path, l.SupersededBy, fieldLine(f.Data, "superseded_by")})
			}
		}
	}
	for _, s := range supersedes {
		if !learningIDs[s.by] {
			out = append(out, Problem{Path: s.path, Line: s.line, Severity: SeverityError,
				Message: fmt.Sprintf("superseded_by %s: no such learning in the store (lore learning delete clears the links to the learning it deletes)", s.by)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// ValidateFile checks one file as Validate does, without the checks
// across files: what lore import asks of each file it would write.
func ValidateFile(f File) []Problem {
	ps, _ := validateFile(f, nil)
	return ps
}

// InChanges keeps the problems of the files the next commit changes
// (those not InHead) and counts the errors it leaves out. What a
// pre-commit hook judges is the commit: an error already in HEAD — a
// secret committed before the hook was installed, or with --no-verify —
// is not this commit's doing, and refusing every later commit for it,
// however unrelated, only teaches people to skip the hook. Validate over
// all the files still sees them (lore validate without --staged says
// them all).
func InChanges(files []File, ps []Problem) (changed []Problem, errorsElsewhere int) {
	inHead := map[string]bool{}
	for _, f := range files {
		if f.InHead {
			inHead[f.Path] = true
		}
	}
	for _, p := range ps {
		switch {
		case !inHead[p.Path]:
			changed = append(changed, p)
		case p.Severity == SeverityError:
			errorsElsewhere++
		}
	}
	return changed, errorsElsewhere
}

// HasErrors reports whether any problem is an error.
func HasErrors(ps []Problem) bool {
	for _, p := range ps {
		if p.Severity == SeverityError {
			return true
		}
	}
	return false
}

// validateFile checks one file; for a learning that parses it also
// returns the learning, for the checks across files.
func validateFile(f File, validateOther func(File) []Problem) ([]Problem, *Learning) {
	var out []Problem
	add := func(line int, sev Severity, format string, args ...any) {
		out = append(out, Problem{Path: f.Path, Line: line, Severity: sev, Message: fmt.Sprintf(format, args...)})
	}
	// lore resolve merges again, entry by entry, a file of .agent/ that
	// git merged by lines (a clone without lore's merge driver).
	resolve := ""
	if strings.HasPrefix(f.Path, Dir+"/") {
		resolve = "lore resolve merges it entry by entry, or "
	}
	if f.Unmerged {
		add(0, SeverityError, "unmerged: the merge left this file in conflict; %sresolve it by hand and git add it", resolve)
		return out, nil
	}
	markersHint := "resolve the conflict and remove the markers"
	if resolve != "" {
		markersHint += " (while git's merge is in progress, lore resolve merges the file entry by entry)"
	}
	if f.Unreadable != "" {
		hint := ""
		if f.Unreadable == fsx.ErrSymlink.Error() {
			hint = " (a link can point anywhere, /dev/zero or outside the repository); put the file or directory itself here"
		}
		add(0, SeverityError, "%s: lore does not read it and skips it%s", f.Unreadable, hint)
		return out, nil
	}
	if !utf8.Valid(f.Data) {
		add(invalidUTF8Line(f.Data), SeverityError, "not valid UTF-8: lore's files are UTF-8 text")
		return out, nil
	}
	if i := bytes.IndexByte(f.Data, 0); i >= 0 {
		add(1+bytes.Count(f.Data[:i], []byte{'\n'}), SeverityError, "a NUL byte: lore's files are text (git and lore would treat this one as binary)")
		return out, nil
	}
	text := string(f.Data)
	markers := false
	for i, line := range strings.Split(text, "\n") {
		if isConflictMarker(strings.TrimSuffix(line, "\r")) {
			add(i+1, SeverityError, "leftover conflict marker %q: %s", strings.Fields(line + " x")[0], markersHint)
			markers = true
		}
	}
	for _, s := range secrets.Scan(text) {
		out = append(out, Problem{Path: f.Path, Line: s.Line, Severity: SeverityError, Rule: s.Rule,
			Message: fmt.Sprintf("%s (rule %s): a secret must not be committed; remove it and rotate it if it was real", s.Description, s.Rule)})
	}
	if markers {
		return out, nil // the file's format cannot be judged until the conflict is resolved
	}
	kind := KindOf(f.Path)
	switch {
	case f.Path == ConfigPath || f.Path == CitesPath:
		if validateOther != nil {
			out = append(out, validateOther(f)...)
		}
		return out, nil
	case kind == "":
		if base := path.Base(f.Path); !strings.HasPrefix(base, ".") {
			add(0, SeverityWarning, "lore does not read this file (entries live in memories.md, knowledge/, learnings/, journal/<run>/ and skills/<name>/SKILL.md)")
		}
		return out, nil
	case kind == KindMemory:
		if len(f.Data) > MaxMemoriesFileBytes {
			add(0, SeverityWarning, "memories.md is %d KiB (over %d KiB): every prime reads it; delete memories that no longer help", len(f.Data)>>10, MaxMemoriesFileBytes>>10)
		}
		mf := ParseMemoriesFile(f.Data, f.Path)
		for _, w := range mf.Warnings {
			sev := SeverityError
			if w.Minor {
				sev = SeverityWarning
			}
			add(w.Line, sev, "%s", w.Message)
		}
		out = append(out, memoryProblems(f.Path, text, mf)...)
		return out, nil
	}
	if len(f.Data) > MaxEntryFileBytes {
		add(0, SeverityError, "the file is %d KiB, over the %d KiB an entry may be: keep entries short (a log belongs elsewhere)", len(f.Data)>>10, MaxEntryFileBytes>>10)
		return out, nil
	}
	parseErr := func(err error) {
		for _, w := range FileProblems(err, f.Path) {
			add(w.Line, SeverityError, "%s", w.Message)
		}
	}
	if fields := knownFields[kind]; fields != nil {
		if d, err := parseFrontmatter(f.Data, f.Path); err == nil {
			out = append(out, unknownFields(d, f.Path, fields)...)
		}
	}
	switch kind {
	case KindKnowledge:
		k, err := ParseKnowledge(f.Data, f.Path)
		if err != nil {
			parseErr(err)
			break
		}
		if !IsSlug(k.Slug) || len(k.Slug) > MaxSlugLength {
			add(0, SeverityWarning, "the file name %q is not a slug (lowercase letters, digits and single hyphens, at most %d characters): lore knowledge show cannot name it", k.Slug+".md", MaxSlugLength)
		}
		if n := len(strings.Fields(k.Body)); n > MaxKnowledgeWords {
			add(bodyLine(f.Data), SeverityWarning, "the body is %d words; knowledge entries are kept to about %d (lore knowledge add cuts them there)", n, MaxKnowledgeWords)
		}
	case KindLearning:
		l, err := ParseLearning(f.Data, f.Path)
		if err != nil {
			parseErr(err)
			break
		}
		return out, &l
	case KindJournal:
		j, err := ParseJournal(f.Data, f.Path)
		if err != nil {
			parseErr(err)
			break
		}
		if j.Failure != nil && utf8.RuneCountInString(j.Failure.StackTrace) > MaxStackTraceChars {
			add(fieldLine(f.Data, "stack_trace"), SeverityWarning, "failure.stack_trace is over %d characters (seed 002 keeps its first lines only)", MaxStackTraceChars)
		}
	case KindSkill:
		d, err := parseFrontmatter(f.Data, f.Path)
		if err != nil {
			parseErr(err)
			break
		}
		for _, key := range []string{"name", "description"} {
			if d.Str(key, false) == "" {
				add(1, SeverityWarning, "the skill has no %s in its frontmatter (prime lists skills by name and description)", key)
			}
		}
	}
	return out, nil
}

// Size of a single memory past which validation warns: memories are
// one-line to one-paragraph facts, and prime puts every one of them in
// front of the agent.
const MaxMemoryChars = 2000

// memoryProblems finds what memories.md's parser accepts but lore would
// not have written: memories under a heading that is not one of the four
// sections (they take the type of the section above), tags that are not
// lowercase or repeat, very long memories.
func memoryProblems(path, text string, mf *MemoriesFile) []Problem {
	var out []Problem
	warn := func(line int, format string, args ...any) {
		out = append(out, Problem{Path: path, Line: line, Severity: SeverityWarning, Message: fmt.Sprintf(format, args...)})
	}
	heading, headingLine := "", 0
	byLine := map[int]Memory{}
	for _, m := range mf.Memories {
		byLine[m.Line] = m
	}
	for ln := range eachLine(text) {
		level := HeadingLevel(ln.text)
		switch {
		case level == 2:
			heading, headingLine = strings.TrimSpace(ln.text[level:]), ln.number
		case level == 3:
			m, ok := byLine[ln.number]
			if !ok {
				continue
			}
			if _, known := typeOfSection(heading); heading != "" && !known {
				warn(ln.number, "memory %s is under \"## %s\" (line %d), which is not a memory section (Patterns, Decisions, Fixes, Context); it is read as a %s", m.ID, heading, headingLine, m.Type)
			}
			if norm, err := NormalizeTags(m.Tags); err == nil && strings.Join(norm, ",") != strings.Join(m.Tags, ",") {
				warn(ln.number, "memory %s has tags %q; lore writes them lowercase, once each: %q", m.ID, strings.Join(m.Tags, ", "), strings.Join(norm, ", "))
			} else if err != nil {
				warn(ln.number, "memory %s: %s", m.ID, err.(*InputError).Msg)
			}
			if n := utf8.RuneCountInString(m.Content); n > MaxMemoryChars {
				warn(ln.number, "memory %s is %d characters (over %d): a memory is a fact or two; longer notes belong in a knowledge entry", m.ID, n, MaxMemoryChars)
			}
		}
	}
	return out
}

// knownFields are the frontmatter fields of each kind (nested maps with
// their own); skills are Claude Code's files and may hold any field.
var knownFields = map[Kind]map[string]map[string]bool{
	KindKnowledge: fieldSet("title", "tags", "feature", "created_at", "updated_at", "sources"),
	KindLearning: fieldSet("id", "category", "tags", "task", "created_at", "status", "status_reason", "superseded_by",
		"kind", "task_type", "confidence", "success_rate", "source_runs"),
	KindJournal: func() map[string]map[string]bool {
		f := fieldSet("run_id", "iteration", "task_id", "feature_id", "outcome", "model", "next_model",
			"duration_secs", "cost_usd", "files_modified", "difficulty", "created_at", "ingest_key", "reverted_at", "failure")
		f["failure"] = map[string]bool{"what_tried": true, "why_failed": true, "error_category": true,
			"relevant_files": true, "stack_trace": true, "retry_suggestion": true}
		return f
	}(),
}

func fieldSet(names ...string) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, n := range names {
		out[n] = nil
	}
	return out
}

// unknownFields warns of fields lore does not read (a typo, most likely:
// "tgas" leaves the entry without tags), and of unknown keys of the known
// nested maps.
func unknownFields(d *yamlfm.Doc, path string, known map[string]map[string]bool) []Problem {
	var out []Problem
	fields := slices.Clone(d.Fields())
	sort.SliceStable(fields, func(i, j int) bool { return fields[i].Line < fields[j].Line })
	for _, f := range fields {
		k := f.Key
		sub, ok := known[k]
		if !ok {
			out = append(out, Problem{Path: path, Line: f.Line, Severity: SeverityWarning,
				Message: fmt.Sprintf("unknown field %q: lore does not read it%s", k, didYouMean(k, known))})
			continue
		}
		if n := f.Value; sub != nil && n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if key := n.Content[i]; !sub[key.Value] {
					out = append(out, Problem{Path: path, Line: key.Line + 1, Severity: SeverityWarning,
						Message: fmt.Sprintf("unknown field %q in %s: lore does not read it", key.Value, k)})
				}
			}
		}
	}
	return out
}

// didYouMean names the known field closest to a misspelt one.
func didYouMean(k string, known map[string]map[string]bool) string {
	names := make([]string, 0, len(known))
	for name := range known {
		names = append(names, name)
	}
	best, ok := words.Nearest(k, names, 2) // at most two edits away
	if !ok {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// invalidUTF8Line is the line of the first byte that is not UTF-8.
func invalidUTF8Line(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return bytes.Count(data[:i], []byte("\n")) + 1
		}
		i += n
	}
	return 0
}

// fieldLine is the line of the first line starting with key and a colon
// (after indentation), 0 when there is none: for problems found after
// parsing.
func fieldLine(data []byte, key string) int {
	for i, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), key+":") {
			return i + 1
		}
	}
	return 0
}

// bodyLine is the first line after the frontmatter.
func bodyLine(data []byte) int {
	lines := strings.Split(string(data), "\n")
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], "\r") == "---" {
			return i + 2
		}
	}
	return 1
}
