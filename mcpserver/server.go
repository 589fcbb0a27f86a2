// Package mcpserver is lore's MCP server (the official Go SDK): the few
// tools an agent needs — prime, search, show, and adding a memory, a
// knowledge entry, a learning or an iteration's output — answered in
// process by the packages the CLI calls (loop, mdstore, index), so a
// tool call is what the command does: the same index policy (lore-index
// or the scan), the same commit path, safe beside other lore processes
// and C git, and the same wording for a refused secret, a bad tag or an
// entry not found (loop.ErrorText). Each call opens the store, as a
// command does (the queue flushed, the merge driver registered), and
// closes it.
//
// Each tool returns text an agent reads well (prime's Markdown, a short
// line per result or write) and the packages' own structs as structured
// content. A failure is a tool error whose text is lore's message; the
// server itself does not fail. The resources are every memory
// (lore://memories) and any entry by id (lore://entry/{id}, a journal
// iteration's id with its "/" as it is or escaped).
//
// Serve runs the server on a byte stream, as lore-mcp does on stdio, with
// a transport of its own: a line that is not a JSON-RPC message gets a
// JSON-RPC error and the server reads on; a line is at most MaxFrame; at
// the end of the input, or when its context is done, it reads no more
// and answers every call it read before returning. A call under way
// always finishes — the packages take no context — and one cancelled
// before it begins is not begun, so a write is never cut in two.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lore/index"
	"lore/internal/words"
	"lore/loop"
	"lore/mdstore"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
	"lore/prompt"
	"lore/provenance"
	"lore/strategy"
)

// Options say which store the server serves, and how.
type Options struct {
	// Dir is where the server runs; Root, when set, the directory that
	// holds .agent (relative to Dir), else the store is found from Dir.
	Dir, Root string
	// Getenv is the environment: git's configuration (the identity of
	// commits) and LORE_INDEX (which lore-index searches). nil: none.
	Getenv func(string) string
	// Now and Random are the clock and the source of ids (nil: the real
	// ones).
	Now    func() time.Time
	Random io.Reader
	// LoreBinary is the lore a merge driver registered in a fresh clone
	// runs.
	LoreBinary func() string
	// Grace is how long Serve waits for the calls under way once it
	// stops (0: Grace).
	Grace time.Duration
}

// Instructions is what the server tells a client about itself.
const Instructions = "lore is this project's memory, kept as Markdown under .agent/ and committed to git. " +
	"Call prime at the start of a task for the context earlier iterations left; search and show to look things up; " +
	"add_memory, add_knowledge and add_learning to keep what you learn; ingest to record an iteration's output with its sigils."

// New returns the server; version is lore's. A tool's structured content
// is a struct of lore's packages; the tools declare no output schema,
// which would cost the list of tools thousands of tokens in every agent's
// context.
func New(opts Options, version string) *mcp.Server {
	s, _ := newServer(opts, version)
	return s
}

// newServer is New, and the count of its calls under way (Serve's).
func newServer(opts Options, version string) (*mcp.Server, *calls) {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "lore", Version: version}, &mcp.ServerOptions{Instructions: Instructions})
	t := tools{opts: opts}
	mcp.AddTool(s, &mcp.Tool{Name: "prime", Description: "The context for a task: memories, knowledge, learnings, journal and loop status, ranked and within a token budget."}, t.prime)
	mcp.AddTool(s, &mcp.Tool{Name: "search", Description: "Full-text, typo-tolerant search over every entry, best first."}, t.search)
	mcp.AddTool(s, &mcp.Tool{Name: "show", Description: "One entry in full, by id: mem-…, l-…, a knowledge slug, run-…/NNNN, a skill name."}, t.show)
	mcp.AddTool(s, &mcp.Tool{Name: "add_memory", Description: "Keep one concept about this codebase (one commit)."}, t.addMemory)
	mcp.AddTool(s, &mcp.Tool{Name: "add_knowledge", Description: "Keep a titled fact about this project (one commit)."}, t.addKnowledge)
	mcp.AddTool(s, &mcp.Tool{Name: "add_learning", Description: "Keep an insight for other tasks (one commit)."}, t.addLearning)
	mcp.AddTool(s, &mcp.Tool{Name: "ingest", Description: "Record an iteration from its output: <task-done>, <journal>, <knowledge>, <learning>, <failure-report> sigils (one commit)."}, t.ingest)
	s.AddResource(&mcp.Resource{URI: MemoriesURI, Name: "memories", Description: "Every memory, as Markdown.", MIMEType: "text/markdown"}, t.memories)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: EntryURITemplate, Name: "entry", Description: "One entry by id, as Markdown.", MIMEType: "text/markdown"}, t.entry)
	c := &calls{}
	s.AddReceivingMiddleware(c.guard)
	return s, c
}

