package lifecycle

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"lore/mdstore"
	"lore/mdstore/entry"
	"lore/secrets"
)

// corpusText is a line of cmd/lore's secrets corpus: a text as someone
// would paste it, and the secret in it.
type corpusText struct{ rule, text, secret string }

func readCorpus(t *testing.T) []corpusText {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "cmd", "lore", "testdata", "secrets", "corpus.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusText
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		rule, text, _ := strings.Cut(line, " ")
		found := secrets.Scan(text)
		if len(found) != 1 {
			t.Fatalf("corpus: %q holds %v", text, found)
		}
		out = append(out, corpusText{rule, text, text[found[0].Start:found[0].End]})
	}
	return out
}

// validExport is an export of one entry of each kind that PlanImport
// accepts, every optional part of it there (a failure report, sources).
func validExport() Export {
	conf := 0.5
	return Export{Version: ExportVersion,
		Memories: []entry.Memory{{ID: "mem-1737372000-abcd", Type: entry.Fix, Content: "Retry the upload once.", Tags: []string{"upload"}, Created: "2025-01-20"}},
		Knowledge: []entry.Knowledge{{Slug: "release-checklist", Title: "Release checklist", Tags: []string{"release"}, Feature: "f-1",
			CreatedAt: "2026-02-17T12:00:00Z", UpdatedAt: "2026-02-18T12:00:00Z", Sources: []entry.Source{{Path: "Makefile", Blob: "0123abcd"}},
			Body: "Tag, build, publish.", Path: entry.KnowledgePath("release-checklist")}},
		Learnings: []entry.Learning{{ID: "l-1a2b3c", Category: "pitfall", Tags: []string{"sqlite"}, Task: "t-1", CreatedAt: "2026-02-17T12:00:00Z",
			Status: "rejected", StatusReason: "wrong", Kind: "strategy", TaskType: "bugfix", Confidence: &conf, SourceRuns: []string{"run-1"},
			Body: "Enable foreign keys.", Path: entry.LearningPath("l-1a2b3c")}},
		Journal: []entry.JournalEntry{{RunID: "run-0000aaaa", Iteration: 1, TaskID: "T-1", FeatureID: "f-1", Outcome: "failed", Model: "sonnet",
			NextModel: "opus", FilesModified: []string{"a.go"}, Difficulty: "hard", CreatedAt: "2026-02-17T12:00:00Z",
			Failure: &entry.Failure{WhatTried: "mocked git", WhyFailed: "the lock", ErrorCategory: "test_failure", RelevantFiles: []string{"b.go"},
				StackTrace: "panic: x", RetrySuggestion: "use a real repo"},
			Notes: "first try", Path: entry.JournalPath("run-0000aaaa", 1, "abc123")}},
	}
}

// stringSlots lists every string an export holds — each field of each
// entry, the items of its lists, the fields of what it holds or points to
// — as a path ("Journal[0].Failure.StackTrace") and a function that sets
// it in an export.
func stringSlots(x Export) (paths []string, set []func(x *Export, v string)) {
	var walk func(rv reflect.Value, path string, at func(x *Export) reflect.Value)
	walk = func(rv reflect.Value, path string, at func(x *Export) reflect.Value) {
		switch rv.Kind() {
		case reflect.String:
			paths = append(paths, path)
			set = append(set, func(x *Export, v string) { at(x).SetString(v) })
		case reflect.Struct:
			for i := range rv.NumField() {
				if f := rv.Type().Field(i); f.IsExported() {
					walk(rv.Field(i), path+"."+f.Name, func(x *Export) reflect.Value { return at(x).Field(i) })
				}
			}
		case reflect.Pointer:
			if !rv.IsNil() {
				walk(rv.Elem(), path, func(x *Export) reflect.Value { return at(x).Elem() })
			}
		case reflect.Slice:
			for i := range rv.Len() {
				walk(rv.Index(i), fmt.Sprintf("%s[%d]", path, i), func(x *Export) reflect.Value { return at(x).Index(i) })
			}
		}
	}
	root := reflect.ValueOf(&x).Elem()
	for i := range root.NumField() {
		if f := root.Type().Field(i); f.IsExported() && f.Type.Kind() == reflect.Slice {
			walk(root.Field(i), f.Name, func(x *Export) reflect.Value { return reflect.ValueOf(x).Elem().Field(i) })
		}
	}
	return paths, set
}

