// Package mcpserver is lore's MCP server (the official Go SDK): the few
// tools an agent needs — prime, search, show, and adding a memory, a
// knowledge entry, a learning or an iteration's output — each answered by
// running the lore CLI. A tool call is therefore the same command a
// person runs: the same index policy (lore-index or the scan), the same
// commit path, safe beside other lore processes and C git, and the same
// wording for a refused secret, a bad tag or an entry not found. The
// server keeps no state of its own.
//
// Each tool returns text an agent reads well (the CLI's Markdown for
// prime, a short line per result or write) and the CLI's JSON as
// structured content. A failed command is a tool error whose text is
// what the CLI printed on stderr; the server itself does not fail.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Runner runs the lore CLI with args, stdin on its standard input, and
// returns its standard output and the notices it printed on stderr (a
// write queued during a rebase, a search that scanned); a command that
// fails returns an error whose text is the CLI's message (CommandError).
type Runner func(ctx context.Context, stdin string, args ...string) (stdout []byte, notices string, err error)

// CommandError is a lore command that exited non-zero: Message is what
// it printed on stderr, as a person would read it.
type CommandError struct {
	Code    int
	Message string
}

func (e *CommandError) Error() string { return e.Message }

// Instructions is what the server tells a client about itself.
const Instructions = "lore is this project's memory, kept as Markdown under .agent/ and committed to git. " +
	"Call prime at the start of a task for the context earlier iterations left; search and show to look things up; " +
	"add_memory, add_knowledge and add_learning to keep what you learn; ingest to record an iteration's output with its sigils."

// New returns the server, answering through run; version is lore's.
func New(run Runner, version string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lore", Version: version}, &mcp.ServerOptions{Instructions: Instructions})
	t := tools{run: run}
	mcp.AddTool(s, &mcp.Tool{Name: "prime", Description: "The context for a task: memories, knowledge, learnings, journal and loop status, ranked and within a token budget."}, t.prime)
	mcp.AddTool(s, &mcp.Tool{Name: "search", Description: "Full-text, typo-tolerant search over every entry, best first."}, t.search)
	mcp.AddTool(s, &mcp.Tool{Name: "show", Description: "One entry in full, by id: mem-…, l-…, a knowledge slug, run-…/NNNN, a skill name."}, t.show)
	mcp.AddTool(s, &mcp.Tool{Name: "add_memory", Description: "Keep one concept about this codebase (one commit)."}, t.addMemory)
	mcp.AddTool(s, &mcp.Tool{Name: "add_knowledge", Description: "Keep a titled fact about this project (one commit)."}, t.addKnowledge)
	mcp.AddTool(s, &mcp.Tool{Name: "add_learning", Description: "Keep an insight for other tasks (one commit)."}, t.addLearning)
	mcp.AddTool(s, &mcp.Tool{Name: "ingest", Description: "Record an iteration from its output: <task-done>, <journal>, <knowledge>, <learning>, <failure-report> sigils (one commit)."}, t.ingest)
	s.AddResource(&mcp.Resource{URI: MemoriesURI, Name: "memories", Description: "Every memory, as Markdown.", MIMEType: "text/markdown"}, t.memories)
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: EntryURITemplate, Name: "entry", Description: "One entry by id, as Markdown.", MIMEType: "text/markdown"}, t.entry)
	return s
}

// The store's resources: every memory, and any entry by id.
const (
	MemoriesURI      = "lore://memories"
	EntryURITemplate = "lore://entry/{id}"
)

func (t tools) memories(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	out, _, err := t.run(ctx, "", "list", "--format", "markdown")
	if err != nil {
		return nil, err
	}
	return markdown(req.Params.URI, out), nil
}

func (t tools) entry(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, ok := strings.CutPrefix(req.Params.URI, "lore://entry/")
	if !ok || id == "" {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	out, _, err := t.run(ctx, "", "show", id, "--format", "markdown")
	var cmdErr *CommandError
	if errors.As(err, &cmdErr) && cmdErr.Code == 1 {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if err != nil {
		return nil, err
	}
	return markdown(req.Params.URI, out), nil
}

func markdown(uri string, text []byte) *mcp.ReadResourceResult {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(text)}}}
}