// The store's resources: every memory, and any entry by id.
const (
	MemoriesURI = "lore://memories"
	// EntryURITemplate's {+id} takes a journal iteration's "/" as it is.
	EntryURITemplate = "lore://entry/{+id}"
	entryURIPrefix   = "lore://entry/"
)

type tools struct{ opts Options }

// session is one call's store and what lore noted on the way.
type session struct {
	store *mdstore.Store
	notes loop.Notes
}

// open opens the store for one call, as a command opens it.
func (t tools) open() (*session, error) {
	sess := &session{}
	s, err := loop.Open(loop.OpenOptions{Dir: t.opts.Dir, Root: t.opts.Root, LoreBinary: t.opts.LoreBinary,
		Store: mdstore.Options{Now: t.opts.Now, Random: t.opts.Random, Getenv: t.opts.Getenv}}, &sess.notes)
	if err != nil {
		return nil, toolError(err)
	}
	sess.store = s
	return sess, nil
}

func (sess *session) close() { sess.store.Close() }

// text is a tool result of one text block: s, then what lore noted on
// the way.
func (sess *session) text(s string) *mcp.CallToolResult {
	var notes []string
	for _, w := range sess.notes.Warned {
		notes = append(notes, "warning: "+w.String())
	}
	for _, n := range sess.notes.Notices {
		notes = append(notes, "lore: "+n)
	}
	if len(notes) > 0 {
		s = strings.TrimRight(s, "\n") + "\n\n" + strings.Join(notes, "\n") + "\n"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// toolError is err as a tool reports it: lore's message for a person.
func toolError(err error) error {
	return errors.New(loop.ErrorText(err))
}

// PrimeInput is a task to prime for.
type PrimeInput struct {
	Title       string   `json:"title,omitempty" jsonschema:"the task's title"`
	Description string   `json:"description,omitempty"`
	TaskID      string   `json:"task_id,omitempty"`
	Files       []string `json:"files,omitempty" jsonschema:"files the task is about"`
	Budget      int      `json:"budget,omitempty" jsonschema:"total tokens (default: each section its own share)"`
}

// PrimeOutput is a prime as data, as lore prime --format json gives it.
type PrimeOutput struct {
	Task     prompt.Task      `json:"task"`
	Budgets  config.Budgets   `json:"budgets"`
	Sections []prompt.Section `json:"sections"`
	Omitted  string           `json:"omitted,omitempty"`
	Loop     strategy.Status  `json:"loop_status"`
}

func (t tools) prime(ctx context.Context, _ *mcp.CallToolRequest, in PrimeInput) (*mcp.CallToolResult, any, error) {
	req := loop.PrimeRequest{Task: prompt.Task{ID: in.TaskID, Title: in.Title, Description: in.Description, Files: in.Files},
		Loop: strategy.Input{TaskID: in.TaskID}}
	if in.Budget < 0 {
		return nil, nil, errors.New("budget must be 0 (no total) or more")
	}
	if in.Budget > 0 {
		req.Budget = &in.Budget
	}
	search := loop.SearcherFor(req.Task, t.opts.Getenv)
	defer search.Close()
	sess, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer sess.close()
	pr, err := loop.Prime(sess.store, search, req, &sess.notes)
	if err != nil {
		return nil, nil, toolError(err)
	}
	c := pr.Context()
	out := PrimeOutput{Task: pr.Input.Task, Budgets: pr.Options.Budgets, Sections: c.Sections, Omitted: c.Omitted, Loop: pr.Input.Loop}
	var b strings.Builder
	for _, s := range c.Sections {
		b.WriteString(strings.TrimSpace(s.Markdown))
		b.WriteString("\n\n")
	}
	l := pr.Input.Loop
	fmt.Fprintf(&b, "Loop status: iteration %d", l.Iteration)
	if l.Task.TaskID != "" {
		fmt.Fprintf(&b, "; task %s: attempt %d, %d consecutive failures", l.Task.TaskID, l.Task.Attempts+1, l.Task.ConsecutiveFailures)
		if l.Task.Stuck {
			b.WriteString(" (stuck: change approach)")
		}
		if n := l.Task.AgentErrors; n > 0 {
			fmt.Fprintf(&b, "; the agent has not run to the end %d time(s) in a row (agent errors, not attempts)", n)
		}
	}
	if l.Model.Model != "" {
		fmt.Fprintf(&b, "; model %s (%s)", l.Model.Model, l.Model.Reason)
	}
	b.WriteString("\n")
	return sess.text(b.String()), out, nil
}

// SearchInput is a search.
type SearchInput struct {
	Query string   `json:"query"`
	Kind  string   `json:"kind,omitempty" jsonschema:"memory, knowledge, learning, journal or skill (comma-separated)"`
	Tags  []string `json:"tags,omitempty"`
	Limit int      `json:"limit,omitempty" jsonschema:"most results (default 10)"`
}

// SearchOutput is a search's answer: the hits, best first, and how many
// entries matched in all.
type SearchOutput struct {
	Results    []index.Hit `json:"results"`
	Total      int         `json:"total"`
	Suggestion string      `json:"suggestion,omitempty"`
	// Stale says, by entry id, what a cited file's change since means
	// for a hit (lore stale).
	Stale map[string]string `json:"stale,omitempty"`
}

// searchDefault is how many results a search gives unless asked.
const searchDefault = 10

func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, errors.New("search needs a query")
	}
	if in.Limit < 0 {
		return nil, nil, errors.New("limit must be 1 or more")
	}
	q := index.Query{Text: in.Query, Tags: in.Tags, Limit: in.Limit}
	if q.Limit == 0 {
		q.Limit = searchDefault
	}
	for _, k := range strings.Split(in.Kind, ",") {
		if k = strings.TrimSpace(k); k == "" {
			continue
		}
		kind := entry.Kind(k)
		if !slices.Contains(entry.Kinds, kind) {
			return nil, nil, fmt.Errorf("unknown kind %q (memory, knowledge, learning, journal or skill)", k)
		}
		q.Kinds = append(q.Kinds, kind)
	}
	searcher := index.NewSearcher(t.opts.Getenv, io.Discard)
	defer searcher.Close()
	sess, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer sess.close()
	answer, err := searcher.Search(sess.store, q)
	sess.notes.Warnings(answer.Warnings)
	for _, n := range answer.Notices {
		sess.notes.Notice(n)
	}
	if err != nil {
		return nil, nil, toolError(err)
	}
	res := answer.Result
	out := SearchOutput{Results: res.Hits, Total: res.Total, Suggestion: res.Suggestion}
	report, err := provenance.Read(sess.store)
	if err != nil {
		sess.notes.Notice("cannot tell which entries are stale: " + err.Error())
	}

	if out.Results == nil {
		out.Results = []index.Hit{}
	}
	if len(res.Hits) == 0 {
		msg := "No entry matches " + fmt.Sprintf("%q", in.Query) + "."
		if res.Suggestion != "" {
			msg += fmt.Sprintf(" Did you mean %q?", res.Suggestion)
		}
		return sess.text(msg), out, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d %s, best first:\n", len(res.Hits), res.Total, words.Plural(res.Total, "entry matches", "entries match"))
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "- [%s] %s", h.Kind, h.EntryID)
		if h.Title != "" {
			fmt.Fprintf(&b, " %q", h.Title)
		}
		if len(h.Tags) > 0 {
			fmt.Fprintf(&b, " (tags: %s)", strings.Join(h.Tags, ", "))
		}
		fmt.Fprintf(&b, ": %s\n", h.Snippet)
		if m := report.MarkOf(h.Kind, h.EntryID, h.Path); m != "" {
			fmt.Fprintf(&b, "  ⚠ stale: %s\n", m)
			if out.Stale == nil {
				out.Stale = map[string]string{}
			}
			out.Stale[h.EntryID] = m
		}
	}
	b.WriteString("show gives an entry in full")
	if res.Total > len(res.Hits) {
		b.WriteString("; a larger limit gives more")
	}
	b.WriteString(".\n")
	return sess.text(b.String()), out, nil
}

