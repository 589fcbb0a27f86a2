// Package indextest checks that an index.Index ranks and filters the way
// lore's search promises: on a small fixed corpus, the expected top hits
// for typo, multi-word, tag and title queries, every filter, limits,
// replacement and removal, and the "did you mean"; on a second one, the
// rules of common and rare words (CommonCorpus).
package indextest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/mdstore/entry"
)

func day(d int) time.Time { return time.Date(2026, 3, d, 12, 0, 0, 0, time.UTC) }

// Corpus is the fixed set of documents the checks search.
func Corpus() []index.Doc {
	mem := func(id, typ, content string, created time.Time, tags ...string) index.Doc {
		return index.Doc{ID: ".agent/memories.md#" + id, Kind: entry.KindMemory, EntryID: id, Type: typ,
			Tags: tags, Content: content, Created: created, Path: ".agent/memories.md"}
	}
	know := func(slug, title, content string, created time.Time, tags ...string) index.Doc {
		p := ".agent/knowledge/" + slug + ".md"
		return index.Doc{ID: p, Kind: entry.KindKnowledge, EntryID: slug, Title: title, Tags: tags,
			Content: content, Created: created, Path: p}
	}
	learn := func(id, category, task, content string, created time.Time, tags ...string) index.Doc {
		p := ".agent/learnings/" + id + ".md"
		return index.Doc{ID: p, Kind: entry.KindLearning, EntryID: id, Type: category, Task: task,
			Tags: tags, Content: content, Created: created, Path: p}
	}
	hidden := func(d index.Doc, status string) index.Doc {
		d.Status = status
		return d
	}
	journal := func(run string, it int, task, outcome, content string, created time.Time) index.Doc {
		p := fmt.Sprintf(".agent/journal/%s/%04d.md", run, it)
		return index.Doc{ID: p, Kind: entry.KindJournal, EntryID: fmt.Sprintf("%s/%04d", run, it), Task: task,
			Run: run, Outcome: outcome, Content: content, Created: created, Path: p}
	}
	return []index.Doc{
		mem("mem-1-aaaa", "fix", "A stale index.lock blocks every git commit; remove it only when no git process runs.", day(1), "git", "locks"),
		mem("mem-2-bbbb", "pattern", "Use testscript for CLI tests: each txtar script runs the real binary.", day(2), "tests", "testscript"),
		mem("mem-3-cccc", "decision", "bleve is kept out of the lean binary because it slows start-up.", day(3), "bleve", "performance"),
		mem("mem-4-dddd", "context", "The release pipeline publishes binaries for linux and darwin.", day(4), "release"),
		mem("mem-5-eeee", "fix", "Flaky timeout in the concurrency test: raise the lock timeout under load.", day(5), "tests", "flaky"),
		know("git-lock-timeout", "Git lock timeout", "How long lore waits for index.lock before naming the lock holder.", day(6), "git", "locks"),
		know("search-ranking", "Search ranking", "Titles and tags rank above content; fuzzy matches rank below exact ones.", day(7), "search"),
		know("release-process", "Release process", "Tag the commit, build with goreleaser, publish the checksums.", day(8), "release"),
		know("database-migrations", "Database migrations", "Run migrations before deploying; never edit an applied migration.", day(9), "database", "deploy"),
		learn("l-000001", "strategy", "task-7", "Split large refactors into commits that each keep the tests green.", day(10), "refactoring"),
		learn("l-000002", "antipattern", "task-7", "Mocking the file system hid a rename bug that a real temp dir showed.", day(11), "tests", "mocks"),
		learn("l-000003", "convention", "task-9", "Error messages name the file and line and say what to do.", day(12), "errors"),
		learn("l-000004", "estimate", "task-9", "Parser work takes twice the first estimate.", day(13), "planning"),
		hidden(learn("l-000005", "antipattern", "task-7", "Mocking git in the commit tests made them fast and wrong.", day(13), "tests", "mocks"), "rejected"),
		hidden(learn("l-000006", "strategy", "task-7", "Refactor in one large commit, then fix the tests.", day(13), "refactoring"), index.StatusSuperseded),
		journal("run-1", 1, "task-7", "failed", "Tried mocking git; the commit test still failed on the lock.", day(14)),
		journal("run-1", 2, "task-7", "done", "Used a real repository in a temp dir; commit test passes.", day(15)),
		journal("run-2", 1, "task-9", "done", "Rewrote error messages to name file and line.", day(16)),
		{ID: ".agent/skills/deploy/SKILL.md", Kind: entry.KindSkill, EntryID: "deploy", Title: "deploy",
			Content: "Deploy the service to staging and production.", Path: ".agent/skills/deploy/SKILL.md"},
	}
}