type tools struct{ run Runner }

// PrimeInput is a task to prime for.
type PrimeInput struct {
	Title       string   `json:"title,omitempty" jsonschema:"the task's title"`
	Description string   `json:"description,omitempty"`
	TaskID      string   `json:"task_id,omitempty"`
	Files       []string `json:"files,omitempty" jsonschema:"files the task is about"`
	Budget      int      `json:"budget,omitempty" jsonschema:"total tokens (default: each section its own share)"`
}

// searchDefault is how many results lore search gives without --all.
const searchDefault = 10

// SearchInput is a search.
type SearchInput struct {
	Query string   `json:"query"`
	Kind  string   `json:"kind,omitempty" jsonschema:"memory, knowledge, learning, journal or skill (comma-separated)"`
	Tags  []string `json:"tags,omitempty"`
	Limit int      `json:"limit,omitempty" jsonschema:"most results (default 10)"`
}

// ShowInput names an entry.
type ShowInput struct {
	ID string `json:"id"`
}

// MemoryInput is a new memory.
type MemoryInput struct {
	Content string   `json:"content"`
	Type    string   `json:"type,omitempty" jsonschema:"pattern (default), decision, fix or context"`
	Tags    []string `json:"tags,omitempty"`
}

// KnowledgeInput is a new knowledge entry.
type KnowledgeInput struct {
	Title string   `json:"title"`
	Body  string   `json:"body"`
	Tags  []string `json:"tags"`
}

// LearningInput is a new learning.
type LearningInput struct {
	Body     string   `json:"body"`
	Category string   `json:"category" jsonschema:"success_pattern, pitfall, tool_usage, code_structure, testing_strategy, debugging_technique or other"`
	Tags     []string `json:"tags"`
}

// IngestInput is an iteration's output and what the caller knows of it.
type IngestInput struct {
	Output   string   `json:"output" jsonschema:"the agent's output"`
	Run      string   `json:"run,omitempty"`
	TaskID   string   `json:"task_id,omitempty"`
	Model    string   `json:"model,omitempty"`
	Duration float64  `json:"duration_secs,omitempty"`
	Files    []string `json:"files,omitempty" jsonschema:"files the iteration modified"`
}

// flags appends --name value for each value set.
type flags []string

func (f *flags) str(name, v string) {
	if v != "" {
		*f = append(*f, "--"+name, v)
	}
}

func (f *flags) list(name string, v []string) { f.str(name, strings.Join(v, ",")) }

func (f *flags) num(name string, v float64) {
	if v != 0 {
		f.str(name, strconv.FormatFloat(v, 'f', -1, 64))
	}
}

// call runs lore with args and returns its JSON answer as structured
// content (an object: an array is wrapped as {"results": …}) and
// decoded into into, when into is not nil.
func (t tools) call(ctx context.Context, stdin string, into any, args ...string) (map[string]any, string, error) {
	out, notices, err := t.run(ctx, stdin, args...)
	if err != nil {
		return nil, "", err
	}
	var v any
	if err := json.Unmarshal(out, &v); err != nil {
		return nil, "", fmt.Errorf("lore %s answered with something that is not JSON: %w", args[0], err)
	}
	if into != nil {
		if err := json.Unmarshal(out, into); err != nil {
			return nil, "", fmt.Errorf("lore %s: %w", args[0], err)
		}
	}
	if m, ok := v.(map[string]any); ok {
		return m, notices, nil
	}
	return map[string]any{"results": v}, notices, nil
}