// ShowInput names an entry.
type ShowInput struct {
	ID string `json:"id"`
}

func (t tools) show(ctx context.Context, _ *mcp.CallToolRequest, in ShowInput) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.ID) == "" {
		return nil, nil, errors.New("show needs an id")
	}
	sess, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer sess.close()
	sh, err := sess.show(in.ID)
	if err != nil {
		return nil, nil, toolError(err)
	}
	return sess.text(detail(sh)), sh, nil
}

// show reads the entry id names, of the kind its shape says. An id with
// a NUL, which only an MCP client can send (an argument of a command
// cannot hold one) and no file name holds, names nothing.
func (sess *session) show(id string) (loop.Shown, error) {
	if strings.ContainsRune(id, 0) {
		return loop.Shown{}, entry.NotFound(entry.KindOfID(id))
	}
	return loop.Show(sess.store, "", id, &sess.notes)
}

// detail is an entry as text: its fields, one a line, then its body.
func detail(sh loop.Shown) string {
	var fields [][2]string
	body := ""
	switch {
	case sh.Memory != nil:
		m := sh.Memory
		fields = [][2]string{{"id", m.ID}, {"type", string(m.Type)}, {"tags", strings.Join(m.Tags, ", ")}, {"created", m.Created}}
		body = m.Content
	case sh.Knowledge != nil:
		k := sh.Knowledge
		fields = [][2]string{{"slug", k.Slug}, {"title", k.Title}, {"tags", strings.Join(k.Tags, ", ")}, {"feature", k.Feature},
			{"created_at", k.CreatedAt}, {"updated_at", k.UpdatedAt}, {"path", k.Path}}
		body = k.Body
	case sh.Learning != nil:
		l := sh.Learning
		fields = [][2]string{{"id", l.ID}, {"category", l.Category}, {"status", l.Status}, {"tags", strings.Join(l.Tags, ", ")},
			{"task", l.Task}, {"kind", l.Kind}, {"created_at", l.CreatedAt}, {"superseded_by", l.SupersededBy}, {"path", l.Path}}
		body = l.Body
	case sh.Journal != nil:
		return sh.Markdown()
	case sh.Skill != nil:
		fields = [][2]string{{"name", sh.Skill.Name}, {"description", sh.Skill.Description}, {"path", sh.Skill.Path}}
	}
	var b strings.Builder
	for _, f := range fields {
		if f[1] != "" {
			fmt.Fprintf(&b, "%s: %s\n", f[0], f[1])
		}
	}
	if body != "" {
		b.WriteString("\n" + body + "\n")
	}
	return b.String()
}