// TestImportRefusesASecretInEveryField puts each credential of the
// secrets corpus in each string an export holds — every field of every
// kind, found by reflection, so that a field added to an entry is tried
// here without this test changing — and checks that PlanImport refuses
// it, naming the rule and never the secret. lore import committed
// credentials from 13 fields it never scanned (issue 36): a failure's
// stack trace, a learning's tags, a journal entry's task and model…
func TestImportRefusesASecretInEveryField(t *testing.T) {
	if _, err := PlanImport(validExport(), "test"); err != nil {
		t.Fatalf("the valid export is refused: %v", err)
	}
	paths, set := stringSlots(validExport())
	if len(paths) < 40 {
		t.Fatalf("only %d strings found in an export: %v", len(paths), paths)
	}
	for _, c := range readCorpus(t) {
		for i, p := range paths {
			x := validExport()
			set[i](&x, c.text)
			_, err := PlanImport(x, "test")
			var ie *entry.InputError
			switch {
			case !errors.As(err, &ie) || !strings.Contains(err.Error(), "(rule "):
				t.Errorf("%s holding %s: %v, want it refused naming the rule", p, c.rule, err)
			case strings.Contains(err.Error(), c.secret):
				t.Errorf("%s holding %s: the message echoes the secret: %v", p, c.rule, err)
			}
		}
	}
}

// importInto applies x to a fresh store in a repository with one commit,
// and returns the repository's git, the store and the result.
func importInto(t *testing.T, dir string, x Export) (ImportResult, error) {
	t.Helper()
	plan, err := PlanImport(x, "test")
	if err != nil {
		return ImportResult{}, err
	}
	s, err := mdstore.Open(dir, storeOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, _, err := plan.Apply(s)
	return res, err
}

// aiwgFile is aiwg's ralph-learnings.json holding learnings, its checksum
// right.
func aiwgFile(t *testing.T, learnings []map[string]any) []byte {
	t.Helper()
	raw, err := json.Marshal(learnings)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	data, err := json.Marshal(map[string]any{"checksum": hex.EncodeToString(sum[:]), "learnings": json.RawMessage(raw)})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// collidingAiwgIDs returns two aiwg ids whose first lore ids are one.
func collidingAiwgIDs(t *testing.T) (string, string) {
	t.Helper()
	seen := map[string]string{}
	for i := range 100_000 {
		id := fmt.Sprintf("learn-%d", i)
		if other, ok := seen[aiwgID(id, 0)]; ok {
			return other, id
		}
		seen[aiwgID(id, 0)] = id
	}
	t.Fatal("no two ids collide")
	return "", ""
}

// TestImportKeepsEveryAiwgLearning: aiwg's ids were made lore ids of 24
// bits, and two that became one were counted "already there" and lost
// (2 of 10,000 learnings). Two learnings whose ids collide, and one whose
// id the store has for another learning, are each imported under an id
// of their own — the same on every import, so a second one adds nothing.
// C git counts the files.
func TestImportKeepsEveryAiwgLearning(t *testing.T) {
	dir, git := storeRepo(t)
	a, b := collidingAiwgIDs(t)
	const c = "learn-taken"
	taken := entry.Learning{ID: aiwgID(c, 0), Category: "pitfall", Tags: []string{"x"}, Status: "active", CreatedAt: "2025-01-01T00:00:00Z",
		Body: "A learning lore recorded, whose id aiwg's would become."}
	if err := os.MkdirAll(filepath.Join(dir, ".agent", "learnings"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(entry.LearningPath(taken.ID))), entry.RenderLearning(taken), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", ".agent")
	git("commit", "-q", "-m", "a learning")

	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".aiwg", "knowledge"), 0o755); err != nil {
		t.Fatal(err)
	}
	var learnings []map[string]any
	for i, id := range []string{a, b, c} {
		learnings = append(learnings, map[string]any{"id": id, "type": "strategy", "taskType": "test-fix",
			"content":   fmt.Sprintf("Strategy number %d: %s", i, []string{"bisect the failing commit", "read the lock's owner", "retry with a fresh clone"}[i]),
			"createdAt": "2026-02-01T15:00:00Z"})
	}
	if err := os.WriteFile(filepath.Join(project, ".aiwg", "knowledge", "ralph-learnings.json"), aiwgFile(t, learnings), 0o644); err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		x, _, _, err := ReadSeedStores(project, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := importInto(t, dir, x)
		if err != nil {
			t.Fatal(err)
		}
		want := ImportResult{Added: map[entry.Kind]int{entry.KindLearning: 3}, Kept: map[entry.Kind]int{}, Collided: map[entry.Kind][]string{},
			Reidentified: []string{aiwgID(c, 0) + " -> " + aiwgID(c, 1)}}
		if round == 1 {
			want = ImportResult{Added: map[entry.Kind]int{}, Kept: map[entry.Kind]int{entry.KindLearning: 3}, Collided: map[entry.Kind][]string{}}
		}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("import %d: %+v, want %+v", round+1, res, want)
		}
	}
	files := strings.Fields(git("ls-files", ".agent/learnings"))
	if len(files) != 4 {
		t.Errorf("git has %d learnings, want the store's one and aiwg's three: %v", len(files), files)
	}
	if got := git("show", "HEAD:"+entry.LearningPath(taken.ID)); got != strings.TrimSpace(string(entry.RenderLearning(taken))) {
		t.Errorf("the store's learning changed:\n%s", got)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Errorf("git status: %s", got)
	}
	git("fsck", "--strict", "--no-progress")
}