// text is a tool result of one text block: s, then what lore noted on
// the way.
func text(s, notices string) *mcp.CallToolResult {
	if notices = strings.TrimSpace(notices); notices != "" {
		s = strings.TrimRight(s, "\n") + "\n\n" + notices + "\n"
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func (t tools) prime(ctx context.Context, _ *mcp.CallToolRequest, in PrimeInput) (*mcp.CallToolResult, any, error) {
	args := flags{"prime", "--format", "json"}
	args.str("title", in.Title)
	args.str("description", in.Description)
	args.str("task-id", in.TaskID)
	args.list("files", in.Files)
	if in.Budget > 0 {
		args.str("budget", strconv.Itoa(in.Budget))
	}
	var answer struct {
		Sections []struct {
			Markdown string `json:"markdown"`
		} `json:"sections"`
		Loop *struct {
			Iteration int `json:"iteration"`
			Task      struct {
				TaskID              string `json:"task_id"`
				Attempts            int    `json:"attempts"`
				ConsecutiveFailures int    `json:"consecutive_failures"`
				Stuck               bool   `json:"stuck"`
			} `json:"task"`
			Model struct {
				Model  string `json:"model"`
				Reason string `json:"reason"`
			} `json:"model"`
		} `json:"loop_status"`
	}
	structured, notices, err := t.call(ctx, "", &answer, args...)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	for _, s := range answer.Sections {
		b.WriteString(strings.TrimSpace(s.Markdown))
		b.WriteString("\n\n")
	}
	if l := answer.Loop; l != nil {
		fmt.Fprintf(&b, "Loop status: iteration %d", l.Iteration)
		if l.Task.TaskID != "" {
			fmt.Fprintf(&b, "; task %s: attempt %d, %d consecutive failures", l.Task.TaskID, l.Task.Attempts+1, l.Task.ConsecutiveFailures)
			if l.Task.Stuck {
				b.WriteString(" (stuck: change approach)")
			}
		}
		if l.Model.Model != "" {
			fmt.Fprintf(&b, "; model %s (%s)", l.Model.Model, l.Model.Reason)
		}
		b.WriteString("\n")
	}
	if b.Len() == 0 {
		b.WriteString("The store has nothing for this task yet.\n")
	}
	return text(b.String(), notices), structured, nil
}

func (t tools) search(ctx context.Context, _ *mcp.CallToolRequest, in SearchInput) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.Query) == "" {
		return nil, nil, errors.New("search needs a query")
	}
	args := flags{"search", in.Query, "--format", "json"}
	args.str("kind", in.Kind)
	args.list("tags", in.Tags)
	if in.Limit > searchDefault {
		args = append(args, "--all")
	}
	var results []struct {
		Kind    string   `json:"kind"`
		ID      string   `json:"id"`
		Title   string   `json:"title"`
		Tags    []string `json:"tags"`
		Snippet string   `json:"snippet"`
	}
	structured, notices, err := t.call(ctx, "", &results, args...)
	if err != nil {
		return nil, nil, err
	}
	if all, ok := structured["results"].([]any); ok && in.Limit > 0 && len(all) > in.Limit {
		structured["results"], results = all[:in.Limit], results[:in.Limit]
	}
	if len(results) == 0 {
		return text("No entry matches "+strconv.Quote(in.Query)+".", notices), structured, nil
	}
	var b strings.Builder
	for _, r := range results {
		fmt.Fprintf(&b, "- [%s] %s", r.Kind, r.ID)
		if r.Title != "" {
			fmt.Fprintf(&b, " %q", r.Title)
		}
		if len(r.Tags) > 0 {
			fmt.Fprintf(&b, " (tags: %s)", strings.Join(r.Tags, ", "))
		}
		fmt.Fprintf(&b, ": %s\n", r.Snippet)
	}
	b.WriteString("show gives an entry in full.\n")
	return text(b.String(), notices), structured, nil
}

// bodyFields are the fields that hold an entry's text, in the order an
// entry kind has them.
var bodyFields = []string{"content", "body", "notes"}

func (t tools) show(ctx context.Context, _ *mcp.CallToolRequest, in ShowInput) (*mcp.CallToolResult, any, error) {
	if strings.TrimSpace(in.ID) == "" {
		return nil, nil, errors.New("show needs an id")
	}
	structured, notices, err := t.call(ctx, "", nil, "show", in.ID, "--format", "json")
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	var body string
	for _, k := range slices.Sorted(maps.Keys(structured)) {
		v := structured[k]
		if slices.Contains(bodyFields, k) {
			if s, ok := v.(string); ok {
				body = s
			}
			continue
		}
		if s := scalar(v); s != "" {
			fmt.Fprintf(&b, "%s: %s\n", k, s)
		}
	}
	if body != "" {
		b.WriteString("\n" + body + "\n")
	}
	return text(b.String(), notices), structured, nil
}