// MemoryInput is a new memory.
type MemoryInput struct {
	Content    string   `json:"content"`
	Type       string   `json:"type,omitempty" jsonschema:"pattern (default), decision, fix or context"`
	Tags       []string `json:"tags,omitempty"`
	Supersedes string   `json:"supersedes,omitempty" jsonschema:"the id of an entry of the same kind that this one replaces: retired in the same commit"`
}

// MemoryOutput is the memory added, and its commit.
type MemoryOutput struct {
	entry.Memory
	Commit string `json:"commit,omitempty"`
}

func (t tools) addMemory(ctx context.Context, _ *mcp.CallToolRequest, in MemoryInput) (*mcp.CallToolResult, any, error) {
	sess, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer sess.close()
	typ := entry.MemoryType(in.Type)
	if typ == "" {
		typ = entry.Pattern
	}
	m, res, err := sess.store.AddMemory(mdstore.NewMemory{Type: typ, Content: in.Content, Tags: in.Tags}, superseding(entry.KindMemory, in.Supersedes)...)
	if err != nil {
		return nil, nil, toolError(err)
	}
	return sess.wrote(res, "memory", m.ID), MemoryOutput{Memory: m, Commit: res.Commit}, nil
}

// KnowledgeInput is a new knowledge entry.
type KnowledgeInput struct {
	Title      string   `json:"title"`
	Body       string   `json:"body"`
	Tags       []string `json:"tags"`
	Supersedes string   `json:"supersedes,omitempty" jsonschema:"the id of an entry of the same kind that this one replaces: retired in the same commit"`
}