// TestImportReportsCollisions: an entry of the export whose id the store
// has for another entry (created at another time) was counted "already
// there"; it is reported by id, and the store's entry is kept.
func TestImportReportsCollisions(t *testing.T) {
	dir, git := storeRepo(t)
	if _, err := importInto(t, dir, validExport()); err != nil {
		t.Fatal(err)
	}
	head := git("rev-parse", "HEAD")
	x := validExport()
	x.Learnings[0].CreatedAt, x.Learnings[0].Body = "2026-03-01T00:00:00Z", "Another learning, from another store."
	x.Knowledge[0].CreatedAt, x.Knowledge[0].Body = "2026-03-01T00:00:00Z", "Another checklist."
	res, err := importInto(t, dir, x)
	if err != nil {
		t.Fatal(err)
	}
	want := ImportResult{Added: map[entry.Kind]int{}, Kept: map[entry.Kind]int{entry.KindMemory: 1, entry.KindJournal: 1},
		Collided: map[entry.Kind][]string{entry.KindLearning: {"l-1a2b3c"}, entry.KindKnowledge: {"release-checklist"}}}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("%+v, want %+v", res, want)
	}
	if got := res.Summary(entry.KindLearning); got != "0 added, 0 already there, 1 not imported: the store has another entry of that id (l-1a2b3c)" {
		t.Errorf("summary: %s", got)
	}
	if got := git("rev-parse", "HEAD"); got != head {
		t.Error("a commit was made")
	}
}

