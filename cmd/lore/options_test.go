package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"lore/agentout"
	"lore/index"
	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/prompt"
	"lore/strategy"
)

// TestFlagsToOptions: the options struct a command line turns into, seen
// through env.runCommand in place of the command's run function, so
// nothing runs. The whole of run takes part: normalizeArgs, urfave/cli's
// parsing and each Action's checks. Every command ends its Action with
// runWith, and every command has a row here that it runs with: the
// subtest "every command has a row" fails for one that has none.
func TestFlagsToOptions(t *testing.T) {
	dir := t.TempDir()
	defaults := globals{color: "auto"}
	e, _, _ := testEnv(dir)
	app := newApp(e)
	covered := map[string]bool{} // the commands a row runs with
	noneSet := map[string]bool{"budget": false, "type": false, "tags": false, "recent": false}
	for _, tc := range []struct {
		args  []string
		stdin string
		g     globals // the zero value: defaults
		want  any     // nil: refused with status 2 before running
	}{
		{args: []string{"init"}, want: initOptions{}},
		{args: []string{"init", "--force"}, want: initOptions{force: true}},
		{args: []string{"init", "extra"}},

		{args: []string{"add", "x"}, want: addOptions{content: "x", typ: "pattern", format: "table"}},
		{args: []string{"add", "barrel", "exports", "-t", "fix", "--tags", "a,b", "--format", "quiet"},
			want: addOptions{content: "barrel exports", typ: "fix", tags: "a,b", format: "quiet"}},
		{args: []string{"add", "--type=decision", "--", "-5 degrees", "--is cold"}, want: addOptions{content: "-5 degrees --is cold", typ: "decision", format: "table"}},
		{args: []string{"add", "-", "--format", "json"}, stdin: "from stdin\n", want: addOptions{content: "from stdin\n", typ: "pattern", format: "json"}},
		{args: []string{"--color", "never", "add", "x", "--root", "sub"}, g: globals{root: "sub", color: "never"},
			want: addOptions{content: "x", typ: "pattern", format: "table"}},
		{args: []string{"add", "-t", "fix"}},
		{args: []string{"add", "x", "--format", "yaml"}},
		{args: []string{"add", "new", "--supersedes", "mem-1-abcd"}, want: addOptions{content: "new", typ: "pattern", format: "table", supersedes: "mem-1-abcd"}},

		{args: []string{"edit", "mem-1-abcd", "new", "text", "--tags", "a,b", "-t", "fix", "--format", "json"},
			want: editOptions{id: "mem-1-abcd", content: ptr("new text"), tags: ptr("a,b"), typ: "fix", format: "json"}},
		{args: []string{"edit", "l-0a1b2c", "-", "--category", "pitfall"}, stdin: "from stdin\n",
			want: editOptions{id: "l-0a1b2c", content: ptr("from stdin\n"), category: "pitfall", format: "table"}},
		{args: []string{"edit", "some-slug", "--title", "New title"}, want: editOptions{id: "some-slug", title: "New title", format: "table"}},
		{args: []string{"edit"}},
		{args: []string{"edit", "x", "--format", "markdown"}},

		{args: []string{"list"}, want: listOptions{format: "table"}},
		{args: []string{"list", "-t", "fix,pattern", "--last", "3", "--format", "json"}, want: listOptions{types: "fix,pattern", last: 3, format: "json"}},
		{args: []string{"list", "--last", "0"}},

		{args: []string{"show", "mem-1-abcd", "--format", "markdown"}, want: showOptions{id: "mem-1-abcd", format: "markdown"}},
		{args: []string{"show", "mem-1-abcd", "mem-2-abcd"}},

		{args: []string{"delete", "mem-1-abcd"}, want: deleteOptions{id: "mem-1-abcd"}},
		{args: []string{"delete"}},

		// A group of subcommands given a word that names none of them.
		{args: []string{"journal", "bogus"}},
		{args: []string{"index", "bogus"}},
		{args: []string{"hooks", "bogus", "--git"}},
		{args: []string{"knowledge", "bogus"}},
		{args: []string{"learning", "bogus"}},
		{args: []string{"skills", "bogus"}},

		{args: []string{"search"}, want: searchOptions{format: "table"}},
		{args: []string{"search", "x", "--status", "rejected,staged"}, want: searchOptions{query: "x", statuses: "rejected,staged", format: "table"}},
		{args: []string{"search", "barrel", "exports", "--kind", "memory,knowledge", "-t", "fix", "--tags", "db", "--category", "pitfall",
			"--task", "T-1", "--run", "r1", "--since", "7d", "--all", "--format", "json"},
			want: searchOptions{query: "barrel exports", kinds: "memory,knowledge", types: "fix", tags: "db", categories: "pitfall",
				task: "T-1", run: "r1", since: "7d", all: true, format: "json"}},
		{args: []string{"search", "x", "--format", "quiet"}},

		{args: []string{"index", "status"}, want: indexOptions{op: index.OpStatus, format: "text"}},
		{args: []string{"index", "refresh", "--format", "json"}, want: indexOptions{op: index.OpRefresh, format: "json"}},
		{args: []string{"index", "rebuild"}, want: indexOptions{op: index.OpRebuild, format: "text"}},
		{args: []string{"index", "stop"}, want: indexOptions{op: index.OpStop}},
		{args: []string{"index", "rebuild", "--format", "table"}},

		{args: []string{"prime"}, want: primeOptions{headingLevel: 2, format: "markdown", set: noneSet, loop: strategy.Input{Strategy: strategy.CostOptimized}}},
		{args: []string{"prime", "--task-id", "T-1", "--title", "Add migrations", "--description", "D", "--feature", "F", "--files", "a.go, b.go",
			"--run", "r1", "--iteration", "3", "--limit", "10", "--model", "opus", "--strategy", "escalate",
			"--budget", "2000", "-t", "fix", "--tags", "db", "--recent", "7", "--no-instructions", "--no-learn", "--format", "json", "--heading-level", "3"},
			want: primeOptions{budget: 2000, headingLevel: 3, types: "fix", tags: "db", recent: 7, format: "json", noInstructions: true, noLearn: true,
				set:  map[string]bool{"budget": true, "type": true, "tags": true, "recent": true},
				task: prompt.Task{ID: "T-1", Title: "Add migrations", Description: "D", Feature: "F", Files: []string{"a.go", "b.go"}, Run: "r1"},
				loop: strategy.Input{TaskID: "T-1", Run: "r1", Iteration: 3, Limit: 10, Model: "opus", Strategy: strategy.Escalate}}},
		{args: []string{"prime", "--task", "T-2", "--budget", "0"},
			want: primeOptions{headingLevel: 2, format: "markdown", set: map[string]bool{"budget": true, "type": false, "tags": false, "recent": false},
				task: prompt.Task{ID: "T-2"}, loop: strategy.Input{TaskID: "T-2", Strategy: strategy.CostOptimized}}},
		{args: []string{"prime", "--hook", "claude"},
			want: primeOptions{headingLevel: 2, format: "markdown", hook: "claude", set: noneSet, loop: strategy.Input{Strategy: strategy.CostOptimized}}},
		{args: []string{"prime", "--budget", "-1"}},
		{args: []string{"prime", "--heading-level", "0"}},
		{args: []string{"prime", "--heading-level", "5"}},
		{args: []string{"prime", "--strategy", "cheapest"}},
		{args: []string{"prime", "--hook", "claude", "--format", "json"}}, // status 2 even as a hook: unlike ingest, prime checks its flags outside hookExit
		{args: []string{"prime", "--hook", "cursor"}},
		{args: []string{"prime", "extra"}},

		{args: []string{"status"}, want: statusOptions{format: "text", loop: strategy.Input{Strategy: strategy.CostOptimized}}},
		{args: []string{"status", "--task", "T-1", "--run", "r1", "--iteration", "3", "--limit", "10", "--model", "opus", "--strategy", "fixed", "--format", "json"},
			want: statusOptions{format: "json", loop: strategy.Input{TaskID: "T-1", Run: "r1", Iteration: 3, Limit: 10, Model: "opus", Strategy: strategy.Fixed}}},
		{args: []string{"status", "T-1"}},
		{args: []string{"status", "--limit", "-1"}},
		{args: []string{"status", "--format", "markdown"}},

		{args: []string{"model", "--task-id", "T-1", "--hint", "opus", "--strategy", "escalate", "--format", "json"},
			want: modelOptions{format: "json", loop: strategy.Input{TaskID: "T-1", Hint: "opus", Strategy: strategy.Escalate}}},
		{args: []string{"model", "T-1"}},
		{args: []string{"model", "--strategy", "cheapest"}},

		{args: []string{"usage"}, want: usageOptions{format: "table"}},
		{args: []string{"usage", "--format", "json"}, want: usageOptions{format: "json"}},
		{args: []string{"usage", "extra"}},
		{args: []string{"usage", "--format", "text"}},

		{args: []string{"stale"}, want: "table"},
		{args: []string{"stale", "--format", "json"}, want: "json"},
		{args: []string{"stale", "extra"}},
		{args: []string{"verify", "mem-1-aaaa", "l-abcdef"}, want: verifyOptions{ids: []string{"mem-1-aaaa", "l-abcdef"}}},
		{args: []string{"verify", "--stale"}, want: verifyOptions{ids: []string{}, stale: true}},
		{args: []string{"verify"}},
		{args: []string{"cite", "--dry-run", "--format", "json", "mem-1-aaaa"}, want: citeOptions{ids: []string{"mem-1-aaaa"}, dryRun: true, format: "json"}},
		{args: []string{"cite"}, want: citeOptions{ids: []string{}, format: "table"}},
		{args: []string{"add", "x", "--cite", "a.go:3", "--cite", "b.go"}, want: addOptions{content: "x", typ: "pattern", format: "table", cite: []string{"a.go:3", "b.go"}}},

		{args: []string{"validate"}, want: validateOptions{paths: []string{}, format: "text"}},
		{args: []string{"sync"}, want: syncOptions{retries: 5, format: "text"}},
		{args: []string{"sync", "--retries", "2", "--format", "json"}, want: syncOptions{retries: 2, format: "json"}},
		{args: []string{"validate", ".agent/memories.md", ".agent/knowledge", "--staged", "--format", "json"},
			want: validateOptions{staged: true, paths: []string{".agent/memories.md", ".agent/knowledge"}, format: "json"}},
		{args: []string{"validate", "--format", "table"}},

		{args: []string{"merge-driver", "base", "ours", "theirs", ".agent/memories.md"},
			want: mergeDriverOptions{base: "base", ours: "ours", theirs: "theirs", path: ".agent/memories.md"}},
		{args: []string{"merge-driver", "base", "ours", "theirs"}},

		{args: []string{"ingest", "out.txt", "--run", "r1", "--iteration", "2", "--task", "T-1", "--feature", "F", "--model", "sonnet",
			"--duration", "12.5", "--cost", "0.25", "--files", "a.go,b.go", "--format", "json"},
			want: ingestOptions{source: "out.txt", format: "json", agentFormat: agentout.Auto, setRun: true, setIter: true, setModel: true, setDuration: true, setCost: true, setFiles: true,
				in: mdstore.IngestInput{RunID: "r1", Iteration: 2, TaskID: "T-1", FeatureID: "F", Model: "sonnet",
					DurationSecs: 12.5, CostUSD: 0.25, Files: []string{"a.go", "b.go"}}}},
		{args: []string{"ingest", "--transcript", "t.jsonl"}, want: ingestOptions{transcript: "t.jsonl", format: "table", agentFormat: agentout.Auto}},
		{args: []string{"ingest", "-"}, want: ingestOptions{source: "-", format: "table", agentFormat: agentout.Auto}},
		{args: []string{"ingest", "-", "--run-end"}, want: ingestOptions{source: "-", format: "table", agentFormat: agentout.Auto, runEnd: true}},
		{args: []string{"ingest", "--hook", "claude"}, want: ingestOptions{hook: "claude", format: "table", agentFormat: agentout.Auto}},
		{args: []string{"ingest", "out.json", "--agent-format", "claude-stream-json"}, want: ingestOptions{source: "out.json", format: "table", agentFormat: agentout.ClaudeStreamJSON}},
		{args: []string{"ingest", "out.json", "--agent-format", "stream-json"}},
		{args: []string{"ingest", "--transcript", "t.jsonl", "--agent-format", "text"}},
		{args: []string{"ingest"}},
		{args: []string{"ingest", "out.txt", "--cost", "-1"}},

		{args: []string{"run", "--", "claude", "-p", "{prompt}"},
			want: runOptions{command: []string{"claude", "-p", "{prompt}"}, repeat: 1, format: agentout.Auto,
				prime: primeOptions{headingLevel: 2, format: "markdown", set: noneSet, loop: strategy.Input{Strategy: strategy.CostOptimized}}}},
		{args: []string{"run", "--task-id", "T-1", "--title", "Add migrations", "--run", "r1", "--model", "opus", "--budget", "2000",
			"--repeat", "5", "--root", "sub", "--", "agent", "--root", "x", "--", "-t"}, g: globals{root: "sub", color: "auto"},
			want: runOptions{command: []string{"agent", "--root", "x", "--", "-t"}, repeat: 5, format: agentout.Auto,
				prime: primeOptions{budget: 2000, headingLevel: 2, format: "markdown", set: map[string]bool{"budget": true, "type": false, "tags": false, "recent": false},
					task: prompt.Task{ID: "T-1", Title: "Add migrations", Run: "r1"},
					loop: strategy.Input{TaskID: "T-1", Run: "r1", Model: "opus", Strategy: strategy.CostOptimized}}}},
		{args: []string{"run", "--run-end", "--objective", "Fix the tests", "--", "claude"},
			want: runOptions{command: []string{"claude"}, repeat: 1, runEnd: true, objective: "Fix the tests", format: agentout.Auto,
				prime: primeOptions{headingLevel: 2, format: "markdown", set: noneSet, loop: strategy.Input{Strategy: strategy.CostOptimized}}}},
		{args: []string{"run", "--agent-format", "codex-json", "--", "codex", "exec", "--json"},
			want: runOptions{command: []string{"codex", "exec", "--json"}, repeat: 1, format: agentout.CodexJSON,
				prime: primeOptions{headingLevel: 2, format: "markdown", set: noneSet, loop: strategy.Input{Strategy: strategy.CostOptimized}}}},
		{args: []string{"run", "--agent-format", "json", "--", "claude"}},
		{args: []string{"run", "--objective", "Fix the tests", "--", "claude"}},
		{args: []string{"run"}},
		{args: []string{"run", "--title", "T"}},
		{args: []string{"run", "--"}},
		{args: []string{"run", "claude", "-p", "{prompt}"}},
		{args: []string{"run", "--repeat", "0", "--", "claude"}},
		{args: []string{"run", "--run", "Not A Run", "--", "claude"}},
		{args: []string{"run", "--format", "json", "--", "claude"}},

		{args: []string{"knowledge", "add", "One schema per service.", "--title", "Database layout", "--tags", "db,schema", "--feature", "F", "--format", "quiet"},
			want: knowledgeAddOptions{title: "Database layout", tags: "db,schema", feature: "F", body: "One schema per service.", format: "quiet"}},
		{args: []string{"knowledge", "add", "--title", "T"}},
		{args: []string{"knowledge", "add", "b", "--title", "T", "--supersedes", "old-slug"}, want: knowledgeAddOptions{title: "T", body: "b", format: "table", supersedes: "old-slug"}},
		{args: []string{"knowledge", "list"}, want: knowledgeListOptions{format: "table"}},
		{args: []string{"knowledge", "list", "--tags", "db", "--format", "json"}, want: knowledgeListOptions{tags: "db", format: "json"}},
		{args: []string{"knowledge", "list", "--format", "quiet"}},
		{args: []string{"knowledge", "show", "database-layout", "--format", "markdown"}, want: knowledgeShowOptions{slug: "database-layout", format: "markdown"}},
		{args: []string{"knowledge", "show"}},
		{args: []string{"knowledge", "delete", "database-layout"}, want: knowledgeDeleteOptions{slug: "database-layout"}},
		{args: []string{"knowledge", "delete", "a", "b"}},

		{args: []string{"learning", "add", "x"}, want: learningAddOptions{format: "table", learning: entry.NewLearning{Status: "active", Body: "x"}}},
		{args: []string{"learning", "add", "Run", "go", "vet", "first.", "--category", "pitfall", "--tags", "go,vet", "--task", "T-1",
			"--status", "staged", "--kind", "tool", "--format", "quiet"},
			want: learningAddOptions{format: "quiet", learning: entry.NewLearning{Category: "pitfall", Tags: []string{"go", "vet"}, Task: "T-1",
				Status: "staged", Kind: "tool", Body: "Run go vet first."}}},
		{args: []string{"learning", "add", "--category", "pitfall"}},
		{args: []string{"learning", "add", "x", "--supersedes", "l-0a1b2c"}, want: learningAddOptions{format: "table", supersedes: "l-0a1b2c", learning: entry.NewLearning{Status: "active", Body: "x"}}},
		{args: []string{"learning", "add", "x", "--format", "markdown"}},

		{args: []string{"learning", "list"}, want: learningListOptions{format: "table"}},
		{args: []string{"learning", "list", "--all"}, want: learningListOptions{format: "table", all: true}},
		{args: []string{"learnings", "list", "--category", "pitfall", "--status", "active", "--tags", "db", "--format", "markdown"},
			want: learningListOptions{category: "pitfall", status: "active", tags: "db", format: "markdown"}},
		{args: []string{"learning", "list", "--format", "quiet"}},
		{args: []string{"learning", "show", "lrn-1-abcd", "--format", "json"}, want: learningShowOptions{id: "lrn-1-abcd", format: "json"}},
		{args: []string{"learning", "show"}},
		{args: []string{"learning", "delete", "lrn-1-abcd"}, want: learningDeleteOptions{id: "lrn-1-abcd"}},
		{args: []string{"learning", "delete"}},
		{args: []string{"learning", "status", "l-0a1b2c", "rejected", "--reason", "not true here", "--format", "json"},
			want: learningStatusOptions{id: "l-0a1b2c", status: "rejected", reason: "not true here", format: "json"}},
		{args: []string{"learning", "status", "l-0a1b2c", "pruned"}, want: learningStatusOptions{id: "l-0a1b2c", status: "pruned", format: "table"}},
		{args: []string{"learning", "status", "l-0a1b2c"}},
		{args: []string{"learning", "status", "l-0a1b2c", "pruned", "--format", "markdown"}},
		{args: []string{"learning", "supersede", "l-0a1b2c", "l-3d4e5f"}, want: learningSupersedeOptions{old: "l-0a1b2c", newer: "l-3d4e5f", format: "table"}},
		{args: []string{"learning", "supersede", "l-0a1b2c"}},
		{args: []string{"learning", "summarize"}, want: learningSummarizeOptions{format: "table"}},
		{args: []string{"learning", "summarize", "--dry-run", "--format", "json"}, want: learningSummarizeOptions{dryRun: true, format: "json"}},
		{args: []string{"learning", "summarize", "x"}},
		{args: []string{"learning", "promote", "l-0a1b2c", "l-3d4e5f"}, want: learningPromoteOptions{ids: []string{"l-0a1b2c", "l-3d4e5f"}, format: "table"}},
		{args: []string{"learning", "promote", "--all", "--dry-run"}, want: learningPromoteOptions{ids: []string{}, dryRun: true, format: "table"}},
		{args: []string{"learning", "promote"}},
		{args: []string{"history", "l-0a1b2c", "--format", "json"}, want: historyOptions{id: "l-0a1b2c", format: "json"}},
		{args: []string{"history", "mem-1-abcd", "--patch"}, want: historyOptions{id: "mem-1-abcd", format: "table", patch: true}},
		{args: []string{"history"}},
		{args: []string{"resolve"}, want: resolveOptions{format: "text"}},
		{args: []string{"resolve", ".agent/memories.md", "sub", "--dry-run", "--format", "json"},
			want: resolveOptions{paths: []string{".agent/memories.md", "sub"}, dryRun: true, format: "json"}},
		{args: []string{"resolve", "--format", "table"}},
		{args: []string{"history", "x", "--format", "quiet"}},
		{args: []string{"restore", "mem-1-abcd"}, want: restoreOptions{id: "mem-1-abcd", format: "table"}},
		{args: []string{"restore", "a", "b"}},
		{args: []string{"stats"}, want: statsOptions{format: "text"}},
		{args: []string{"stats", "--format", "json"}, want: statsOptions{format: "json"}},
		{args: []string{"stats", "x"}},
		{args: []string{"stats", "--status", "staged,pruned"}, want: statsOptions{format: "text", statuses: []string{"staged", "pruned"}}},
		{args: []string{"stats", "--status", "bogus"}},
		{args: []string{"mcp"}, want: struct{}{}},
		{args: []string{"--root", "elsewhere", "mcp"}, g: globals{root: "elsewhere", color: "auto"}, want: struct{}{}},
		{args: []string{"mcp", "extra"}},
		{args: []string{"export"}, want: exportOptions{format: "json"}},
		{args: []string{"export", "--kind", "learning,journal", "--format", "csv"}, want: exportOptions{kinds: "learning,journal", format: "csv"}},
		{args: []string{"export", "out.json"}},
		{args: []string{"import", "x.json"}, want: importOptions{source: "x.json", format: "table"}},
		{args: []string{"import", "-", "--format", "json"}, want: importOptions{source: "-", format: "json"}},
		{args: []string{"import"}},
		{args: []string{"prune"}, want: pruneOptions{format: "table"}},
		{args: []string{"prune", "--dry-run", "--older-than", "7d", "--hard", "--format", "json"}, want: pruneOptions{dryRun: true, olderThan: "7d", hard: true, format: "json"}},
		{args: []string{"prune", "x"}},
		{args: []string{"revert", "run-0a1b2c3d/0002"}, want: revertOptions{key: "run-0a1b2c3d/0002", format: "table"}},
		{args: []string{"revert", "run-0a1b2c3d/0002", "--dry-run", "--format", "json"}, want: revertOptions{key: "run-0a1b2c3d/0002", dryRun: true, format: "json"}},
		{args: []string{"revert"}},
		{args: []string{"revert", "a/1", "b/2"}},
		{args: []string{"extract", "--run", "run-1", "--objective", "Fix tests", "--dry-run", "--format", "json"},
			want: extractOptions{run: "run-1", objective: "Fix tests", dryRun: true, format: "json"}},
		{args: []string{"extract"}},

		{args: []string{"journal", "add", "--outcome", "done"}, want: journalAddOptions{entry: entry.JournalEntry{Outcome: "done"}, format: "table"}},
		{args: []string{"journal", "add", "Tried", "the", "cache.", "--outcome", "failed", "--run", "r1", "--iteration", "2", "--task", "T-1",
			"--feature", "F", "--model", "sonnet", "--next-model", "opus", "--duration", "12.5", "--cost", "0.25", "--files", "a.go, b.go",
			"--difficulty", "hard", "--what-tried", "W", "--why-failed", "Y", "--error-category", "build_error", "--relevant-files", "x.go",
			"--stack-trace", "S", "--retry-suggestion", "R", "--format", "json"},
			want: journalAddOptions{format: "json", entry: entry.JournalEntry{RunID: "r1", Iteration: 2, TaskID: "T-1", FeatureID: "F",
				Outcome: "failed", Model: "sonnet", NextModel: "opus", DurationSecs: 12.5, CostUSD: 0.25, FilesModified: []string{"a.go", "b.go"},
				Difficulty: "hard", Notes: "Tried the cache.", Failure: &entry.Failure{WhatTried: "W", WhyFailed: "Y", ErrorCategory: "build_error",
					RelevantFiles: []string{"x.go"}, StackTrace: "S", RetrySuggestion: "R"}}}},
		{args: []string{"journal", "add", "-", "--outcome", "done", "--why-failed", ""}, stdin: "notes\n",
			want: journalAddOptions{entry: entry.JournalEntry{Outcome: "done", Notes: "notes\n", Failure: &entry.Failure{}}, format: "table"}},
		{args: []string{"journal", "add", "notes"}},
		{args: []string{"journal", "add", "--outcome", "done", "--iteration", "-1"}},
		{args: []string{"journal", "add", "--outcome", "done", "--format", "markdown"}},
		{args: []string{"journal", "list"}, want: journalListOptions{format: "table"}},
		{args: []string{"journal", "list", "--run", "r1", "--task", "T-1", "--last", "3", "--format", "json"},
			want: journalListOptions{run: "r1", task: "T-1", last: 3, format: "json"}},
		{args: []string{"journal", "list", "--last", "0"}},
		{args: []string{"journal", "show", "r1/0002", "--format", "markdown"}, want: journalShowOptions{key: "r1/0002", format: "markdown"}},
		{args: []string{"journal", "show"}},
		{args: []string{"journal", "start"}, want: journalStartOptions{}},
		{args: []string{"journal", "start", "sprint-1"}, want: journalStartOptions{name: "sprint-1"}},
		{args: []string{"journal", "start", "a", "b"}},
		{args: []string{"journal", "current"}, want: journalCurrentOptions{}},

		{args: []string{"skills", "list"}, want: skillsListOptions{format: "table"}},
		{args: []string{"skill", "list", "--format", "markdown"}, want: skillsListOptions{format: "markdown"}},
		{args: []string{"skills", "list", "--format", "quiet"}},

		{args: []string{"hooks", "install"}, want: hooksOptions{git: true}},
		{args: []string{"hooks", "install", "--claude"}, want: hooksOptions{claude: true}},
		{args: []string{"hooks", "install", "--mcp"}, want: hooksOptions{mcp: true}},
		{args: []string{"hooks", "uninstall", "--claude", "--mcp"}, want: hooksOptions{claude: true, mcp: true}},
		{args: []string{"hooks", "uninstall", "--git", "--claude"}, want: hooksOptions{git: true, claude: true}},
		{args: []string{"hooks", "status", "--format", "json"}, want: hooksStatusOptions{format: "json"}},
		{args: []string{"hooks", "status", "--format", "table"}},
	} {
		if tc.want != nil {
			covered[commandOf(app, tc.args)] = true
		}
		name := fmt.Sprintf("%q", tc.args)
		e, _, stderr := testEnv(dir)
		e.stdin = strings.NewReader(tc.stdin)
		var got []any
		var gotGlobals globals
		e.runCommand = func(g globals, opts any) error {
			got = append(got, opts)
			gotGlobals = g
			return nil
		}
		code := run(tc.args, e)
		if tc.want == nil {
			if code != exitUsage || got != nil {
				t.Errorf("%s: exit %d with options %#v, want a usage error\n%s", name, code, got, stderr)
			}
			continue
		}
		if code != exitOK || len(got) != 1 {
			t.Errorf("%s: exit %d, run %d times\n%s", name, code, len(got), stderr)
			continue
		}
		if !reflect.DeepEqual(got[0], tc.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", name, got[0], tc.want)
		}
		wantGlobals := tc.g
		if wantGlobals == (globals{}) {
			wantGlobals = defaults
		}
		if gotGlobals != wantGlobals {
			t.Errorf("%s: globals %+v, want %+v", name, gotGlobals, wantGlobals)
		}
	}

	t.Run("every command has a row", func(t *testing.T) {
		commands := runnableCommands("", app.Commands)
		if len(commands) == 0 {
			t.Fatal("no commands found")
		}
		for _, path := range commands {
			if !covered[path] {
				t.Errorf("lore %s: no row of TestFlagsToOptions runs it; add one with its flags set", path)
			}
		}
	})
}