// KnowledgeOutput is the knowledge entry written, what was done to it,
// and its commit.
type KnowledgeOutput struct {
	entry.Knowledge
	Action entry.KnowledgeAction `json:"action"`
	Commit string                `json:"commit,omitempty"`
}

func (t tools) addKnowledge(ctx context.Context, _ *mcp.CallToolRequest, in KnowledgeInput) (*mcp.CallToolResult, any, error) {
	sess, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer sess.close()
	k, action, res, err := sess.store.AddKnowledge(entry.NewKnowledge{Title: in.Title, Body: in.Body, Tags: in.Tags}, superseding(entry.KindKnowledge, in.Supersedes)...)
	if err != nil {
		return nil, nil, toolError(err)
	}
	return sess.wrote(res, "knowledge", k.Slug), KnowledgeOutput{Knowledge: k, Action: action, Commit: res.Commit}, nil
}

// LearningInput is a new learning.
type LearningInput struct {
	Body       string   `json:"body"`
	Category   string   `json:"category" jsonschema:"success_pattern, pitfall, tool_usage, code_structure, testing_strategy, debugging_technique or other"`
	Tags       []string `json:"tags"`
	Supersedes string   `json:"supersedes,omitempty" jsonschema:"the id of an entry of the same kind that this one replaces: retired in the same commit"`
}

// LearningOutput is the learning added — or the one it nearly duplicates,
// which stays as it is — and its commit.
type LearningOutput struct {
	entry.Learning
	Duplicate bool   `json:"duplicate,omitempty"`
	Commit    string `json:"commit,omitempty"`
}

func (t tools) addLearning(ctx context.Context, _ *mcp.CallToolRequest, in LearningInput) (*mcp.CallToolResult, any, error) {
	sess, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer sess.close()
	l, dup, res, err := sess.store.AddLearning(entry.NewLearning{Category: in.Category, Tags: in.Tags, Body: in.Body}, superseding(entry.KindLearning, in.Supersedes)...)
	if err != nil {
		return nil, nil, toolError(err)
	}
	out := LearningOutput{Learning: l, Duplicate: dup}
	if res != nil {
		out.Commit = res.Commit
	}
	return sess.wrote(res, "learning", l.ID), out, nil
}

// superseding is what an add of kind also does to retire entry old, as
// lore add --supersedes does ("": nothing).
func superseding(kind entry.Kind, old string) []mdstore.Also {
	if old == "" {
		return nil
	}
	return []mdstore.Also{lifecycle.Supersedes(kind, old)}
}

// wrote says what a write of one entry did: its commit, that it is
// queued (in lore's words), or that the store had it already.
func (sess *session) wrote(res *mdstore.WriteResult, kind, id string) *mcp.CallToolResult {
	loop.ReportWrite(&sess.notes, res, loop.KindNoun(entry.Kind(kind)), id)
	switch {
	case res != nil && len(res.Commit) >= 7:
		return sess.text(fmt.Sprintf("Added %s %s (commit %s).", kind, id, res.Commit[:7]))
	case res != nil && res.Queued != "":
		return sess.text(fmt.Sprintf("Not committed yet: %s %s.", kind, id))
	}
	return sess.text(fmt.Sprintf("The store already has this %s: %s.", kind, id))
}