// scalar is v on one line: a string, number or list of them ("" for
// anything else).
func scalar(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		var parts []string
		for _, x := range v {
			if s := scalar(x); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	}
	return ""
}

func (t tools) addMemory(ctx context.Context, _ *mcp.CallToolRequest, in MemoryInput) (*mcp.CallToolResult, any, error) {
	args := flags{"add", "-", "--format", "json"}
	args.str("type", in.Type)
	args.list("tags", in.Tags)
	return t.write(ctx, in.Content, "memory", "id", args)
}

func (t tools) addKnowledge(ctx context.Context, _ *mcp.CallToolRequest, in KnowledgeInput) (*mcp.CallToolResult, any, error) {
	args := flags{"knowledge", "add", "-", "--format", "json"}
	args.str("title", in.Title)
	args.list("tags", in.Tags)
	return t.write(ctx, in.Body, "knowledge", "slug", args)
}

func (t tools) addLearning(ctx context.Context, _ *mcp.CallToolRequest, in LearningInput) (*mcp.CallToolResult, any, error) {
	args := flags{"learning", "add", "-", "--format", "json"}
	args.str("category", in.Category)
	args.list("tags", in.Tags)
	return t.write(ctx, in.Body, "learning", "id", args)
}

// write runs a command that adds one entry, its text on stdin, and says
// what it added and in which commit.
func (t tools) write(ctx context.Context, stdin, kind, idField string, args flags) (*mcp.CallToolResult, any, error) {
	structured, notices, err := t.call(ctx, stdin, nil, args...)
	if err != nil {
		return nil, nil, err
	}
	id := scalar(structured[idField])
	var msg string
	switch commit := scalar(structured["commit"]); {
	case len(commit) >= 7:
		msg = fmt.Sprintf("Added %s %s (commit %s).", kind, id, commit[:7])
	case notices != "":
		// Not committed, and lore said why (queued while git is in the
		// middle of a rebase): its words say it.
		return text(fmt.Sprintf("Not committed yet: %s %s.", kind, id), notices), structured, nil
	default:
		msg = fmt.Sprintf("The store already has this %s: %s.", kind, id)
	}
	return text(msg, ""), structured, nil
}

func (t tools) ingest(ctx context.Context, _ *mcp.CallToolRequest, in IngestInput) (*mcp.CallToolResult, any, error) {
	args := flags{"ingest", "-", "--format", "json"}
	args.str("run", in.Run)
	args.str("task", in.TaskID)
	args.str("model", in.Model)
	args.num("duration", in.Duration)
	args.list("files", in.Files)
	var answer struct {
		Journal *struct {
			RunID     string `json:"run_id"`
			Iteration int    `json:"iteration"`
			Outcome   string `json:"outcome"`
			Path      string `json:"path"`
		} `json:"journal"`
		Knowledge []any  `json:"knowledge"`
		Learnings []any  `json:"learnings"`
		Commit    string `json:"commit"`
	}
	structured, notices, err := t.call(ctx, in.Output, &answer, args...)
	if err != nil {
		return nil, nil, err
	}
	var b strings.Builder
	if j := answer.Journal; j != nil {
		fmt.Fprintf(&b, "Recorded %s iteration %d: %s (%s)", j.RunID, j.Iteration, j.Outcome, j.Path)
	} else {
		b.WriteString("Recorded the iteration")
	}
	fmt.Fprintf(&b, "; %d knowledge, %d learnings", len(answer.Knowledge), len(answer.Learnings))
	if len(answer.Commit) >= 7 {
		fmt.Fprintf(&b, "; commit %s", answer.Commit[:7])
	}
	b.WriteString(".")
	return text(b.String(), notices), structured, nil
}
