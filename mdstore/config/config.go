package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	"unicode"

	"gopkg.in/yaml.v3"

	"lore/internal/fsx"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"
)

// CommitMode is config.yaml's "commit" setting.
type CommitMode string

const (
	CommitAuto  CommitMode = "auto"  // commit every change (the default)
	CommitStage CommitMode = "stage" // stage changes, let the person commit
	CommitNone  CommitMode = "none"  // write files only
)

// Config is .agent/config.yaml. A missing or empty file means defaults.
type Config struct {
	Commit CommitMode
	// LockTimeout is how long a write waits for a lock held by another
	// process (index.lock, a branch lock) before it gives up.
	LockTimeout time.Duration
	// Memories is the "memories" block: how memories reach an iteration.
	Memories MemoriesConfig
	// Learn: when false, prime still shows what lore holds but no longer
	// asks the agent to write new memory (seed 003's learn flag).
	Learn bool
	// Budgets are prime's section shares: the seeds' defaults, or what the
	// "budgets" block sets. Total is left to the caller (memories.budget,
	// or a flag).
	Budgets Budgets
	// Models are the models the orchestrator can run, cheapest first: the
	// names a <next-model> may give (ModelFamily) and the ones the
	// strategies choose among. DefaultModels without a "models" setting.
	Models []string
	// Prune is the "prune" block: when lore prune takes an entry out.
	Prune PruneConfig
	// SummarizeThreshold is learnings.summarize_threshold: past this many
	// shown learnings, ingest summarizes them (seed 002; 200).
	SummarizeThreshold int
	// AutoPromote is learnings.auto_promote: at the end of a run (ingest
	// --run-end), lore extracts the run's learnings and promotes every
	// staged one (seed 004's automatic promotion).
	AutoPromote bool
	// UnverifiedDays is unverified_days: prime marks an entry that cites
	// no file, was written longer ago and was not shown by a prime in
	// this clone since as unverified (0: never).
	UnverifiedDays int
	// Warnings are problems that did not stop lore, such as unknown keys.
	Warnings []entry.Warning
}

// PruneConfig is config.yaml's "prune" block (seed 002's pruning table),
// in days.
type PruneConfig struct {
	// FailuresAfterDays: a failed iteration's failure report is trimmed
	// once its task is done and the iteration is older.
	FailuresAfterDays int
	// UnusedLearningDays: a learning older than this that no prime or
	// show has used in RecentUseDays is pruned.
	UnusedLearningDays int
	RecentUseDays      int
	// SupersededAfterDays: a superseded learning older than this is
	// pruned.
	SupersededAfterDays int
}

// DefaultPruneConfig is seed 002's: 7, 90, 30 and 30 days.
func DefaultPruneConfig() PruneConfig {
	return PruneConfig{FailuresAfterDays: 7, UnusedLearningDays: 90, RecentUseDays: 30, SupersededAfterDays: 30}
}

// InjectMode is memories.inject.
type InjectMode string

const (
	InjectAuto   InjectMode = "auto"   // prime shows memories (the default)
	InjectManual InjectMode = "manual" // prime leaves them out; the agent searches
	InjectNone   InjectMode = "none"   // memories are off: prime neither shows nor teaches them
)

// MemoriesConfig is the "memories" block of seed 001.
type MemoriesConfig struct {
	Inject InjectMode
	// Budget is prime's total for its memory sections in tokens; 0 means
	// no total (each section keeps its share).
	Budget int
	// SkillInjection adds prime's block on how to use lore.
	SkillInjection bool
	// Filter narrows the memories prime shows.
	Filter MemoriesFilter
}

// MemoriesFilter is memories.filter: empty lists and 0 mean no limit.
type MemoriesFilter struct {
	Types      []entry.MemoryType
	Tags       []string
	RecentDays int
}

// Budgets are the shares of prime's memory sections: Total in tokens for
// all of them (0: no total, only the shares), each section's share in the
// unit its seed gives it. A section that does not use its share leaves
// the rest to the next one. Each share's JSON name is its key in
// config.yaml's "budgets" block (see BudgetKeys).
type Budgets struct {
	TotalTokens     int `json:"total_tokens"`
	AttemptsChars   int `json:"previous_attempts_chars"`
	MemoriesTokens  int `json:"memories_tokens"`
	KnowledgeTokens int `json:"knowledge_tokens"`
	LearningsChars  int `json:"learnings_chars"`
	JournalTokens   int `json:"journal_tokens"`
	LoopStatusChars int `json:"loop_status_chars"`
	SkillsChars     int `json:"skills_chars"`
}

