package mdstore

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// Fake credentials, in their services' formats; none is or was real.
const (
	stripeKey = "sk_live_pkdkdt6hLalKeYmocvNjn3yV"
	dbURL     = "postgres://app:9naHVck6pbd4ZRj2@db.internal:5432/app"
	dbSecret  = "9naHVck6pbd4ZRj2"
)

// secretStore is a store in a fresh repository with one commit.
func secretStore(t *testing.T) (*loretest.Repo, *Store) {
	t.Helper()
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	s, err := Open(r.Dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	return r, s
}

// assertNowhere fails if the repository holds secret anywhere: an object,
// a file of the worktree or of the git directory.
func assertNowhere(t *testing.T, r *loretest.Repo, secret string) {
	t.Helper()
	if where := r.Holding(secret); len(where) > 0 {
		t.Errorf("the repository holds the secret in %v", where)
	}
}

// assertRefused checks that err refuses field, naming it and never the
// secret.
func assertRefused(t *testing.T, err error, field, secret string) {
	t.Helper()
	var ie *entry.InputError
	switch {
	case !errors.As(err, &ie):
		t.Errorf("%s: got %v, want an InputError", field, err)
	case ie.Field != field:
		t.Errorf("%s: the error names field %q: %s", field, ie.Field, ie.Msg)
	case strings.Contains(err.Error(), secret) || !strings.Contains(ie.Msg, "rule "):
		t.Errorf("%s: message %q echoes the secret or names no rule", field, ie.Msg)
	}
}

// TestJournalAddRefusesASecretInEveryField: journal add scanned nothing,
// so every credential tried reached git through the notes, the failure
// report, the task. Each field with a key in it is refused, by name, and
// nothing is written.
func TestJournalAddRefusesASecretInEveryField(t *testing.T) {
	t.Parallel()
	r, s := secretStore(t)
	fields := map[string]func(e *entry.JournalEntry, v string){
		"run_id":           func(e *entry.JournalEntry, v string) { e.RunID = v },
		"task_id":          func(e *entry.JournalEntry, v string) { e.TaskID = v },
		"feature_id":       func(e *entry.JournalEntry, v string) { e.FeatureID = v },
		"outcome":          func(e *entry.JournalEntry, v string) { e.Outcome = v },
		"model":            func(e *entry.JournalEntry, v string) { e.Model = v },
		"next_model":       func(e *entry.JournalEntry, v string) { e.NextModel = v },
		"difficulty":       func(e *entry.JournalEntry, v string) { e.Difficulty = v },
		"notes":            func(e *entry.JournalEntry, v string) { e.Notes = "Deployed.\nUsed " + v + " for it." },
		"files_modified":   func(e *entry.JournalEntry, v string) { e.FilesModified = []string{"a.go", v} },
		"what_tried":       func(e *entry.JournalEntry, v string) { e.Failure.WhatTried = v },
		"why_failed":       func(e *entry.JournalEntry, v string) { e.Failure.WhyFailed = v },
		"error_category":   func(e *entry.JournalEntry, v string) { e.Failure.ErrorCategory = v },
		"relevant_files":   func(e *entry.JournalEntry, v string) { e.Failure.RelevantFiles = []string{v} },
		"stack_trace":      func(e *entry.JournalEntry, v string) { e.Failure.StackTrace = "panic: dial " + v },
		"retry_suggestion": func(e *entry.JournalEntry, v string) { e.Failure.RetrySuggestion = "use " + v },
	}
	for field, set := range fields {
		for _, c := range []struct{ value, secret string }{{stripeKey, stripeKey}, {dbURL, dbSecret}} {
			e := entry.JournalEntry{RunID: "run-1", Outcome: "failed", Failure: &entry.Failure{WhatTried: "x", WhyFailed: "y"}}
			set(&e, c.value)
			_, _, _, err := s.AddJournal(e)
			assertRefused(t, err, field, c.secret)
		}
	}
	if got := r.Git("rev-list", "--count", "HEAD"); got != "1" {
		t.Errorf("%s commits, want 1", got)
	}
	assertNowhere(t, r, stripeKey)
	assertNowhere(t, r, dbSecret)
}

// TestIngestRedactsATokenBeforeEachClosingTag: ingest redacted the raw
// output, and the rules wanted a space, quote or line end after a token,
// which '<' is not; so a key right before a closing tag reached the
// journal, the commit's subject and its Task-Id trailer. Each sigil's
// fields are now checked once the sigil is parsed, and the output's scan
// sees the tag.
func TestIngestRedactsATokenBeforeEachClosingTag(t *testing.T) {
	t.Parallel()
	outputs := map[string]string{
		"task-done":           "<task-done>KEY</task-done>",
		"task-failed":         "<task-failed>KEY</task-failed>",
		"next-model":          "<next-model>KEY</next-model><task-done>t-1</task-done>",
		"journal":             "<journal>used KEY</journal><task-done>t-1</task-done>",
		"retry-suggestion":    "<retry-suggestion>use KEY</retry-suggestion><task-failed>t-1</task-failed>",
		"difficulty-estimate": "<difficulty-estimate>KEY</difficulty-estimate><task-failed>t-1</task-failed>",
		"knowledge body":      `<knowledge tags="stripe" title="Keys">use KEY</knowledge><task-done>t-1</task-done>`,
		"knowledge title":     `<knowledge tags="stripe" title="KEY">use it</knowledge><task-done>t-1</task-done>`,
		"knowledge tags":      `<knowledge tags="KEY" title="Keys">use it</knowledge><task-done>t-1</task-done>`,
		"learning body":       `<learning category="pitfall" tags="stripe">use KEY</learning><task-done>t-1</task-done>`,
		"learning category":   `<learning category="KEY" tags="stripe">use it</learning><task-done>t-1</task-done>`,
		"learning tags":       `<learning category="pitfall" tags="KEY">use it</learning><task-done>t-1</task-done>`,
		"what_tried":          "<failure-report>\nwhy_failed: x\nwhat_tried: used KEY</failure-report><task-failed>t-1</task-failed>",
		"why_failed":          "<failure-report>\nwhat_tried: x\nwhy_failed: KEY</failure-report><task-failed>t-1</task-failed>",
		"error_category":      "<failure-report>\nwhat_tried: x\nwhy_failed: y\nerror_category: KEY</failure-report><task-failed>t-1</task-failed>",
		"relevant_files":      "<failure-report>\nwhat_tried: x\nwhy_failed: y\nrelevant_files: a.go, KEY</failure-report><task-failed>t-1</task-failed>",
		"stack_trace":         "<failure-report>\nwhat_tried: x\nwhy_failed: y\nstack_trace: dial KEY</failure-report><task-failed>t-1</task-failed>",
		"no sigil around it":  "It failed with KEY</b> and I stopped.",
		// A comma ends a token too, so the output's scan finds these
		// before the parsed tags (a knowledge entry's are lower-cased).
		"learning tags, among others":  `<learning category="pitfall" tags="ops,KEY,db">use it</learning><task-done>t-1</task-done>`,
		"knowledge tags, among others": `<knowledge tags="ops,KEY,db" title="Keys">use it</knowledge><task-done>t-1</task-done>`,
	}
	for name, output := range outputs {
		for _, c := range []struct{ value, secret, rule string }{{stripeKey, stripeKey, "stripe-access-token"}, {dbURL, dbSecret, "url-password"}} {
			t.Run(name+" "+c.rule, func(t *testing.T) {
				r, s := secretStore(t)
				output := strings.ReplaceAll(output, "KEY", c.value)
				res, wr, err := s.Ingest(IngestInput{Output: output, RunID: "run-1", Iteration: 1})
				if err != nil {
					t.Fatal(err)
				}
				if wr.Commit == "" {
					t.Fatal("nothing committed")
				}
				want := Redaction{Rule: c.rule, Line: 1 + strings.Count(output[:strings.Index(output, c.secret)], "\n")}
				if len(res.Redacted) != 1 || res.Redacted[0] != want {
					t.Errorf("redactions %+v, want %+v", res.Redacted, want)
				}
				assertNowhere(t, r, c.secret)
			})
		}
	}
}

// TestIngestRedactsItsOwnFields: --task, --model, --files and --feature
// were never scanned. A secret in one is redacted and said by its field.
func TestIngestRedactsItsOwnFields(t *testing.T) {
	t.Parallel()
	r, s := secretStore(t)
	res, _, err := s.Ingest(IngestInput{
		Output: `<knowledge tags="ops" title="Deploys">Deploy on Fridays.</knowledge><task-done>t-1</task-done>`,
		RunID:  "run-1", Iteration: 1, TaskID: stripeKey, Model: "opus " + stripeKey, FeatureID: dbURL, Files: []string{"a.go", dbURL},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, red := range res.Redacted {
		got = append(got, red.Rule+" "+red.Field)
	}
	want := "stripe-access-token task_id, url-password feature_id, stripe-access-token model, url-password files_modified"
	if strings.Join(got, ", ") != want {
		t.Errorf("redactions %v, want %s", got, want)
	}
	if e := res.Journal; e.TaskID != "[REDACTED:stripe-access-token]" || !strings.Contains(e.FeatureID, "[REDACTED:url-password]") {
		t.Errorf("journal entry %+v", e)
	}
	assertNowhere(t, r, stripeKey)
	assertNowhere(t, r, dbSecret)
}

// TestEveryInputIsChecked: memory, knowledge and learning fields, and a
// run's name, are refused by name; the category that was never scanned
// among them, and its message for a bad value no longer echoes it.
func TestEveryInputIsChecked(t *testing.T) {
	t.Parallel()
	r, s := secretStore(t)
	memory := NewMemory{Type: "fix", Content: "Restart the worker.", Tags: []string{"ops"}}
	knowledge := entry.NewKnowledge{Title: "Deploys", Tags: []string{"ops"}, Body: "Deploy on Fridays."}
	learning := entry.NewLearning{Category: "pitfall", Tags: []string{"ops"}, Body: "Deploys fail on Fridays."}
	for _, c := range []struct {
		field string
		add   func(v string) error
	}{
		{"type", func(v string) error {
			m := memory
			m.Type = entry.MemoryType(v)
			_, _, err := s.AddMemory(m)
			return err
		}},
		{"content", func(v string) error { m := memory; m.Content = "Use " + v; _, _, err := s.AddMemory(m); return err }},
		{"tags", func(v string) error {
			m := memory
			m.Tags = []string{"ops", v}
			_, _, err := s.AddMemory(m)
			return err
		}},
		{"title", func(v string) error { k := knowledge; k.Title = v; _, _, _, err := s.AddKnowledge(k); return err }},
		{"tags", func(v string) error {
			k := knowledge
			k.Tags = []string{v}
			_, _, _, err := s.AddKnowledge(k)
			return err
		}},
		{"feature", func(v string) error { k := knowledge; k.Feature = v; _, _, _, err := s.AddKnowledge(k); return err }},
		{"body", func(v string) error { k := knowledge; k.Body = v; _, _, _, err := s.AddKnowledge(k); return err }},
		{"sources", func(v string) error {
			k := knowledge
			k.Sources = []entry.Source{{Path: v}}
			_, _, _, err := s.AddKnowledge(k)
			return err
		}},
		{"category", func(v string) error { l := learning; l.Category = v; _, _, _, err := s.AddLearning(l); return err }},
		{"tags", func(v string) error {
			l := learning
			l.Tags = []string{v}
			_, _, _, err := s.AddLearning(l)
			return err
		}},
		{"task", func(v string) error { l := learning; l.Task = v; _, _, _, err := s.AddLearning(l); return err }},
		{"body", func(v string) error { l := learning; l.Body = v; _, _, _, err := s.AddLearning(l); return err }},
		{"status", func(v string) error { l := learning; l.Status = v; _, _, _, err := s.AddLearning(l); return err }},
		{"kind", func(v string) error { l := learning; l.Kind = v; _, _, _, err := s.AddLearning(l); return err }},
		{"task_type", func(v string) error { l := learning; l.TaskType = v; _, _, _, err := s.AddLearning(l); return err }},
		{"source_runs", func(v string) error {
			l := learning
			l.Runs = []string{v}
			_, _, _, err := s.AddLearning(l)
			return err
		}},
		{"run", func(v string) error { _, err := s.StartRun(v); return err }},
	} {
		assertRefused(t, c.add(stripeKey), c.field, stripeKey)
		assertRefused(t, c.add(dbURL), c.field, dbSecret)
	}
	if got := r.Git("rev-list", "--count", "HEAD"); got != "1" {
		t.Errorf("%s commits, want 1", got)
	}
	assertNowhere(t, r, stripeKey)
	assertNowhere(t, r, dbSecret)

	bad := learning
	bad.Category = "Pitfall: my-local-notes-42"
	_, _, _, err := s.AddLearning(bad)
	var ie *entry.InputError
	if !errors.As(err, &ie) || ie.Field != "category" || strings.Contains(ie.Msg, "notes-42") {
		t.Errorf("a bad category: %v", err)
	}
}

// TestNewMemoryTextFieldsCoverEveryString is entry's
// TestTextFieldsCoverEveryString for the input that lives here: each
// string of a NewMemory, found by reflection, is one its textFields
// point at, so that a field added to it is checked for secrets.
func TestNewMemoryTextFieldsCoverEveryString(t *testing.T) {
	var in NewMemory
	var want []string
	rv := reflect.ValueOf(&in).Elem()
	for i := range rv.NumField() {
		f, v := rv.Type().Field(i), "<"+rv.Type().Field(i).Name+">"
		switch {
		case f.Type.Kind() == reflect.String:
			rv.Field(i).SetString(v)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.String:
			rv.Field(i).Set(reflect.Append(reflect.MakeSlice(f.Type, 0, 1), reflect.ValueOf(v).Convert(f.Type.Elem())))
		case f.Type.Kind() == reflect.Struct || f.Type.Kind() == reflect.Pointer || f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Map:
			t.Fatalf("NewMemory.%s: a %s, which this test does not fill: fill it", f.Name, f.Type)
		default:
			continue
		}
		want = append(want, v)
	}
	var got []string
	for _, f := range in.textFields() {
		if f.List != nil {
			got = append(got, *f.List...)
		} else {
			got = append(got, *f.Value)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("NewMemory: textFields leaves out %s", w)
		}
	}
}