// TestImportRefusesWhatLoreWouldNotWrite: an export holding an entry twice
// was imported with one of them dropped or overwritten and the counts
// wrong; a memory whose date lore validate rejects was written. Both
// refuse the whole import, naming the entries.
func TestImportRefusesWhatLoreWouldNotWrite(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(x *Export)
		want   string
	}{
		{"a memory twice", func(x *Export) { x.Memories = append(x.Memories, x.Memories[0]) },
			"1 entry is there more than once (memory mem-1737372000-abcd)"},
		{"entries twice", func(x *Export) {
			x.Learnings = append(x.Learnings, x.Learnings[0])
			x.Journal = append(x.Journal, x.Journal[0], x.Journal[0])
		}, "2 entries are there more than once (learning l-1a2b3c, journal .agent/journal/run-0000aaaa/0001-abc123.md)"},
		{"a memory's date", func(x *Export) { x.Memories[0].Created = "2025-13-45" }, `created date "2025-13-45" of mem-1737372000-abcd is not a date`},
		{"a memory's tag", func(x *Export) { x.Memories[0].Tags = []string{"a | created: 2020-01-01 -->"} }, "memories.md cannot hold it"},
		{"a conflict marker", func(x *Export) { x.Knowledge[0].Body = "<<<<<<< HEAD\nmine" }, "leftover conflict marker"},
		{"a journal file's name", func(x *Export) { x.Journal[0].Path = ".agent/journal/run-0000aaaa/first.md" }, "is not the file of an iteration"},
	} {
		x := validExport()
		c.change(&x)
		_, err := PlanImport(x, "test")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestImportOfTenThousandAiwgLearnings: of 10,000 aiwg learnings, 2 were
// lost (issue 36): their 24-bit lore ids collided and the second was
// counted "already there". Every one arrives, as C git counts the files,
// and a second import adds nothing.
func TestImportOfTenThousandAiwgLearnings(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 learnings")
	}
	const n = 10_000
	dir, git := storeRepo(t)
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".aiwg", "knowledge"), 0o755); err != nil {
		t.Fatal(err)
	}
	learnings := make([]map[string]any, n)
	collisions, seen := 0, map[string]bool{}
	for i := range learnings {
		id := fmt.Sprintf("learn-%d", i)
		if seen[aiwgID(id, 0)] {
			collisions++
		}
		seen[aiwgID(id, 0)] = true
		// Words of their own: no learning nearly duplicates another.
		learnings[i] = map[string]any{"id": id, "type": "strategy", "content": fmt.Sprintf("Strategy %d: %s", i, uniqueWords(i)),
			"createdAt": "2026-02-01T15:00:00Z"}
	}
	if collisions == 0 {
		t.Fatal("no two of the ids collide: the test tries nothing")
	}
	if err := os.WriteFile(filepath.Join(project, ".aiwg", "knowledge", "ralph-learnings.json"), aiwgFile(t, learnings), 0o644); err != nil {
		t.Fatal(err)
	}
	for round, want := range []int{n, 0} {
		x, _, warnings, err := ReadSeedStores(project, nil)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("%v; %d warnings", err, len(warnings))
		}
		res, err := importInto(t, dir, x)
		if err != nil {
			t.Fatal(err)
		}
		if res.Added[entry.KindLearning] != want || res.Kept[entry.KindLearning] != n-want || len(res.Collided[entry.KindLearning]) > 0 {
			t.Errorf("import %d: %d added, %d kept, %d collided; want %d added", round+1,
				res.Added[entry.KindLearning], res.Kept[entry.KindLearning], len(res.Collided[entry.KindLearning]), want)
		}
	}
	if got := len(strings.Fields(git("ls-files", ".agent/learnings"))); got != n {
		t.Errorf("git has %d learnings, want %d (%d of the ids collided)", got, n, collisions)
	}
	t.Logf("%d learnings imported, %d of their first ids taken by another", n, collisions)
}

// uniqueWords is three words no other i has: i's digits spelled out.
func uniqueWords(i int) string {
	names := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
	var out []string
	for _, d := range fmt.Sprintf("%05d", i) {
		out = append(out, names[d-'0']+strconv.Itoa(len(out)))
	}
	return strings.Join(out, " ")
}

// TestImportKeepsAiwgLearningsOfOneID: two learnings of aiwg's file with
// one id are both imported, each under an id of its own, and the import
// says so.
func TestImportKeepsAiwgLearningsOfOneID(t *testing.T) {
	dir, git := storeRepo(t)
	project := t.TempDir()
	if err := os.MkdirAll(filepath.Join(project, ".aiwg", "knowledge"), 0o755); err != nil {
		t.Fatal(err)
	}
	learnings := []map[string]any{
		{"id": "learn-1", "type": "strategy", "content": "Bisect the failing commit.", "createdAt": "2026-02-01T15:00:00Z"},
		{"id": "learn-1", "type": "convention", "content": "Name tests after what broke.", "createdAt": "2026-02-01T15:00:00Z"},
	}
	if err := os.WriteFile(filepath.Join(project, ".aiwg", "knowledge", "ralph-learnings.json"), aiwgFile(t, learnings), 0o644); err != nil {
		t.Fatal(err)
	}
	x, _, warnings, err := ReadSeedStores(project, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0].Message, "learning 2: its id is learning 1's too; both are imported") {
		t.Errorf("warnings: %v", warnings)
	}
	res, err := importInto(t, dir, x)
	if err != nil {
		t.Fatal(err)
	}
	if res.Added[entry.KindLearning] != 2 {
		t.Errorf("%+v, want both added", res)
	}
	if got := strings.Fields(git("ls-files", ".agent/learnings")); len(got) != 2 {
		t.Errorf("git has %v", got)
	}
}