// budgetShares names each share of Budgets, in the order of prime's
// sections: the one list of the "budgets" block's keys.
var budgetShares = []struct {
	key   string
	share func(*Budgets) *int
}{
	{"previous_attempts_chars", func(b *Budgets) *int { return &b.AttemptsChars }},
	{"memories_tokens", func(b *Budgets) *int { return &b.MemoriesTokens }},
	{"knowledge_tokens", func(b *Budgets) *int { return &b.KnowledgeTokens }},
	{"learnings_chars", func(b *Budgets) *int { return &b.LearningsChars }},
	{"journal_tokens", func(b *Budgets) *int { return &b.JournalTokens }},
	{"loop_status_chars", func(b *Budgets) *int { return &b.LoopStatusChars }},
	{"skills_chars", func(b *Budgets) *int { return &b.SkillsChars }},
}

// BudgetKeys are the keys the "budgets" block takes, each in the unit it
// names.
func BudgetKeys() []string {
	keys := make([]string, len(budgetShares))
	for i, s := range budgetShares {
		keys[i] = s.key
	}
	return keys
}

// Share is the share named key (a BudgetKeys name), nil if there is none.
func (b *Budgets) Share(key string) *int {
	for _, s := range budgetShares {
		if s.key == key {
			return s.share(b)
		}
	}
	return nil
}

// DefaultBudgets are the seeds' shares: previous attempts, learnings and
// loop status 3000, 1500 and 500 characters (seed 002), memories 2000
// tokens (seed 001), knowledge 2000 and journal 3000 tokens (seed 000).
func DefaultBudgets() Budgets {
	return Budgets{AttemptsChars: 3000, MemoriesTokens: 2000, KnowledgeTokens: 2000, LearningsChars: 1500, JournalTokens: 3000, LoopStatusChars: 500, SkillsChars: 2000}
}

// Default is the configuration without a config.yaml.
func Default() Config {
	return Config{Commit: CommitAuto, LockTimeout: 10 * time.Second, Learn: true,
		Memories: MemoriesConfig{Inject: InjectAuto, SkillInjection: true}, Budgets: DefaultBudgets(), Models: DefaultModels(), Prune: DefaultPruneConfig(), SummarizeThreshold: 200,
		UnverifiedDays: 90}
}

// loadConfig reads the config file at path (relPath names it in messages).
// An invalid value is an error naming the key and its line; a file that is
// not one lore reads (a link, a FIFO, larger than FileReadLimit) is the
// defaults, with a warning that says why.
func Load(path, relPath string) (Config, error) {
	cfg := Default()
	data, err := fsx.ReadRegular(path, entry.ReadLimit(relPath))
	if errors.Is(err, os.ErrNotExist) {
		return cfg, nil
	}
	if w, skipped := entry.Skipped(relPath, err); skipped {
		cfg.Warnings = entry.WarningsOf(w)
		if w != nil {
			cfg.Warnings[0].Message += "; the defaults apply"
		}
		return cfg, nil
	}
	if err != nil {
		return cfg, fmt.Errorf("read %s: %w", relPath, err)
	}
	return Parse(data, relPath)
}

// parseConfig reads config.yaml's bytes; relPath names the file in
// messages.
// Validate judges config.yaml as lore validate reports it: what
// lore cannot read is an error, an unknown key a warning.
func Validate(f entry.File) []entry.Problem {
	var out []entry.Problem
	cfg, err := Parse(f.Data, f.Path)
	if err != nil {
		for _, w := range entry.FileProblems(err, f.Path) {
			out = append(out, entry.Problem{Path: f.Path, Line: w.Line, Severity: entry.SeverityError, Message: w.Message})
		}
	}
	for _, w := range cfg.Warnings {
		out = append(out, entry.Problem{Path: f.Path, Line: w.Line, Severity: entry.SeverityWarning, Message: w.Message})
	}
	return out
}

func Parse(data []byte, relPath string) (Config, error) {
	cfg := Default()
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlfm.ErrorLine(err)
		return cfg, &entry.FileError{Path: relPath, Line: line, Msg: "not valid YAML: " + msg}
	}
	if len(doc.Content) == 0 {
		return cfg, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return cfg, &entry.FileError{Path: relPath, Line: root.Line, Msg: "expected a mapping of settings (key: value)"}
	}
	r := configReader{path: relPath, cfg: &cfg}
	return cfg, r.settings(root, "", r.top)
}

// configReader walks config.yaml's settings.
type configReader struct {
	path string
	cfg  *Config
}

