package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
	"lore/secrets"
)

// A placement puts a text in one field of one command that writes: the
// command line, and what the command reads (the output ingest records,
// or stdin).
type placement struct {
	name string
	args []string // "TEXT" stands for the text, "OUTPUT" for a file holding output
	// output is what ingest reads from OUTPUT (or stdin), TEXT standing
	// for the text and {q} for a quote it does not hold.
	output string
	// want is what the command must do: "refuse" (exit 2, the rule named),
	// "usage" (exit 2: a flag's value did not parse), or "redact" (exit 0
	// and a redaction said; exit 2 for a run id, which a redaction makes
	// invalid).
	want string
}

// placements are every field of every command that writes: add,
// knowledge add, learning add, journal add and start, and ingest — its
// flags, every sigil's content and attributes, each failure-report key,
// and text outside any sigil, which a failed iteration without a report
// keeps as its stack trace. In ingest's output the text stands right
// before a closing tag.
var placements = []placement{
	{"add content", []string{"add", "Deploy with TEXT", "-t", "fix"}, "", "refuse"},
	{"add --tags", []string{"add", "Deploys need the key.", "--tags", "ops,TEXT"}, "", "refuse"},
	{"add --type", []string{"add", "Deploys need the key.", "--type", "TEXT"}, "", "refuse"},

	{"knowledge add --title", []string{"knowledge", "add", "--title", "TEXT", "--tags", "ops", "Body."}, "", "refuse"},
	{"knowledge add --tags", []string{"knowledge", "add", "--title", "Deploys", "--tags", "TEXT", "Body."}, "", "refuse"},
	{"knowledge add --feature", []string{"knowledge", "add", "--title", "Deploys", "--tags", "ops", "--feature", "TEXT", "Body."}, "", "refuse"},
	{"knowledge add body", []string{"knowledge", "add", "--title", "Deploys", "--tags", "ops", "Use TEXT"}, "", "refuse"},

	{"learning add --category", []string{"learning", "add", "--category", "TEXT", "--tags", "ops", "Deploys fail on Fridays."}, "", "refuse"},
	{"learning add --tags", []string{"learning", "add", "--category", "pitfall", "--tags", "TEXT", "Deploys fail on Fridays."}, "", "refuse"},
	{"learning add --task", []string{"learning", "add", "--category", "pitfall", "--tags", "ops", "--task", "TEXT", "Deploys fail on Fridays."}, "", "refuse"},
	{"learning add --status", []string{"learning", "add", "--category", "pitfall", "--tags", "ops", "--status", "TEXT", "Deploys fail on Fridays."}, "", "refuse"},
	{"learning add --kind", []string{"learning", "add", "--category", "pitfall", "--tags", "ops", "--kind", "TEXT", "Deploys fail on Fridays."}, "", "refuse"},
	{"learning add body", []string{"learning", "add", "--category", "pitfall", "--tags", "ops", "Use TEXT"}, "", "refuse"},

	{"journal add notes", []string{"journal", "add", "--outcome", "done", "Used TEXT"}, "", "refuse"},
	{"journal add --run", []string{"journal", "add", "--outcome", "done", "--run", "TEXT"}, "", "refuse"},
	{"journal add --task", []string{"journal", "add", "--outcome", "done", "--task", "TEXT"}, "", "refuse"},
	{"journal add --feature", []string{"journal", "add", "--outcome", "done", "--feature", "TEXT"}, "", "refuse"},
	{"journal add --outcome", []string{"journal", "add", "--outcome", "TEXT"}, "", "refuse"},
	{"journal add --model", []string{"journal", "add", "--outcome", "done", "--model", "TEXT"}, "", "refuse"},
	{"journal add --next-model", []string{"journal", "add", "--outcome", "done", "--next-model", "TEXT"}, "", "refuse"},
	{"journal add --files", []string{"journal", "add", "--outcome", "done", "--files", "a.go,TEXT"}, "", "refuse"},
	{"journal add --difficulty", []string{"journal", "add", "--outcome", "done", "--difficulty", "TEXT"}, "", "refuse"},
	{"journal add --what-tried", []string{"journal", "add", "--outcome", "failed", "--what-tried", "TEXT"}, "", "refuse"},
	{"journal add --why-failed", []string{"journal", "add", "--outcome", "failed", "--why-failed", "TEXT"}, "", "refuse"},
	{"journal add --error-category", []string{"journal", "add", "--outcome", "failed", "--error-category", "TEXT"}, "", "refuse"},
	{"journal add --relevant-files", []string{"journal", "add", "--outcome", "failed", "--relevant-files", "TEXT"}, "", "refuse"},
	{"journal add --stack-trace", []string{"journal", "add", "--outcome", "failed", "--stack-trace", "panic: TEXT"}, "", "refuse"},
	{"journal add --retry-suggestion", []string{"journal", "add", "--outcome", "failed", "--retry-suggestion", "TEXT"}, "", "refuse"},
	{"journal add --iteration", []string{"journal", "add", "--outcome", "done", "--iteration", "TEXT"}, "", "usage"},
	{"journal add --duration", []string{"journal", "add", "--outcome", "done", "--duration", "TEXT"}, "", "usage"},
	{"journal add --cost", []string{"journal", "add", "--outcome", "done", "--cost", "TEXT"}, "", "usage"},
	{"journal start", []string{"journal", "start", "TEXT"}, "", "refuse"},

	{"ingest --task", []string{"ingest", "OUTPUT", "--task", "TEXT"}, "<task-done>t-1</task-done>", "redact"},
	{"ingest --model", []string{"ingest", "OUTPUT", "--model", "TEXT"}, "<task-done>t-1</task-done>", "redact"},
	// Under a directory: a text that starts with "/" ("//registry.npmjs.org/:_authToken=…")
	// would be a file outside the repository, refused whatever it holds.
	{"ingest --files", []string{"ingest", "OUTPUT", "--files", "a.go,src/TEXT"}, "<task-done>t-1</task-done>", "redact"},
	{"ingest --feature", []string{"ingest", "OUTPUT", "--feature", "TEXT"}, `<knowledge tags="ops" title="Deploys">Friday.</knowledge><task-done>t-1</task-done>`, "redact"},
	{"ingest --run", []string{"ingest", "OUTPUT", "--run", "TEXT"}, "<task-done>t-1</task-done>", "redact"},
	{"ingest --iteration", []string{"ingest", "OUTPUT", "--iteration", "TEXT"}, "<task-done>t-1</task-done>", "usage"},
	{"ingest --duration", []string{"ingest", "OUTPUT", "--duration", "TEXT"}, "<task-done>t-1</task-done>", "usage"},
	{"ingest --cost", []string{"ingest", "OUTPUT", "--cost", "TEXT"}, "<task-done>t-1</task-done>", "usage"},
	{"ingest <task-done>", []string{"ingest", "OUTPUT"}, "<task-done>TEXT</task-done>", "redact"},
	{"ingest <task-failed>", []string{"ingest", "OUTPUT"}, "<task-failed>TEXT</task-failed>", "redact"},
	{"ingest <next-model>", []string{"ingest", "OUTPUT"}, "<next-model>TEXT</next-model><task-done>t-1</task-done>", "redact"},
	{"ingest <journal>", []string{"ingest", "OUTPUT"}, "<journal>Deployed with TEXT</journal><task-done>t-1</task-done>", "redact"},
	{"ingest <retry-suggestion>", []string{"ingest", "OUTPUT"}, "<retry-suggestion>use TEXT</retry-suggestion><task-failed>t-1</task-failed>", "redact"},
	{"ingest <difficulty-estimate>", []string{"ingest", "OUTPUT"}, "<difficulty-estimate>TEXT</difficulty-estimate><task-failed>t-1</task-failed>", "redact"},
	{"ingest <knowledge> body", []string{"ingest", "OUTPUT"}, `<knowledge tags="ops" title="Deploys">use TEXT</knowledge><task-done>t-1</task-done>`, "redact"},
	{"ingest <knowledge title>", []string{"ingest", "OUTPUT"}, `<knowledge tags="ops" title={q}TEXT{q}>Friday.</knowledge><task-done>t-1</task-done>`, "redact"},
	{"ingest <knowledge tags>", []string{"ingest", "OUTPUT"}, `<knowledge tags={q}ops,TEXT{q} title="Deploys">Friday.</knowledge><task-done>t-1</task-done>`, "redact"},
	{"ingest <learning> body", []string{"ingest", "OUTPUT"}, `<learning category="pitfall" tags="ops">use TEXT</learning><task-done>t-1</task-done>`, "redact"},
	{"ingest <learning category>", []string{"ingest", "OUTPUT"}, `<learning category={q}TEXT{q} tags="ops">Friday.</learning><task-done>t-1</task-done>`, "redact"},
	{"ingest <learning tags>", []string{"ingest", "OUTPUT"}, `<learning category="pitfall" tags={q}TEXT,ops{q}>Friday.</learning><task-done>t-1</task-done>`, "redact"},
	{"ingest <failure-report> what_tried", []string{"ingest", "OUTPUT"}, "<failure-report>\nwhy_failed: x\nwhat_tried: used TEXT</failure-report><task-failed>t-1</task-failed>", "redact"},
	{"ingest <failure-report> why_failed", []string{"ingest", "OUTPUT"}, "<failure-report>\nwhat_tried: x\nwhy_failed: TEXT</failure-report><task-failed>t-1</task-failed>", "redact"},
	{"ingest <failure-report> error_category", []string{"ingest", "OUTPUT"}, "<failure-report>\nwhat_tried: x\nwhy_failed: y\nerror_category: TEXT</failure-report><task-failed>t-1</task-failed>", "redact"},
	{"ingest <failure-report> relevant_files", []string{"ingest", "OUTPUT"}, "<failure-report>\nwhat_tried: x\nwhy_failed: y\nrelevant_files: a.go, TEXT</failure-report><task-failed>t-1</task-failed>", "redact"},
	{"ingest <failure-report> stack_trace", []string{"ingest", "OUTPUT"}, "<failure-report>\nwhat_tried: x\nwhy_failed: y\nstack_trace: panic: TEXT</failure-report><task-failed>t-1</task-failed>", "redact"},
	{"ingest outside any sigil", []string{"ingest", "OUTPUT"}, "The deploy failed with TEXT</b> and I stopped.", "redact"},
	{"ingest from stdin", []string{"ingest", "-"}, "<journal>Deployed with TEXT</journal><task-done>t-1</task-done>", "redact"},
	{"ingest --transcript", []string{"ingest", "--transcript", "TRANSCRIPT"}, "<journal>Deployed with TEXT</journal><task-done>t-1</task-done>", "redact"},
}