// commandOf is the command that args run, as "journal add": the words
// naming a command and its subcommands once normalizeArgs has put the
// global flags first.
func commandOf(app *cli.App, args []string) string {
	args = normalizeArgs(app, slices.Clone(args))
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		if !strings.Contains(args[0], "=") {
			args = args[1:] // --root and --color take a value
		}
		args = args[1:]
	}
	var path []string
	cmds := app.Commands
	for _, a := range args {
		i := slices.IndexFunc(cmds, func(c *cli.Command) bool { return c.HasName(a) })
		if i < 0 {
			break
		}
		path = append(path, cmds[i].Name)
		cmds = cmds[i].Subcommands
	}
	return strings.Join(path, " ")
}

// runnableCommands lists cmds and their subcommands, below prefix, that
// run something of their own: a command with subcommands and no Action
// only prints its help.
func runnableCommands(prefix string, cmds []*cli.Command) []string {
	var out []string
	for _, c := range cmds {
		path := strings.TrimSpace(prefix + " " + c.Name)
		if len(c.Subcommands) == 0 { // a group's Action only shows its help or refuses
			out = append(out, path)
		}
		out = append(out, runnableCommands(path, c.Subcommands)...)
	}
	return out
}

// ptr is a pointer to v, for an option a flag sets or leaves nil.
func ptr[T any](v T) *T { return &v }