// settings calls set for each key of mapping node m; prefix is the path
// of the mapping ("memories.") for messages. A key set twice is an error.
func (r *configReader) settings(m *yaml.Node, prefix string, set func(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error)) error {
	var problems []entry.Warning
	first := map[string]int{} // each key's line
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, value := m.Content[i], m.Content[i+1]
		name := prefix + key.Value
		// A key twice is an error, as in an entry's frontmatter: yaml.v3
		// would let the last one win without a word.
		if line, twice := first[key.Value]; twice {
			problems = append(problems, entry.Warning{Path: r.path, Line: key.Line,
				Message: fmt.Sprintf("%s: set twice (first at line %d): keep one", name, line)})
			continue
		}
		first[key.Value] = key.Line
		bad := func(format string, args ...any) error {
			return &entry.FileError{Path: r.path, Line: value.Line, Msg: name + ": " + fmt.Sprintf(format, args...)}
		}
		known, err := set(key.Value, value, bad)
		if err != nil {
			// Every bad value is said at once (lore validate lists them
			// all); the first one is the error.
			problems = append(problems, entry.FileProblems(err, r.path)...)
			continue
		}
		if !known {
			r.cfg.Warnings = append(r.cfg.Warnings, entry.Warning{Path: r.path, Line: key.Line, Message: fmt.Sprintf("unknown setting %q ignored", name)})
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return &entry.FileError{Path: problems[0].Path, Line: problems[0].Line, Msg: problems[0].Message, Problems: problems}
}

// mapping checks that value is a mapping and reads it with set.
func (r *configReader) mapping(value *yaml.Node, prefix string, bad func(string, ...any) error,
	set func(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error)) error {
	if value.Kind == yaml.ScalarNode && value.Tag == "!!null" {
		return nil
	}
	if value.Kind != yaml.MappingNode {
		return bad("must be a mapping of settings")
	}
	return r.settings(value, prefix, set)
}

func (r *configReader) top(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error) {
	cfg := r.cfg
	var err error
	switch key {
	case "commit":
		mode := CommitMode(strings.ToLower(value.Value))
		if value.Kind != yaml.ScalarNode || (mode != CommitAuto && mode != CommitStage && mode != CommitNone) {
			return true, bad("must be auto, stage or none (got %q)", value.Value)
		}
		cfg.Commit = mode
	case "lock_timeout":
		d, perr := time.ParseDuration(value.Value)
		if value.Kind != yaml.ScalarNode || perr != nil || d <= 0 {
			return true, bad("must be a positive duration such as 10s or 500ms (got %q)", value.Value)
		}
		cfg.LockTimeout = d
	case "learn":
		cfg.Learn, err = boolSetting(value, bad)
	case "skill_injection": // also accepted under memories
		cfg.Memories.SkillInjection, err = boolSetting(value, bad)
	case "memories":
		err = r.mapping(value, "memories.", bad, r.memories)
	case "budgets":
		err = r.mapping(value, "budgets.", bad, r.budgets)
	case "models":
		err = r.models(value, bad)
	case "prune":
		err = r.mapping(value, "prune.", bad, r.prune)
	case "unverified_days":
		var n int
		if n, err = countSetting(value, bad, "days"); err == nil {
			cfg.UnverifiedDays = n
		}
	case "learnings":
		err = r.mapping(value, "learnings.", bad, func(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error) {
			switch key {
			case "summarize_threshold":
				n, err := countSetting(value, bad, "learnings")
				if err == nil {
					r.cfg.SummarizeThreshold = n
				}
				return true, err
			case "auto_promote":
				b, err := boolSetting(value, bad)
				if err == nil {
					r.cfg.AutoPromote = b
				}
				return true, err
			}
			return false, nil
		})
	default:
		return false, nil
	}
	return true, err
}

// prune reads the "prune" block: days, each a whole number.
func (r *configReader) prune(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error) {
	p := &r.cfg.Prune
	target := map[string]*int{
		"failures_after_days": &p.FailuresAfterDays, "unused_learning_days": &p.UnusedLearningDays,
		"recent_use_days": &p.RecentUseDays, "superseded_after_days": &p.SupersededAfterDays,
	}[key]
	if target == nil {
		return false, nil
	}
	n, err := countSetting(value, bad, "days")
	if err == nil {
		*target = n
	}
	return true, err
}

// models reads the "models" setting: a list of names, cheapest first
// ([haiku, sonnet, opus], one per line, or "haiku, sonnet, opus"); no
// value keeps the default.
func (r *configReader) models(value *yaml.Node, bad func(string, ...any) error) error {
	var names []string
	switch {
	case value.Kind == yaml.ScalarNode && value.Tag == "!!null":
		return nil
	case value.Kind == yaml.ScalarNode:
		names = strings.Split(value.Value, ",")
	case value.Kind == yaml.SequenceNode:
		for _, item := range value.Content {
			if item.Kind != yaml.ScalarNode || item.Tag == "!!null" {
				return bad("must be a list of model names, cheapest first (line %d is not a name)", item.Line)
			}
			names = append(names, item.Value)
		}
	default:
		return bad("must be a list of model names, cheapest first, such as [haiku, sonnet, opus]")
	}
	models := make([]string, 0, len(names))
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			return bad("must be a list of model names, cheapest first (got an empty name)")
		case strings.ContainsFunc(n, unicode.IsSpace):
			return bad("a model name has no spaces (got %q)", n)
		}
		for _, m := range models {
			if strings.EqualFold(m, n) {
				return bad("names %q twice", n)
			}
		}
		models = append(models, n)
	}
	if len(models) == 0 {
		return bad("must name at least one model")
	}
	r.cfg.Models = models
	return nil
}