// corpusEntry is a line of testdata/secrets/corpus.txt: a text and the
// secret in it.
type corpusEntry struct {
	rule, text, secret string
}

func readCorpus(t *testing.T) []corpusEntry {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "secrets", "corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus []corpusEntry
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rule, text, _ := strings.Cut(line, " ")
		found := secrets.Scan(text)
		if len(found) != 1 || found[0].Rule != rule {
			t.Fatalf("corpus: %q holds %v, want one %s", text, found, rule)
		}
		corpus = append(corpus, corpusEntry{rule: rule, text: text, secret: text[found[0].Start:found[0].End]})
	}
	return corpus
}

// needles are what must appear nowhere for a secret: the secret, and its
// longest run of letters and digits, which survives lower-casing and a
// slug (a knowledge entry's file name is its title's slug). Both are
// compared without regard to case.
func needles(t *testing.T, secret string) []string {
	t.Helper()
	longest := ""
	for _, run := range strings.FieldsFunc(secret, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		if len(run) > len(longest) {
			longest = run
		}
	}
	if len(longest) < 12 {
		t.Fatalf("corpus: the secret %q has no run of 12 letters and digits to look for", secret)
	}
	return []string{secret, longest}
}

// TestNoSecretReachesGitOrTheTerminal puts each text of the secrets corpus
// in every field of every command that writes (placements) and of every
// store lore import reads (importPlacements: each field of lore's export,
// ralph's memories, RefoundAI's knowledge and progress.db, aiwg's
// learnings), runs the command as the CLI would, and checks that the
// secret reached nothing: no object of the repository (any commit, its
// message and trailers, tree or blob, reachable or not), no file of the
// worktree or the git directory, neither stdout nor stderr, and nothing
// C git's grep finds in HEAD's .agent.
func TestNoSecretReachesGitOrTheTerminal(t *testing.T) {
	withoutLoreRoot(t)
	for _, entry := range readCorpus(t) {
		t.Run(entry.rule+" "+entry.secret[:8], func(t *testing.T) {
			t.Parallel()
			checkCorpusEntry(t, entry)
		})
	}
}