// CommonCorpus is a store in which a few words (internal, error, every,
// tests, failed) are in most entries, beside entries that hold a rare word
// each: the documents of the checks of common and rare words.
func CommonCorpus() []index.Doc {
	var docs []index.Doc
	mem := func(id, content string, tags ...string) {
		docs = append(docs, index.Doc{ID: ".agent/memories.md#" + id, Kind: entry.KindMemory, EntryID: id, Type: "fix",
			Tags: tags, Content: content, Created: day(1 + len(docs)), Path: ".agent/memories.md"})
	}
	for i, topic := range []string{"parser", "scheduler", "mailer", "exporter", "importer", "renderer",
		"uploader", "resolver", "planner", "tokenizer", "compressor", "indexer", "watcher", "profiler"} {
		switch i % 3 {
		case 0:
			mem(fmt.Sprintf("mem-%d-comm", i), fmt.Sprintf("Every internal error of the %s failed the tests.", topic))
		case 1:
			mem(fmt.Sprintf("mem-%d-comm", i), fmt.Sprintf("The %s tests failed: an internal error, every time.", topic))
		default:
			mem(fmt.Sprintf("mem-%d-comm", i), fmt.Sprintf("Internal %s error; every tests build failed until it was pinned.", topic))
		}
	}
	mem("mem-etim-eout", "Artifact upload hits ETIMEDOUT behind the corporate proxy; retry it.", "ci")
	mem("mem-inte-rval", "Poll the queue at a fixed interval, never in a busy loop.", "queue")
	mem("mem-car-park", "The car park fills by nine; come early.", "office")
	mem("mem-kube-text", "Pods restart when kubernetes kills them.")
	docs = append(docs, index.Doc{ID: ".agent/knowledge/probes.md", Kind: entry.KindKnowledge, EntryID: "probes",
		Title: "Kubernetes probes", Content: "Liveness and readiness checks restart pods that hang; set their timeouts above the slowest start-up.",
		Created: day(20), Path: ".agent/knowledge/probes.md"})
	return docs
}