func (r *configReader) memories(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error) {
	m := &r.cfg.Memories
	var err error
	switch key {
	case "enabled":
		var on bool
		if on, err = boolSetting(value, bad); err == nil && !on {
			m.Inject = InjectNone
		}
	case "inject":
		mode := InjectMode(strings.ToLower(value.Value))
		if value.Kind != yaml.ScalarNode || (mode != InjectAuto && mode != InjectManual && mode != InjectNone) {
			return true, bad("must be auto, manual or none (got %q)", value.Value)
		}
		if m.Inject != InjectNone { // enabled: false wins
			m.Inject = mode
		}
	case "budget":
		m.Budget, err = countSetting(value, bad, "tokens (0: no total)")
	case "skill_injection":
		m.SkillInjection, err = boolSetting(value, bad)
	case "filter":
		err = r.mapping(value, "memories.filter.", bad, r.filter)
	default:
		return false, nil
	}
	return true, err
}

func (r *configReader) filter(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error) {
	f := &r.cfg.Memories.Filter
	var err error
	switch key {
	case "types":
		var names []string
		if names, err = listSetting(value, bad); err != nil {
			return true, err
		}
		f.Types = nil
		for _, n := range names {
			t, terr := entry.ParseMemoryType(n)
			if terr != nil {
				return true, bad("unknown memory type %q (use pattern, decision, fix or context)", n)
			}
			f.Types = append(f.Types, t)
		}
	case "tags":
		f.Tags, err = listSetting(value, bad)
	case "recent":
		f.RecentDays, err = countSetting(value, bad, "days (0: no limit)")
	default:
		return false, nil
	}
	return true, err
}

func (r *configReader) budgets(key string, value *yaml.Node, bad func(string, ...any) error) (bool, error) {
	share := r.cfg.Budgets.Share(key)
	if share == nil {
		return true, bad("unknown section budget (use %s)", strings.Join(BudgetKeys(), ", "))
	}
	n, err := countSetting(value, bad, strings.ReplaceAll(key[strings.LastIndex(key, "_")+1:], "chars", "characters"))
	if err == nil {
		*share = n
	}
	return true, err
}

// boolSetting reads true or false.
func boolSetting(value *yaml.Node, bad func(string, ...any) error) (bool, error) {
	var b bool
	if value.Kind != yaml.ScalarNode || value.Tag != "!!bool" || value.Decode(&b) != nil {
		return false, bad("must be true or false (got %q)", value.Value)
	}
	return b, nil
}

// countSetting reads a whole number, 0 or more; unit says what it counts.
func countSetting(value *yaml.Node, bad func(string, ...any) error, unit string) (int, error) {
	var n int
	if value.Kind != yaml.ScalarNode || value.Tag != "!!int" || value.Decode(&n) != nil || n < 0 {
		return 0, bad("must be a whole number of %s, 0 or more (got %q)", unit, value.Value)
	}
	return n, nil
}

// listSetting reads a list of strings ([a, b] or one item per line); a
// single string is a list of one.
func listSetting(value *yaml.Node, bad func(string, ...any) error) ([]string, error) {
	switch {
	case value.Kind == yaml.ScalarNode && value.Tag == "!!null":
		return nil, nil
	case value.Kind == yaml.ScalarNode:
		return []string{value.Value}, nil
	case value.Kind != yaml.SequenceNode:
		return nil, bad("must be a list such as [a, b]")
	}
	var out []string
	for _, item := range value.Content {
		if item.Kind != yaml.ScalarNode {
			return nil, bad("must be a list of words (line %d is not)", item.Line)
		}
		out = append(out, item.Value)
	}
	return out, nil
}