func checkCorpusEntry(t *testing.T, entry corpusEntry) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	outside := t.TempDir() // the agent's output, out of the repository
	look := needles(t, entry.secret)
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	lore := func(args []string, stdin string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		e := &env{
			stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr,
			now:     func() time.Time { clock = clock.Add(time.Second); return clock },
			random:  bytes.NewReader(bytes.Repeat([]byte{0x5e, 0xc2, 0xe7, 0x15}, 256)),
			getenv:  r.Getenv,
			workDir: r.Dir,
		}
		code := run(args, e)
		return code, stdout.String(), stderr.String()
	}
	if code, _, stderr := lore([]string{"init"}, ""); code != exitOK {
		t.Fatalf("lore init: %s", stderr)
	}
	for _, p := range placements {
		quote := `"`
		if strings.Contains(entry.text, `"`) {
			quote = "'"
		}
		output := strings.ReplaceAll(strings.ReplaceAll(p.output, "{q}", quote), "TEXT", entry.text)
		var args []string
		for _, a := range p.args {
			switch a {
			case "OUTPUT":
				a = filepath.Join(outside, "output.txt")
				if err := os.WriteFile(a, []byte(output), 0o644); err != nil {
					t.Fatal(err)
				}
			case "TRANSCRIPT":
				a = filepath.Join(outside, "session.jsonl")
				if err := os.WriteFile(a, claudeTranscript(output, entry.text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			args = append(args, strings.ReplaceAll(a, "TEXT", entry.text))
		}
		code, stdout, stderr := lore(args, output)
		for _, n := range look {
			if strings.Contains(strings.ToLower(stdout+stderr), strings.ToLower(n)) {
				t.Errorf("%s: the output shows the secret:\n%s%s", p.name, stdout, stderr)
			}
		}
		if where := r.Holding(look...); len(where) > 0 {
			t.Fatalf("%s: the repository holds the secret in %v", p.name, where)
		}
		switch {
		case p.want == "refuse" && (code != exitUsage || !strings.Contains(stderr, "(rule ")):
			t.Errorf("%s: exit %d, want it refused naming the rule:\n%s", p.name, code, stderr)
		case p.want == "usage" && code != exitUsage:
			t.Errorf("%s: exit %d, want a usage error:\n%s", p.name, code, stderr)
		case p.want == "redact" && p.name == "ingest --run" && code != exitUsage:
			t.Errorf("%s: exit %d, want the redacted run id refused:\n%s", p.name, code, stderr)
		case p.want == "redact" && p.name != "ingest --run" && (code != exitOK || !strings.Contains(stderr, "redacted")):
			t.Errorf("%s: exit %d, want the secret redacted and said:\n%s", p.name, code, stderr)
		}
	}
	if got := r.Git("rev-list", "--count", "HEAD"); got == "1" {
		t.Error("nothing was committed: the placements did not reach lore")
	}
	checkImports(t, r, entry, look)
	// C git's own search of what HEAD holds, beside Holding's of every
	// object: exit 1 is "nothing found".
	grep := []string{"grep", "-i", "-F"}
	for _, n := range look {
		grep = append(grep, "-e", n)
	}
	if out, err := r.GitErr(append(grep, "HEAD", "--", ".agent")...); exitCodeOf(err) != 1 {
		t.Errorf("git grep on HEAD -- .agent: %v\n%s", err, out)
	}
	r.AssertHealthy()
}

// claudeTranscript is a Claude Code session transcript whose last turn says
// text, from a model named model.
func claudeTranscript(text, model string) []byte {
	line := func(v any) string {
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	type message struct {
		Role    string `json:"role"`
		Model   string `json:"model,omitempty"`
		Content any    `json:"content"`
	}
	type entry struct {
		Type      string  `json:"type"`
		SessionID string  `json:"sessionId"`
		Message   message `json:"message"`
	}
	const session = "5ec2e715-0000-4000-8000-000000000000"
	return []byte(line(entry{"user", session, message{Role: "user", Content: "Deploy it."}}) +
		line(entry{"assistant", session, message{Role: "assistant", Model: model,
			Content: []map[string]string{{"type": "text", "text": text}}}}))
}