// IngestInput is an iteration's output and what the caller knows of it.
type IngestInput struct {
	Output   string   `json:"output" jsonschema:"the agent's output"`
	Run      string   `json:"run,omitempty"`
	TaskID   string   `json:"task_id,omitempty"`
	Model    string   `json:"model,omitempty"`
	Duration float64  `json:"duration_secs,omitempty"`
	Files    []string `json:"files,omitempty" jsonschema:"files of the repository the iteration modified, relative to its top"`
	Key      string   `json:"key,omitempty" jsonschema:"idempotency key: the key of an iteration of the run again records that iteration again"`
	ExitCode int      `json:"exit_code,omitempty" jsonschema:"the agent's exit status: not 0 without a task sigil is an agent error"`
}

// exitEnd is how an agent that exited with code ended, as lore run says
// it (mdstore.IngestInput.ProcessEnd): "" for 0.
func exitEnd(code int) string {
	if code == 0 {
		return ""
	}
	return fmt.Sprintf("exited with status %d", code)
}

// IngestOutput is what recording the iteration did, and its commit.
type IngestOutput struct {
	*mdstore.IngestResult
	Commit string            `json:"commit,omitempty"`
	Merges []lifecycle.Merge `json:"summarized,omitempty"`
}

func (t tools) ingest(ctx context.Context, _ *mcp.CallToolRequest, in IngestInput) (*mcp.CallToolResult, any, error) {
	if in.Duration < 0 {
		return nil, nil, errors.New("duration_secs cannot be negative")
	}
	sess, err := t.open()
	if err != nil {
		return nil, nil, err
	}
	defer sess.close()
	res, err := loop.Ingest(sess.store, loop.IngestRequest{IngestInput: mdstore.IngestInput{Output: in.Output, RunID: in.Run,
		TaskID: in.TaskID, Model: in.Model, DurationSecs: in.Duration, Files: in.Files, Key: in.Key, ProcessEnd: exitEnd(in.ExitCode)},
		// An output in an agent CLI's JSON is read as what it is; what
		// the caller gave wins over what the format says.
		Given: loop.Given{Model: in.Model != "", Duration: in.Duration != 0, Files: len(in.Files) > 0}}, &sess.notes)
	if res == nil {
		return nil, nil, toolError(err)
	}
	if err != nil {
		sess.notes.Notice(loop.ErrorText(err))
	}
	out := IngestOutput{IngestResult: res.IngestResult, Commit: res.Write.Commit, Merges: res.Merges}
	var b strings.Builder
	if j := res.Journal; j != nil {
		fmt.Fprintf(&b, "Recorded %s iteration %d: %s (%s)", j.RunID, j.Iteration, j.Outcome, j.Path)
	} else {
		b.WriteString("Recorded the iteration")
	}
	fmt.Fprintf(&b, "; %d knowledge, %d learnings", len(res.Knowledge), len(res.Learnings))
	if c := res.Write.Commit; len(c) >= 7 {
		fmt.Fprintf(&b, "; commit %s", c[:7])
	}
	b.WriteString(".")
	return sess.text(b.String()), out, nil
}

func (t tools) memories(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	sess, err := t.open()
	if err != nil {
		return nil, err
	}
	defer sess.close()
	ms, warnings, err := sess.store.Memories()
	sess.notes.Warnings(warnings)
	if err != nil {
		return nil, toolError(err)
	}
	entry.SortNewestFirst(ms)
	return markdown(req.Params.URI, prompt.Render(ms)), nil
}

func (t tools) entry(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, ok := strings.CutPrefix(req.Params.URI, entryURIPrefix)
	if ok {
		id, ok = unescape(id)
	}
	if !ok || id == "" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	sess, err := t.open()
	if err != nil {
		return nil, err
	}
	defer sess.close()
	sh, err := sess.show(id)
	if errors.Is(err, entry.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if err != nil {
		return nil, toolError(err)
	}
	return markdown(req.Params.URI, sh.Markdown()), nil
}

// unescape is an id as a URI carries it: escapes ("%2F") undone.
func unescape(id string) (string, bool) {
	s, err := url.PathUnescape(id)
	return s, err == nil
}

func markdown(uri, text string) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}
}
