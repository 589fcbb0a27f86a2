package prompt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/internal/fsx"
	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/catalog"
	"lore/mdstore/config"
	"lore/mdstore/entry"
	"lore/strategy"
)

// Prime gives the same context from the shortlist as from every entry,
// and the loop status computed from the shortlisted journal is the same:
// random tasks (one in ten none, but a run and statuses) over a store
// above the sweep limit, read through a current entries cache (the
// catalog's heads) and through Entries.
func TestShortlistPrimesAsEveryEntry(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields("cache build parser lexer token retry flaky network deploy docker compose migrate schema index query fuzzy stem merge rebase hook commit lock budget prime ingest journal")
	files := []string{"src/cache.go", "src/parser/lexer.go", "cmd/deploy.sh", "db/schema.sql", "index/query.go", "hooks/commit.go", "README.md"}
	some := func(from []string, most int) []string {
		var out []string
		for range rng.IntN(most + 1) {
			out = append(out, from[rng.IntN(len(from))])
		}
		return out
	}
	tags := func() []string { // one to three
		out := []string{words[rng.IntN(len(words))]}
		for range rng.IntN(3) {
			out = append(out, words[rng.IntN(len(words))])
		}
		return out
	}
	sentence := func() string { return strings.Join(some(words, 8), " ") + " " + words[rng.IntN(len(words))] + "." }
	when := func() string {
		return time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(96*60)) * time.Minute).Format(time.RFC3339)
	}
	write := func(p string, data []byte) {
		p = filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	body := func(i int) string { // every tenth repeats an earlier one: near-duplicates
		if i%10 == 9 {
			return "Repeated " + words[i%len(words)] + " advice about the " + words[(i/10)%len(words)] + " step."
		}
		return sentence()
	}
	for i := range 700 {
		k := entry.Knowledge{Slug: fmt.Sprintf("k-%04d", i), Title: "About " + sentence(), Tags: tags(), Body: body(i), CreatedAt: when()}
		if i%3 == 0 {
			k.UpdatedAt = when()
		}
		write(entry.KnowledgePath(k.Slug), entry.RenderKnowledge(k))
	}
	statuses := []string{"active", "active", "active", "staged", "rejected", "pruned"}
	for i := range 800 {
		l := entry.Learning{ID: fmt.Sprintf("l-%06x", i), Category: entry.LearningCategories[i%len(entry.LearningCategories)],
			Tags: tags(), CreatedAt: when(), Status: statuses[i%len(statuses)], Body: body(i)}
		if i%7 == 0 {
			l.SupersededBy = fmt.Sprintf("l-%06x", i+1)
		}
		if i%3 == 0 { // seed 004's: its relevance orders them, and the kinds take turns
			confidence, success := float64(rng.IntN(101))/100, float64(rng.IntN(101))/100
			l.Kind, l.TaskType = entry.LearningKinds[i%len(entry.LearningKinds)], []string{"bug-fix", "feature", "test-fix", "refactor"}[rng.IntN(4)]
			l.Confidence, l.SuccessRate = &confidence, &success
		}
		write(entry.LearningPath(l.ID), entry.RenderLearning(l))
	}
	outcomes := []string{"done", "failed", "blocked", "retried", "done", "interrupted"}
	for i := range 900 {
		run := fmt.Sprintf("run-%d", i%9)
		j := entry.JournalEntry{RunID: run, Iteration: i/9 + 1, TaskID: fmt.Sprintf("T-%d", rng.IntN(25)), Outcome: outcomes[rng.IntN(len(outcomes))],
			Model: "sonnet", DurationSecs: 30, FilesModified: some(files, 3), CreatedAt: when(), Notes: sentence()}
		if i%4 == 0 {
			j.FeatureID = fmt.Sprintf("F-%d", i%5)
		}
		if strategy.FailedOutcome(j.Outcome) {
			j.Failure = &entry.Failure{WhatTried: sentence(), WhyFailed: sentence(), ErrorCategory: words[rng.IntN(len(words))]}
		}
		write(entry.JournalPath(run, j.Iteration, fmt.Sprintf("%06x", i)), entry.RenderJournal(j))
	}

	now := time.Date(2026, 3, 20, 0, 0, 0, 0, time.UTC) // the entries' recency for seed 004: from 20 days
	clock := loretest.NewSettleClock(t, fsx.RacyWindow)
	s, err := mdstore.Open(dir, mdstore.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	// The first read caches the files too new to trust as unread; past
	// the racy window the second caches them all, and the third is from
	// a current cache.
	for range 2 {
		if _, _, err := s.Entries(); err != nil {
			t.Fatal(err)
		}
		clock.Settle(t)
	}
	all, ws, err := s.Entries()
	if err != nil || len(ws) > 0 {
		t.Fatalf("%d warnings, the first %v; %v", len(ws), ws[0], err)
	}
	if len(all.Knowledge) != 700 || len(all.Learnings) != 800 || len(all.Journal) != 900 {
		t.Fatalf("read %d, %d, %d entries", len(all.Knowledge), len(all.Learnings), len(all.Journal))
	}
	var paths []string
	for _, k := range all.Knowledge {
		paths = append(paths, k.Path)
	}
	for _, l := range all.Learnings {
		paths = append(paths, l.Path)
	}
	for _, j := range all.Journal {
		paths = append(paths, j.Path)
	}

	// Random tasks for each state of the store: 300 with LORE_TEST_LONG=1,
	// 100 otherwise.
	tasks := loretest.Rounds(100, 300)
	compare := func(when string, all catalog.Entries) {
		smaller := 0
		for n := range tasks {
			task := Task{Title: strings.Join(some(words, 3), " ")}
			if rng.IntN(3) > 0 {
				task.ID = fmt.Sprintf("T-%d", rng.IntN(30))
			}
			if rng.IntN(2) == 0 {
				task.Description = sentence()
			}
			if rng.IntN(3) == 0 {
				task.Feature = fmt.Sprintf("F-%d", rng.IntN(6))
			}
			if rng.IntN(3) == 0 {
				task.Files = some(files, 2)
			}
			if r := rng.IntN(4); r > 0 {
				task.Run = fmt.Sprintf("run-%d", rng.IntN(10)) // run-9 has no entries
			}
			if rng.IntN(4) == 0 { // learnings of other statuses (prime --status)
				for _, st := range []string{"active", "superseded", "staged", "rejected", "pruned"} {
					if rng.IntN(2) == 0 {
						task.Statuses = append(task.Statuses, st)
					}
				}
			}
			if n%10 == 0 { // no task: what prime shows when it is given none
				task = Task{Run: task.Run, Statuses: task.Statuses}
			}
			var rel map[string]float64
			if rng.IntN(4) > 0 {
				rel = map[string]float64{}
				for range rng.IntN(40) {
					rel[paths[rng.IntN(len(paths))]] = float64(rng.IntN(100)+1) / 100
				}
			}
			cat, _, err := s.Catalog()
			if err != nil {
				t.Fatal(err)
			}
			journal, chosen := NewShortlist(cat, task, now).With(rel)
			if len(journal) < len(all.Journal) {
				smaller++
			}
			loop := strategy.Input{Run: task.Run, TaskID: task.ID}
			budgets := config.DefaultBudgets()
			if n%2 == 0 {
				budgets.TotalTokens = 1000 + rng.IntN(4000)
			}
			opts := Options{Budgets: budgets, Instructions: true, Learn: true}
			prime := func(in Input) (Context, strategy.Status) {
				in.Task, in.Relevance, in.Loop, in.Now = task, rel, strategy.Compute(in.Journal, loop), now
				return Prime(in, opts), in.Loop
			}
			wantCtx, wantLoop := prime(Input{Knowledge: all.Knowledge, Learnings: all.Learnings, Journal: all.Journal})
			gotCtx, gotLoop := prime(Input{Journal: journal, Chosen: chosen})
			if !reflect.DeepEqual(gotLoop, wantLoop) {
				t.Fatalf("%s: task %+v: loop status from the shortlist\n%+v\nfrom every entry\n%+v", when, task, gotLoop, wantLoop)
			}
			if !reflect.DeepEqual(gotCtx, wantCtx) {
				t.Fatalf("%s: task %+v rel %v: prime from the shortlist\n%s\nfrom every entry\n%s", when, task, rel, gotCtx.Markdown(), wantCtx.Markdown())
			}
		}
		if smaller*6 < tasks*5 {
			t.Fatalf("%s: only %d of %d shortlists left out journal entries", when, smaller, tasks)
		}
	}
	compare("from the cache", all)

	// Changed since: entries added (journal entries as new as the newest),
	// rewritten and deleted. The cache keeps them in a delta over what it
	// had, and the shortlist orders them among the others.
	newest := ""
	for _, j := range all.Journal {
		if j.CreatedAt > newest {
			newest = j.CreatedAt
		}
	}
	for i := range 40 {
		k := entry.Knowledge{Slug: fmt.Sprintf("k-new-%02d", i), Title: "About " + sentence(), Tags: tags(), Body: body(i), CreatedAt: when()}
		write(entry.KnowledgePath(k.Slug), entry.RenderKnowledge(k))
		l := entry.Learning{ID: fmt.Sprintf("l-a%05x", i), Category: "pitfall", Tags: tags(), CreatedAt: when(), Status: "active", Body: body(i)}
		write(entry.LearningPath(l.ID), entry.RenderLearning(l))
		run := fmt.Sprintf("run-%d", i%9)
		j := entry.JournalEntry{RunID: run, Iteration: 200 + i, TaskID: fmt.Sprintf("T-%d", rng.IntN(25)), Outcome: "failed",
			Model: "sonnet", FilesModified: some(files, 3), CreatedAt: newest, Notes: sentence(),
			Failure: &entry.Failure{WhatTried: sentence(), WhyFailed: sentence(), ErrorCategory: words[i%len(words)]}}
		write(entry.JournalPath(run, j.Iteration, fmt.Sprintf("%06x", 0xa00+i)), entry.RenderJournal(j))
	}
	for i := range 30 {
		os.Remove(filepath.Join(dir, filepath.FromSlash(all.Knowledge[i*7].Path)))
		os.Remove(filepath.Join(dir, filepath.FromSlash(all.Learnings[i*5].Path)))
		k := all.Knowledge[i*11+3]
		k.Tags = tags()
		write(k.Path, entry.RenderKnowledge(k))
	}
	for range 2 {
		if _, _, err := s.Entries(); err != nil {
			t.Fatal(err)
		}
		clock.Settle(t)
	}
	if _, err := os.Stat(filepath.Join(s.StateDir(), "entries.delta")); err != nil {
		t.Fatalf("no delta: %v", err)
	}
	all, ws, err = s.Entries()
	if err != nil || len(ws) > 0 {
		t.Fatal(ws, err)
	}
	compare("through a delta", all)
	// Without a task, every knowledge entry and active learning, and of
	// the journal the latest run's (a ninth) and the last two hours' (a
	// 48th of the four days the entries span).
	cat, _, _ := s.Catalog()
	journal, chosen := NewShortlist(cat, Task{}, now).With(nil)
	active := 0
	for _, l := range all.Learnings {
		if entry.Wanted(nil, l.State()) {
			active++
		}
	}
	if k, l := len(chosen.knowledge.cs[0])+len(chosen.knowledge.cs[1]), len(chosen.learnings.cs[0])+len(chosen.learnings.cs[1]); k != len(all.Knowledge) || l != active {
		t.Fatalf("a shortlist without a task ranks %d knowledge entries of %d, %d learnings of the %d active", k, len(all.Knowledge), l, active)
	}
	if len(journal) > len(all.Journal)/5 {
		t.Fatalf("a shortlist without a task has %d journal entries of %d: more than its latest run's", len(journal), len(all.Journal))
	}
}

// TestKeepBestKeepsTheBestAndTheirEquals: of the journal entries only
// their score brings in, the shortlist keeps the RelevantJournal best and
// every one as good as the last of those.
func TestKeepBestKeepsTheBestAndTheirEquals(t *testing.T) {
	at := func(place int, files int, time string) scoredHead {
		return scoredHead{rank{score: journalMatch{files: files}.score(0), time: momentOf(time)}, place}
	}
	places := func(hs []scoredHead) []int {
		var out []int
		for _, h := range hs {
			out = append(out, h.place)
		}
		slices.Sort(out)
		return out
	}
	var distinct, tied []scoredHead
	for i := range 12 {
		distinct = keepBest(distinct, at(i, 1+i%3, fmt.Sprintf("2026-03-01T10:%02d:00Z", i)), RelevantJournal)
		tied = keepBest(tied, at(i, 1, "2026-03-01T10:00:00Z"), RelevantJournal)
	}
	// Files 3 at places 2, 5, 8, 11; files 2 at 1, 4, 7, 10, the newest
	// first: the best five are 11, 8, 5, 2, then 10.
	if got, want := places(distinct), []int{2, 5, 8, 10, 11}; !slices.Equal(got, want) {
		t.Errorf("best of distinct scores: %v, want %v", got, want)
	}
	if got := places(tied); len(got) != 12 {
		t.Errorf("of 12 entries as good as each other, kept %v", got)
	}
	// Better ones: the tied stay while one of them is the fifth.
	for i := range 4 {
		tied = keepBest(tied, at(12+i, 2, "2026-03-01T09:00:00Z"), RelevantJournal)
	}
	if got := places(tied); len(got) != 16 {
		t.Errorf("with four better ones: kept %v", got)
	}
	tied = keepBest(tied, at(16, 3, "2026-03-01T09:00:00Z"), RelevantJournal)
	if got, want := places(tied), []int{12, 13, 14, 15, 16}; !slices.Equal(got, want) {
		t.Errorf("with five better ones: kept %v, want %v", got, want)
	}
}
