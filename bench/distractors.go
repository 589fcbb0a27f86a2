package main

import (
	"fmt"
	"io/fs"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// The realistic filler of the recall benchmark: entries written in the
// words of real agent stores — English prose about software work, with
// file paths, identifiers in camelCase and snake_case, error messages and
// stack lines — about the other services of tally's company (ledger,
// payouts, storefront, …): near tally's topics (Postgres, Redis, jobs,
// CI, Docker, front end) and far from them (Kafka, Terraform, SSO, …).
// Entries are made from templates whose slots are filled from the
// vocabularies of distractors_vocab.go, seeded, so that the same seed
// makes the same store. Made-up words (corpus.go) never share a word with
// a query; these share the common and topical words, and none of the
// labelled store's distinctive identifiers or error strings (fillerGuard).

// fillerGuard is what no filler entry may hold, so that none answers a
// labelled query: the labelled store's distinctive tokens (identifiers,
// paths, error codes, addresses), the name "tally", the exact-kind
// queries as phrases, and the tag queries' tags all together on one entry.
type fillerGuard struct {
	tokens  map[string]bool // lowercased
	phrases []string        // lowercased
	tagSets [][]string
}

// guardToken is a token as the guard reads it: letters, digits and the
// characters that join the parts of an identifier or a path.
var guardToken = regexp.MustCompile(`[A-Za-z0-9_][A-Za-z0-9_./$-]*[A-Za-z0-9_]`)

var (
	camelCase  = regexp.MustCompile(`[a-z][A-Z]`)
	hasLetter  = regexp.MustCompile(`[A-Za-z]`)
	hasDigit   = regexp.MustCompile(`[0-9]`)
	joinedPart = regexp.MustCompile(`[A-Za-z0-9][./][A-Za-z0-9]`)
	numberish  = regexp.MustCompile(`^[0-9.]+$`)
	quantity   = regexp.MustCompile(`^[0-9.]+(ms|s|m|h|min|mb|gb|kb|k|mi|gi|x|d)$`)
	longNumber = regexp.MustCompile(`^[0-9]{5,}$`)
)

// distinctive reports whether a token of the labelled store names
// something of tally's own: an identifier (snake_case, camelCase, with
// digits), a path or dotted name, an IP address, a long number (SQLSTATE
// codes, ports of addresses, ids). Plain words, decimals and quantities
// (30s, 500ms) are shared vocabulary.
func distinctive(tok string) bool {
	lower := strings.ToLower(tok)
	switch {
	case quantity.MatchString(lower):
		return false
	case numberish.MatchString(tok):
		return strings.Count(tok, ".") == 3 || longNumber.MatchString(tok)
	case strings.Contains(tok, "_"), camelCase.MatchString(tok), joinedPart.MatchString(tok):
		return true
	}
	return hasLetter.MatchString(tok) && hasDigit.MatchString(tok) && len(tok) >= 4
}

// sharedTokens are distinctive by their shape but belong to every store:
// the keys and values of lore's frontmatter, names from Go, git, the web
// and the tools that any note uses, and Postgres's codes for a unique
// violation and a serialization failure.
var sharedTokens = strings.Fields(`created_at updated_at run_id task_id feature_id duration_secs cost_usd
	files_modified error_category what_tried why_failed relevant_files stack_trace retry_suggestion
	superseded_by code_structure debugging_technique success_pattern tool_usage testing_strategy
	dependency_error environment_error logic_error permission_error test_failure
	i/o go.mod go.sum github.com github.com/acme github javascript typescript macos snake_case camelcase
	testmain t.parallel t.run errors.is errors.as fmt.errorf context.background time.now grpc
	typeerror int64 index.html 23505 40001`)

// loadFillerGuard reads the guard of the recall benchmark's directory
// (bench/recall: store/.agent and queries.json).
func loadFillerGuard(dir string) (*fillerGuard, error) {
	queries, err := readQueries(filepath.Join(dir, "queries.json"))
	if err != nil {
		return nil, err
	}
	return newFillerGuard(filepath.Join(dir, "store", ".agent"), queries)
}

// newFillerGuard reads the labelled store under store (its .agent
// directory) and the queries.
func newFillerGuard(store string, queries []recallQuery) (*fillerGuard, error) {
	g := &fillerGuard{tokens: map[string]bool{}}
	err := filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, tok := range guardToken.FindAllString(string(data), -1) {
			if distinctive(tok) {
				g.tokens[strings.ToLower(tok)] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range sharedTokens {
		delete(g.tokens, t)
	}
	for _, q := range queries {
		switch q.Kind {
		case "exact":
			g.phrases = append(g.phrases, strings.ToLower(q.Query))
		case "tag":
			g.tagSets = append(g.tagSets, strings.Fields(strings.ToLower(q.Query)))
		}
	}
	return g, nil
}

// allowsToken reports whether a generated identifier may be used.
func (g *fillerGuard) allowsToken(tok string) bool { return !g.tokens[strings.ToLower(tok)] }

// check returns what in text a filler entry must not hold, "" when
// nothing.
func (g *fillerGuard) check(text string) string {
	for _, tok := range guardToken.FindAllString(text, -1) {
		if g.tokens[strings.ToLower(tok)] {
			return tok
		}
	}
	lower := strings.ToLower(text)
	for _, p := range g.phrases {
		if strings.Contains(lower, p) {
			return p
		}
	}
	for _, w := range strings.FieldsFunc(lower, func(r rune) bool { return !unicode.IsLetter(r) }) {
		if w == "tally" {
			return w
		}
	}
	return ""
}

// allowsTags reports whether an entry may carry tags: not every tag of a
// tag query.
func (g *fillerGuard) allowsTags(tags []string) bool {
	have := map[string]bool{}
	for _, t := range tags {
		have[t] = true
	}
	for _, set := range g.tagSets {
		all := true
		for _, t := range set {
			all = all && have[t]
		}
		if all {
			return false
		}
	}
	return true
}

// fillerProse writes the text of one entry at a time: fill expands the
// {slots} of a template. Within one entry a service, a business noun, an
// identifier keep the value they were first given (begin starts an entry).
type fillerProse struct {
	r       *rand.Rand
	guard   *fillerGuard
	topic   *fillerTopic
	memo    map[string]string
	columns []string
	slots   map[string]func() string
}

func newFillerProse(r *rand.Rand, guard *fillerGuard) *fillerProse {
	p := &fillerProse{r: r, guard: guard}
	for _, c := range fillerColumns {
		if guard.allowsToken(c) {
			p.columns = append(p.columns, c)
		}
	}
	noun := func() [4]string { return fillerNouns[p.index("noun", len(fillerNouns))] }
	p.slots = map[string]func() string{
		"svc":    func() string { return fillerServices[p.index("svc", len(fillerServices))] },
		"svc2":   func() string { return p.other("svc", fillerServices) },
		"person": func() string { return p.pick(fillerPeople) },
		"team":   func() string { return p.pick(fillerTeams) },
		"noun":   func() string { return noun()[0] },
		"nouns":  func() string { return noun()[1] },
		"table":  func() string { return noun()[2] },
		"Noun":   func() string { return noun()[3] },
		"col":    func() string { return p.memoized("col", func() string { return p.pick(p.columns) }) },
		"col2":   func() string { return p.memoized("col2", func() string { return p.other("col", p.columns) }) },
		"func":   func() string { return p.memoized("func", p.ident) },
		"lfunc":  func() string { return p.memoized("lfunc", func() string { return lowerFirst(p.ident()) }) },
		"type":   func() string { return p.memoized("type", p.typeName) },
		"lfield": func() string {
			return lowerFirst(strings.ReplaceAll(p.fill("{Noun}"), " ", "")) + p.pick([]string{"ID", "Total", "Status", "Count", "Name", "Amount"})
		},
		"pkg":      func() string { return p.memoized("pkg", func() string { return p.pick(fillerPackages) }) },
		"app":      func() string { return p.memoized("app", func() string { return p.pick(fillerApps) }) },
		"page":     func() string { return p.memoized("page", func() string { return p.pick(fillerPages) }) },
		"comp":     func() string { return p.memoized("comp", func() string { return p.pick(fillerComponents) }) },
		"ext":      func() string { return p.memoized("ext", func() string { return p.pick(fillerExternal) }) },
		"tool":     func() string { return p.memoized("tool", func() string { return p.pick(fillerTools) }) },
		"job":      func() string { return p.memoized("job", func() string { return p.pick(fillerJobs) }) },
		"wf":       func() string { return p.memoized("wf", func() string { return p.pick(fillerWorkflows) }) },
		"env":      func() string { return p.pick(fillerEnvs) },
		"when":     func() string { return p.fill(p.pick(fillerWhen)) },
		"route":    func() string { return p.memoized("route", p.route) },
		"instance": func() string { return p.pick(fillerInstances) },
		"host":     func() string { return p.pick(fillerHosts) },
		"script":   func() string { return p.pick(fillerScripts) },
		"runner":   func() string { return fmt.Sprintf("ci-runner-%d", 1+p.r.Intn(40)) },
		"os":       func() string { return p.pick([]string{"Linux", "macOS"}) },
		"version":  func() string { return fmt.Sprintf("%d.%d", 1+p.r.Intn(6), p.r.Intn(30)) },
		"mmdd":     func() string { return fmt.Sprintf("%02d%02d", 1+p.r.Intn(12), 1+p.r.Intn(28)) },
		"n":        func() string { return fmt.Sprint(2 + p.r.Intn(8)) },
		"m":        func() string { return fmt.Sprint(1 + p.r.Intn(9)) },
		"ms":       func() string { return fmt.Sprint(20 + 10*p.r.Intn(80)) },
		"line":     func() string { return fmt.Sprint(12 + p.r.Intn(400)) },
		"hex":      func() string { return fmt.Sprintf("%08x", p.r.Uint32()) },
		"ip":       func() string { return fmt.Sprintf("10.%d.%d.%d", 20+p.r.Intn(200), p.r.Intn(256), 2+p.r.Intn(250)) },
		"port": func() string {
			return p.pick([]string{"9092", "5672", "8080", "9200", "4317", "5432", "6379", "11211", "443", "8443"})
		},
		// The topic's clauses and sentences.
		"symptom":  func() string { return p.fill(p.story()[0]) },
		"cause":    func() string { return p.fill(p.story()[1]) },
		"fix":      func() string { return upperFirst(p.fill(p.story()[2])) },
		"rule":     func() string { return upperFirst(p.fill(p.fresh("rule", p.topic.rules))) },
		"decision": func() string { return upperFirst(p.fill(p.fresh("decision", p.topic.decisions))) },
		"fact":     func() string { return upperFirst(p.fill(p.fresh("fact", p.topic.facts))) },
		"work":     func() string { return upperFirst(p.fill(p.fresh("work", p.topic.work))) },
		"attempt":  func() string { return p.fill(p.pick(p.topic.attempts)) },
		"check":    func() string { return p.fill(p.fresh("check", p.topic.checks)) },
		"err":      func() string { return p.fill(p.pick(p.topic.errs)) },
		"file":     func() string { return p.fill(p.pick(p.topic.files)) },
	}
	return p
}

// begin starts an entry about topic t.
func (p *fillerProse) begin(t *fillerTopic) {
	p.topic = t
	p.memo = map[string]string{}
}

// story is the entry's story of its topic: its symptom, cause and fix
// go together.
func (p *fillerProse) story() [3]string {
	return p.topic.stories[p.index("story", len(p.topic.stories))]
}

// fresh draws from a list an item the entry has not used yet under key,
// while there is one.
func (p *fillerProse) fresh(key string, list []string) string {
	used := p.memo["used:"+key]
	i := int(float64(len(list)) * math.Pow(p.r.Float64(), 1.4))
	for k := range list {
		v := list[(i+k)%len(list)]
		if !strings.Contains(used, "\x00"+v+"\x00") {
			p.memo["used:"+key] = used + "\x00" + v + "\x00"
			return v
		}
	}
	return list[i]
}

// nextStory makes the entry's next {symptom}, {cause} and {fix} those of
// another story than the ones it told.
func (p *fillerProse) nextStory() {
	told := p.memo["told"] + p.memo["story"] + ","
	p.memo["told"] = told
	delete(p.memo, "story")
	for try := 0; try < 8; try++ {
		if !strings.Contains(","+told, ","+p.memoized("story", func() string { return fmt.Sprint(p.r.Intn(len(p.topic.stories))) })+",") {
			return
		}
		delete(p.memo, "story")
	}
}

// pick draws from a list, the first items more often (as words are).
func (p *fillerProse) pick(list []string) string {
	return list[int(float64(len(list))*math.Pow(p.r.Float64(), 1.4))]
}

// index draws an index once per entry for key.
func (p *fillerProse) index(key string, n int) int {
	s := p.memoized(key, func() string { return strconv.Itoa(int(float64(n) * math.Pow(p.r.Float64(), 1.4))) })
	i, _ := strconv.Atoi(s)
	return i
}

func (p *fillerProse) memoized(key string, f func() string) string {
	if v, ok := p.memo[key]; ok {
		return v
	}
	v := f()
	p.memo[key] = v
	return v
}

// other draws an item of list that is not the entry's value of key.
func (p *fillerProse) other(key string, list []string) string {
	cur := p.fill("{" + key + "}")
	for {
		if v := list[p.r.Intn(len(list))]; v != cur {
			return v
		}
	}
}

// ident is a Go function name: a verb, the entry's noun (or another)
// and a suffix; never one of the labelled store's.
func (p *fillerProse) ident() string {
	for {
		noun := fillerNouns[p.index("noun", len(fillerNouns))][3]
		if p.r.Intn(3) == 0 {
			noun = fillerNouns[p.r.Intn(len(fillerNouns))][3]
		}
		id := fillerVerbs[p.r.Intn(len(fillerVerbs))] + noun + fillerSuffixes[p.r.Intn(len(fillerSuffixes))]
		if p.guard.allowsToken(id) && p.guard.allowsToken(lowerFirst(id)) {
			return id
		}
	}
}

func (p *fillerProse) typeName() string {
	for {
		id := fillerNouns[p.index("noun", len(fillerNouns))][3] + fillerTypeSuffixes[p.r.Intn(len(fillerTypeSuffixes))]
		if p.guard.allowsToken(id) {
			return id
		}
	}
}

func (p *fillerProse) route() string {
	path := strings.ReplaceAll(p.fill("{nouns}"), " ", "-")
	v := 1 + p.r.Intn(3)
	switch p.r.Intn(5) {
	case 0:
		return fmt.Sprintf("POST /v%d/%s/:id/%s", v, path, p.pick([]string{"cancel", "confirm", "retry", "archive"}))
	case 1:
		return fmt.Sprintf("GET /internal/%s/search", path)
	case 2:
		return fmt.Sprintf("PATCH /v%d/%s/:id", v, path)
	}
	return fmt.Sprintf("GET /v%d/%s", v, path)
}

var fillerSlot = regexp.MustCompile(`\{(_?)([A-Za-z0-9]+)\}`)

// fill expands the slots of a template: {name}, {Name} for the value
// with its first letter upper case, {_name} lower case.
func (p *fillerProse) fill(t string) string {
	return fillerSlot.ReplaceAllStringFunc(t, func(m string) string {
		sub := fillerSlot.FindStringSubmatch(m)
		lower, name := sub[1] == "_", sub[2]
		f, ok := p.slots[name]
		upper := false
		if !ok {
			f, ok = p.slots[lowerFirst(name)]
			upper = true
		}
		if !ok {
			panic("filler: no slot " + name)
		}
		v := f()
		switch {
		case upper:
			v = upperFirst(v)
		case lower:
			v = lowerFirst(v)
		}
		return v
	})
}

// upperFirst raises the first letter, unless the word is a name that
// starts in lower case (gRPC, iOS).
func upperFirst(s string) string {
	if s == "" || len(s) > 1 && 'A' <= s[1] && s[1] <= 'Z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// lowerFirst lowers the first letter, or the capitals of an initialism
// that starts an identifier (APIKeyStore → apiKeyStore); a word in
// capitals (ANALYZE, CODEOWNERS) stays.
func lowerFirst(s string) string {
	n := 0
	for n < len(s) && 'A' <= s[n] && s[n] <= 'Z' {
		n++
	}
	switch {
	case n == 0:
		return s
	case n == 1:
		return strings.ToLower(s[:1]) + s[1:]
	case n == len(s) || s[n] < 'a' || s[n] > 'z':
		return s
	}
	return strings.ToLower(s[:n-1]) + s[n-1:]
}

// tags draws 1–3 of the topic's tags, sometimes with the service's name,
// never all the tags of a tag query.
func (p *fillerProse) tags() []string {
	for {
		n := 1 + p.r.Intn(3)
		var out []string
		seen := map[string]bool{}
		if p.r.Intn(3) == 0 {
			out = append(out, p.fill("{svc}"))
			seen[out[0]] = true
		}
		for len(out) < n {
			t := p.pick(p.topic.tags)
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
		if p.guard.allowsTags(out) {
			return out
		}
	}
}

// sentence fills one of templates.
func (p *fillerProse) sentence(templates ...string) string {
	return p.fill(templates[p.r.Intn(len(templates))])
}

// attributed names the entry's service at the start of text unless text
// names it: what a filler entry says is about another service than the
// labelled store's, never a rule of its own.
func (p *fillerProse) attributed(text string) string {
	svc := p.fill("{svc}")
	if strings.Contains(strings.ToLower(text), svc) {
		return text
	}
	return upperFirst(svc) + ": " + text
}

// memoryText is the text of a memory of a section of memories.md: one to
// three sentences on one line.
func (p *fillerProse) memoryText(section string) string {
	return p.attributed(p.memorySentences(section))
}

func (p *fillerProse) memorySentences(section string) string {
	switch section {
	case "Fixes":
		return p.sentence(
			"{Svc}: {symptom} (`{err}`). {Cause}. {fix}",
			"`{err}` in {svc} {when}: {cause}. {fix}",
			"{Symptom} {when}. {Cause}. {fix}",
			"{Svc} {when}: {symptom}. The cause was that {cause}. {fix}",
			"{Symptom}: `{err}`. {fix}",
			"{Svc}: {symptom}, because {cause}. The fix: {_fix}",
		)
	case "Patterns":
		return p.sentence("{Svc}: {rule}", "{rule}", "{rule} {rule}", "In {svc}: {rule} See {file}.")
	case "Decisions":
		return p.sentence("{decision}", "{decision} {fact}", "{decision} Decided with {person}.")
	}
	return p.sentence("{fact}", "{Svc}: {fact} {rule}", "{fact} {fact}")
}

// knowledgeBody is 80–300 words: an opening paragraph, a list of rules
// and facts, the known problems, and where to look.
func (p *fillerProse) knowledgeBody() string {
	var b strings.Builder
	b.WriteString(p.sentence("{fact} {rule}", "{rule} {fact}", "{decision} {rule}", "{fact} {decision}"))
	b.WriteString("\n\n")
	for i, n := 0, 2+p.r.Intn(4); i < n; i++ {
		b.WriteString("- " + p.sentence("{rule}", "{fact}", "{rule}", "{decision}") + "\n")
	}
	b.WriteString("\n" + p.sentence("Known problems:", "What went wrong before:", "Incidents:", "Things that bit us:") + "\n\n")
	for i, n := 0, 1+p.r.Intn(3); i < n; i++ {
		p.nextStory()
		b.WriteString(p.sentence(
			"{Symptom} {when}: {cause}. {fix}",
			"`{err}`: {cause}. {fix}",
			"{Symptom}. {Cause}, and `{err}` was all the logs said. {fix}",
		) + "\n\n")
	}
	b.WriteString(p.sentence("When in doubt, {check}.", "Code: `{file}`, `{file}`.", "Ask {person} before changing it. {Check}.", "To debug: {check}."))
	words := strings.Fields(b.String())
	if len(words) > 300 {
		return strings.Join(words[:300], " ") + "."
	}
	return b.String()
}

// learningText is a learning's body for its category.
func (p *fillerProse) learningText(category string) string {
	return p.attributed(p.learningSentences(category))
}

func (p *fillerProse) learningSentences(category string) string {
	switch category {
	case "pitfall":
		return p.sentence(
			"If {symptom}, check whether {cause}. {fix}",
			"`{err}` in {svc} usually means that {cause}. {fix}",
			"Looks fine in tests and fails {when}: {symptom}, because {cause}.",
		)
	case "success_pattern":
		return p.sentence("{fix} {rule}", "What worked when {symptom}: {_fix}", "{work} {fix}")
	case "tool_usage":
		return p.sentence("To see why {symptom}, {check}.", "{Check}; it shows when {cause}.")
	case "debugging_technique":
		return p.sentence("When {symptom}, {check}; last time it was that {cause}.", "{Check}. For `{err}` it showed that {cause}.")
	case "code_structure":
		return p.sentence("{rule}", "{rule} {rule}")
	case "testing_strategy":
		return p.sentence("{rule} {fix}", "When {symptom}, reproduce it in a test before fixing anything: {check}.")
	}
	return p.sentence("{fact}", "{decision}")
}

// stackTrace is an error with the stack lines of the file it came from.
func (p *fillerProse) stackTrace(file string) string {
	e := p.fill("{err}")
	switch {
	case strings.HasSuffix(file, ".go"):
		pkg := strings.TrimSuffix(filepath.Dir(file), "/")
		return p.fill(fmt.Sprintf("%s\ngoroutine %d [running]:\ngithub.com/acme/{svc}/%s.(*{type}).{Func}(0xc000%06x)\n\t/app/%s:{line} +0x%x",
			e, 1+p.r.Intn(300), pkg, p.r.Intn(1<<24), file, p.r.Intn(1<<12)))
	case strings.HasSuffix(file, ".tsx") || strings.HasSuffix(file, ".ts"):
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		return p.fill(fmt.Sprintf("%s\n    at %s (%s:{line}:%d)", e, name, file, 1+p.r.Intn(60)))
	}
	return e
}

// generateRealistic writes a lore store of n realistic filler entries
// into a new git repository at dir and commits it with C git: memories,
// knowledge, learnings and journal entries in corpus.go's shares, dated
// from January 2026 like corpus.go's.
func generateRealistic(dir string, n int, seed int64, guard *fillerGuard) error {
	r := rand.New(rand.NewSource(seed))
	p := newFillerProse(r, guard)
	total := 0
	for _, t := range fillerTopics {
		total += t.weight
	}
	topic := func() *fillerTopic {
		k := r.Intn(total)
		for i := range fillerTopics {
			if k < fillerTopics[i].weight {
				return &fillerTopics[i]
			}
			k -= fillerTopics[i].weight
		}
		panic("unreachable")
	}
	// entry writes one entry of topic t with write, again while the
	// guard finds something in it.
	entry := func(write func() string) (string, error) {
		var last string
		for try := 0; try < 50; try++ {
			p.begin(topic())
			text := write()
			if last = guard.check(text); last == "" {
				return text, nil
			}
		}
		return "", fmt.Errorf("filler entries keep holding %q of the labelled store", last)
	}

	at, write := fillerTime, fillerWrite(dir)
	memories, knowledge, learnings, journal := fillerShares(n)

	sections := []string{"Patterns", "Decisions", "Fixes", "Context"}
	var md strings.Builder
	md.WriteString("# Memories\n")
	for s, name := range sections {
		fmt.Fprintf(&md, "\n## %s\n", name)
		for i := s; i < memories; i += len(sections) {
			var tags []string
			text, err := entry(func() string {
				tags = p.tags()
				return p.memoryText(name)
			})
			if err != nil {
				return err
			}
			t := at(i)
			fmt.Fprintf(&md, "\n### mem-%d-%04x\n> %s\n<!-- tags: %s | created: %s -->\n",
				t.Unix(), r.Intn(0x10000), text, strings.Join(tags, ", "), t.Format("2006-01-02"))
		}
	}
	if err := write("memories.md", md.String()); err != nil {
		return err
	}

	// Knowledge titles: a service and a topic's title, each pair once.
	type titled struct {
		svc, title string
		topic      *fillerTopic
	}
	var titles []titled
	for ti := range fillerTopics {
		for _, title := range fillerTopics[ti].titles {
			for _, svc := range fillerServices {
				titles = append(titles, titled{svc, title, &fillerTopics[ti]})
			}
		}
	}
	r.Shuffle(len(titles), func(i, j int) { titles[i], titles[j] = titles[j], titles[i] })
	slugs := map[string]bool{}
	for i := 0; i < knowledge; i++ {
		tt := titles[i%len(titles)]
		var title string
		var tags []string
		body, err := entry(func() string {
			p.begin(tt.topic)
			p.memo["svc"] = fmt.Sprint(indexOf(fillerServices, tt.svc))
			title = upperFirst(tt.svc) + ": " + p.fill(tt.title)
			tags = p.tags()
			return title + "\n" + p.knowledgeBody()
		})
		if err != nil {
			return err
		}
		body = strings.TrimPrefix(body, title+"\n")
		slug := slugify(title)
		for k := 2; slugs[slug]; k++ {
			slug = fmt.Sprintf("%s-%d", slugify(title), k)
		}
		slugs[slug] = true
		err = write("knowledge/"+slug+".md", fmt.Sprintf("---\ntitle: %q\ntags: %s\nfeature: %q\ncreated_at: %q\n---\n\n%s\n",
			title, quoted(tags), tt.topic.name, at(i).Format(time.RFC3339), body))
		if err != nil {
			return err
		}
	}

	// Learnings, in the shares of the labelled store's categories.
	categories := []string{"pitfall", "pitfall", "pitfall", "pitfall", "success_pattern", "tool_usage", "tool_usage", "debugging_technique", "code_structure", "testing_strategy", "other"}
	ids := map[string]bool{}
	newID := func(digits int) string {
		for {
			id := fmt.Sprintf("%0*x", digits, r.Int63n(1<<(4*digits)))
			if !ids[id] {
				ids[id] = true
				return id
			}
		}
	}
	for i := 0; i < learnings; i++ {
		category := categories[r.Intn(len(categories))]
		var tags []string
		text, err := entry(func() string {
			tags = p.tags()
			return p.learningText(category)
		})
		if err != nil {
			return err
		}
		id := "l-" + newID(6)
		err = write("learnings/"+id+".md", fmt.Sprintf("---\nid: %s\ncategory: %s\ntags: %s\ntask: \"t-%d\"\ncreated_at: %q\nstatus: active\n---\n\n%s\n",
			id, category, quoted(tags), 1000+r.Intn(4000), at(i).Format(time.RFC3339), text))
		if err != nil {
			return err
		}
	}

	// Journal: runs of 8–40 iterations, each an agent's loop on one
	// service; a failed iteration has a failure report and is followed
	// by another on the same task.
	runs := map[string]bool{}
	var run, runSvc string
	var runTopic *fillerTopic
	left, iteration, task := 0, 0, 1000
	models := []string{"sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "sonnet", "haiku", "haiku", "opus"}
	difficulties := []string{"easy", "easy", "moderate", "moderate", "hard"}
	for i := 0; i < journal; i++ {
		if left == 0 {
			left, iteration = 8+r.Intn(33), 0
			for {
				runTopic = topic()
				p.begin(runTopic)
				runSvc = p.memoized("svc", func() string { return fmt.Sprint(p.r.Intn(len(fillerServices))) })
				run = slugify(p.fill(p.pick(fillerRunNames)))
				if r.Intn(2) == 0 {
					run = "run-" + newID(8)
				}
				if !runs[run] {
					break
				}
			}
			runs[run] = true
		}
		left--
		iteration++
		outcome := "done"
		switch k := r.Intn(100); {
		case k < 26:
			outcome = "failed"
		case k < 29:
			outcome = "retried"
		case k < 32:
			outcome = "blocked"
		}
		var front, body, feature string
		var files []string
		_, err := entry(func() string {
			if r.Intn(2) == 0 {
				p.begin(runTopic)
			}
			p.memo["svc"] = runSvc
			feature = p.topic.name
			files = files[:0]
			for k, nf := 0, 1+p.r.Intn(3); k < nf; k++ {
				f := p.fill("{file}")
				if indexOf(files, f) < 0 {
					files = append(files, f)
				}
			}
			front, body = "", ""
			switch outcome {
			case "failed":
				front = fmt.Sprintf("failure:\n  what_tried: %q\n  why_failed: %q\n  error_category: %q\n  relevant_files: %s\n  stack_trace: %q\n  retry_suggestion: %q\n",
					p.fill("{attempt}"), p.fill("{Cause}"), p.pick(p.topic.category), quotedPaths(files),
					shorten(p.stackTrace(files[0]), 480), p.sentence("{Check}.", "Try this instead: {fix}", "{Check}."))
			case "retried":
				body = p.sentence("{Symptom}; the first attempt failed. {fix}", "Retried after {symptom}. {fix}")
			case "blocked":
				body = p.sentence("Blocked: {ext} has been down since the morning in {env}; the {noun} work waits until it is back.",
					"Blocked: no access to {env} for {svc}; asked {team} for it.")
			default:
				body = p.sentence("{work}", "{work} {fix}", "Fixed in {svc}: {symptom}. {Cause}. {fix}", "{work} Tests cover {nouns} in every state.", "{work} {rule}", "Fix for {symptom}: {_fix}")
			}
			if body != "" {
				body = p.attributed(body)
			}
			return front + body + strings.Join(files, " ")
		})
		if err != nil {
			return err
		}
		t := at(i)
		content := fmt.Sprintf("---\nrun_id: %s\niteration: %d\ntask_id: \"t-%d\"\nfeature_id: %q\noutcome: %s\nmodel: %q\nduration_secs: %d.%d\ncost_usd: %d.%02d\nfiles_modified: %s\ndifficulty: %s\ncreated_at: %q\n%s---\n",
			run, iteration, task, feature, outcome, models[r.Intn(len(models))], 60+r.Intn(900), r.Intn(10),
			r.Intn(2), r.Intn(100), quotedPaths(files), difficulties[r.Intn(len(difficulties))], t.Format(time.RFC3339), front)
		if body != "" {
			content += "\n" + body + "\n"
		}
		if outcome != "failed" {
			task++
		}
		if err := write(fmt.Sprintf("journal/%s/%04d-%s.md", run, iteration, newID(6)), content); err != nil {
			return err
		}
	}
	return commitCorpus(dir)
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

func quotedPaths(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = fmt.Sprintf("%q", p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// shorten cuts s to at most n bytes at a line or word boundary.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexAny(s, "\n "); i > 0 {
		s = s[:i]
	}
	return s
}

// slugify is mdstore.Slugify's rule: lowercase, runs of other characters
// than letters and digits become one '-'.
func slugify(title string) string {
	parts := strings.FieldsFunc(strings.ToLower(title), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	s := strings.Join(parts, "-")
	if len(s) > 70 {
		s = strings.TrimRight(s[:70], "-")
	}
	return s
}