// Run indexes Corpus into a new index and checks it.
func Run(t *testing.T, newIndex func(t *testing.T) index.Index) {
	fresh := func(t *testing.T) index.Index {
		ix := newIndex(t)
		if err := ix.Index(Corpus()...); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	search := func(t *testing.T, ix index.Index, q index.Query) index.Result {
		t.Helper()
		res, err := ix.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	entryIDs := func(res index.Result) []string {
		var out []string
		for _, h := range res.Hits {
			out = append(out, h.EntryID)
		}
		return out
	}
	top := func(t *testing.T, ix index.Index, q index.Query, want ...string) {
		t.Helper()
		got := entryIDs(search(t, ix, q))
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Errorf("%+v: top hits %v, want %v first", q, got, want)
		}
	}
	set := func(t *testing.T, ix index.Index, q index.Query, want ...string) {
		t.Helper()
		got := entryIDs(search(t, ix, q))
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%+v: hits %v, want %v", q, got, want)
		}
	}

	t.Run("ranking", func(t *testing.T) {
		ix := fresh(t)
		// A typo still finds the word.
		top(t, ix, index.Query{Text: "bleev"}, "mem-3-cccc")
		top(t, ix, index.Query{Text: "migratoins"}, "database-migrations")
		// Title and tag matches rank above content matches.
		top(t, ix, index.Query{Text: "release"}, "release-process")
		top(t, ix, index.Query{Text: "testscript"}, "mem-2-bbbb")
		// More words matched rank higher; one word is enough to match.
		top(t, ix, index.Query{Text: "lock timeout"}, "git-lock-timeout")
		res := search(t, ix, index.Query{Text: "goreleaser staging"})
		set(t, ix, index.Query{Text: "goreleaser staging"}, "release-process", "deploy")
		if res.Total != 2 {
			t.Errorf("total %d, want 2", res.Total)
		}
		// Another form of a word finds it (English stems).
		top(t, ix, index.Query{Text: "migrating"}, "database-migrations")
		// A word repeated in the query counts once.
		once, thrice := search(t, ix, index.Query{Text: "lock timeout"}), search(t, ix, index.Query{Text: "lock lock timeout Lock"})
		if len(once.Hits) != len(thrice.Hits) || len(once.Hits) == 0 || once.Hits[0].Score != thrice.Hits[0].Score {
			t.Errorf("a repeated word changed the answer: %+v vs %+v", once.Hits, thrice.Hits)
		}
		// An entry's id finds it.
		top(t, ix, index.Query{Text: "l-000003"}, "l-000003")
		// Snippets show the match.
		for _, h := range search(t, ix, index.Query{Text: "goreleaser"}).Hits {
			if !containsFold(h.Snippet, "goreleaser") {
				t.Errorf("snippet %q does not show the match", h.Snippet)
			}
		}
	})

	// A word written joined in one entry and split in another is found
	// both ways, where the store writes the other form; an entry holding
	// only one part of a split word is no hit.
	t.Run("compounds meet", func(t *testing.T) {
		ix := newIndex(t)
		err := ix.Index(
			index.Doc{ID: "a", EntryID: "joined", Kind: entry.KindMemory, Content: "Run make setup before the first airflow test."},
			index.Doc{ID: "b", EntryID: "split", Kind: entry.KindMemory, Content: "The dbt source freshness check fails when loaded_at is null."},
			index.Doc{ID: "c", EntryID: "part", Kind: entry.KindMemory, Content: "Every source table has an owner."},
			index.Doc{ID: "d", EntryID: "checkout", Kind: entry.KindMemory, Content: "The checkout completed event is emitted once per order."},
			index.Doc{ID: "e", EntryID: "other", Kind: entry.KindMemory, Content: "Set the retries of the sensor; it times out otherwise."})
		if err != nil {
			t.Fatal(err)
		}
		top(t, ix, index.Query{Text: "set up"}, "joined") // the store says setup
		top(t, ix, index.Query{Text: "how do I set up airflow locally"}, "joined")
		top(t, ix, index.Query{Text: "check out"}, "checkout")
		set(t, ix, index.Query{Text: "sourcefreshness"}, "split")          // the store says source freshness
		set(t, ix, index.Query{Text: "source freshness"}, "split", "part") // the words themselves
	})

	// Word forms meet by their stem, but a word whose stem Porter's
	// algorithm shares with a word of another meaning does not meet it.
	t.Run("stems kept apart", func(t *testing.T) {
		ix := newIndex(t)
		err := ix.Index(
			index.Doc{ID: "a", EntryID: "docker", Kind: entry.KindMemory, Content: "The api container restarts when the health check fails."},
			index.Doc{ID: "b", EntryID: "contains", Kind: entry.KindMemory, Content: "The export contains every order of the day."},
			index.Doc{ID: "c", EntryID: "prod", Kind: entry.KindMemory, Content: "Deploys to production need a second approval."},
			index.Doc{ID: "d", EntryID: "catalog", Kind: entry.KindMemory, Content: "Products without a price are hidden from the catalog."})
		if err != nil {
			t.Fatal(err)
		}
		set(t, ix, index.Query{Text: "containerized"}, "docker")
		set(t, ix, index.Query{Text: "containing"}, "contains")
		set(t, ix, index.Query{Text: "product"}, "catalog")
		set(t, ix, index.Query{Text: "productions"}, "prod")
	})

	// A query word finds an entry saying it in another word of the same
	// meaning (thesaurus.Related), below one saying the word itself.
	t.Run("related words meet", func(t *testing.T) {
		ix := newIndex(t)
		err := ix.Index(
			index.Doc{ID: "a", EntryID: "doctor", Kind: entry.KindMemory, Content: strings.Repeat("Ward rounds start at eight. ", 8) + "The doctor on call signs the discharge letter."},
			index.Doc{ID: "b", EntryID: "physician", Kind: entry.KindMemory, Content: "A physician must sign off every prescription change."},
			index.Doc{ID: "c", EntryID: "nurse", Kind: entry.KindMemory, Content: "Nurses see the ward rota a week ahead."})
		if err != nil {
			t.Fatal(err)
		}
		res := search(t, ix, index.Query{Text: "physician"})
		if got := entryIDs(res); !slices.Equal(got, []string{"physician", "doctor"}) {
			t.Fatalf("physician: %v, want [physician doctor]", got)
		}
		if snip := res.Hits[1].Snippet; !strings.Contains(snip, "doctor") {
			t.Errorf("the snippet of a hit by a synonym does not show it: %q", snip)
		}
	})

	t.Run("filters", func(t *testing.T) {
		ix := fresh(t)
		set(t, ix, index.Query{Text: "tests", Kinds: []entry.Kind{entry.KindLearning}}, "l-000001", "l-000002")
		set(t, ix, index.Query{Kinds: []entry.Kind{entry.KindMemory}, Types: []string{"FIX"}}, "mem-1-aaaa", "mem-5-eeee")
		set(t, ix, index.Query{Tags: []string{"release", "database"}}, "mem-4-dddd", "release-process", "database-migrations")
		set(t, ix, index.Query{Categories: []string{"estimate"}}, "l-000004")
		set(t, ix, index.Query{Task: "task-7"}, "l-000001", "l-000002", "run-1/0001", "run-1/0002")
		set(t, ix, index.Query{Run: "run-2"}, "run-2/0001")
		set(t, ix, index.Query{Since: day(15)}, "run-1/0002", "run-2/0001")
		set(t, ix, index.Query{Text: "commit", Task: "task-7", Kinds: []entry.Kind{entry.KindJournal}}, "run-1/0001", "run-1/0002")
	})

	t.Run("learnings not shown are found when asked for", func(t *testing.T) {
		ix := fresh(t)
		learnings := []entry.Kind{entry.KindLearning}
		set(t, ix, index.Query{Text: "mocks tests commit", Kinds: learnings}, "l-000001", "l-000002")
		set(t, ix, index.Query{Text: "mocks tests commit", Kinds: learnings, Statuses: []string{"rejected"}}, "l-000005")
		set(t, ix, index.Query{Text: "refactor", Statuses: []string{"superseded", "active"}}, "l-000001", "l-000006")
		set(t, ix, index.Query{Tags: []string{"refactoring"}, Statuses: index.Statuses}, "l-000001", "l-000006")
		set(t, ix, index.Query{Tags: []string{"refactoring"}, Statuses: []string{"staged"}})
		set(t, ix, index.Query{Statuses: []string{"superseded"}}, "l-000006")
	})

	t.Run("empty text lists newest first", func(t *testing.T) {
		ix := fresh(t)
		res := search(t, ix, index.Query{Kinds: []entry.Kind{entry.KindKnowledge}, Limit: 2})
		if got := entryIDs(res); !slices.Equal(got, []string{"database-migrations", "release-process"}) || res.Total != 4 {
			t.Errorf("newest knowledge: %v of %d, want [database-migrations release-process] of 4", got, res.Total)
		}
	})

	t.Run("limit", func(t *testing.T) {
		ix := fresh(t)
		res := search(t, ix, index.Query{Text: "tests", Limit: 2})
		if len(res.Hits) != 2 || res.Total < 4 {
			t.Errorf("limit 2: %d hits of %d", len(res.Hits), res.Total)
		}
	})

	t.Run("limit per kind", func(t *testing.T) {
		ix := fresh(t)
		all := search(t, ix, index.Query{Text: "tests"})
		best := map[entry.Kind]string{}
		var want []string
		for _, h := range all.Hits {
			if _, ok := best[h.Kind]; !ok {
				best[h.Kind] = h.ID
				want = append(want, h.ID)
			}
		}
		if len(all.Hits) <= len(best) {
			t.Fatalf("the corpus has no kind with two hits for tests: %v", entryIDs(all))
		}
		for _, bare := range []bool{false, true} {
			res := search(t, ix, index.Query{Text: "tests", Limit: 1, LimitPerKind: true, Bare: bare})
			var got []string
			for _, h := range res.Hits {
				got = append(got, h.ID)
			}
			if !slices.Equal(got, want) || res.Total != all.Total {
				t.Errorf("the best of each kind (bare %v): %v of %d, want %v of %d", bare, got, res.Total, want, all.Total)
			}
		}
	})

	t.Run("replace, remove, clear", func(t *testing.T) {
		ix := fresh(t)
		d := Corpus()[3]
		d.Content = "The release pipeline now also ships a zeppelin."
		if err := ix.Index(d); err != nil {
			t.Fatal(err)
		}
		set(t, ix, index.Query{Text: "zeppelin"}, "mem-4-dddd")
		if err := ix.Remove(d.ID, "no-such-id"); err != nil {
			t.Fatal(err)
		}
		set(t, ix, index.Query{Text: "zeppelin"})
		if err := ix.Clear(); err != nil {
			t.Fatal(err)
		}
		set(t, ix, index.Query{})
	})

	t.Run("common and rare words", func(t *testing.T) {
		ix := newIndex(t)
		if err := ix.Index(CommonCorpus()...); err != nil {
			t.Fatal(err)
		}
		// A pasted error message finds the entry holding its one
		// distinctive token, not those holding many of its common words.
		top(t, ix, index.Query{Text: "internal error: every tests run failed with ETIMEDOUT while the internal job failed"}, "mem-etim-eout")
		// Common words only add to the score of an entry that holds a
		// rare word of the query.
		set(t, ix, index.Query{Text: "every internal error etimedout"}, "mem-etim-eout")
		// A typo of a rare word still finds it, beside common words too.
		top(t, ix, index.Query{Text: "etimedotu"}, "mem-etim-eout")
		top(t, ix, index.Query{Text: "etimedotu internal tests"}, "mem-etim-eout")
		// A query of common words alone is still answered.
		if res := search(t, ix, index.Query{Text: "internal tests"}); res.Total != 14 {
			t.Errorf("internal tests: %d hits, want the 14 entries holding them", res.Total)
		}
		// A word the store holds is no typo: it matches itself, never a
		// word near it (internal is not interval, nor interval internal).
		set(t, ix, index.Query{Text: "internal", Kinds: []entry.Kind{entry.KindMemory}, Tags: []string{"queue"}})
		set(t, ix, index.Query{Text: "interval"}, "mem-inte-rval")
		// Nor is a short word: cat is not car.
		set(t, ix, index.Query{Text: "cat"})
		// A fuzzy match keeps its field's weight: a typo of a title word
		// ranks the entry so titled first, as the word itself does.
		top(t, ix, index.Query{Text: "kubernetes"}, "probes")
		top(t, ix, index.Query{Text: "kuberentes"}, "probes")
		// Strict: only the rare words count, and stop words never do.
		set(t, ix, index.Query{Text: "every internal error in the tests", Strict: true})
		set(t, ix, index.Query{Text: "the of and is", Strict: true})
		set(t, ix, index.Query{Text: "every internal error in the tests, then ETIMEDOUT", Strict: true}, "mem-etim-eout")
		set(t, ix, index.Query{Text: "fixed interval", Strict: true}, "mem-inte-rval")
	})

	t.Run("did you mean", func(t *testing.T) {
		ix := fresh(t)
		res := search(t, ix, index.Query{Text: "goreleasr"})
		if res.Total == 0 {
			t.Errorf("a one-letter typo found nothing")
		}
		res = search(t, ix, index.Query{Text: "gorelxxxer"})
		if res.Total != 0 || res.Suggestion != "goreleaser" {
			t.Errorf("three edits away: %d hits, suggestion %q, want none and goreleaser", res.Total, res.Suggestion)
		}
		if res := search(t, ix, index.Query{Text: "qqqqqqqq"}); res.Suggestion != "" {
			t.Errorf("suggestion %q for a word like no other", res.Suggestion)
		}
	})
}

func containsFold(s, sub string) bool {
	return len(index.Tokens(s)) > 0 && slices.Contains(index.Tokens(s), sub)
}
