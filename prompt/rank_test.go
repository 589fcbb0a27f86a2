package prompt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// nearDuplicateScenario is a task and a store in which near-duplicates
// sit both next to what prime shows and far below it. Twenty learnings
// match the task by two tags, newest first; l-02 ranks first by its
// relevance, and l-02b, a newer copy of it, ranks next among those
// twenty. l-03far, a newer copy of l-03, and three older copies of l-04
// match by one tag only: they rank below all twenty. Likewise thirty
// knowledge entries of about 700 characters match by two tags, and three
// older copies of the first match by one.
func nearDuplicateScenario() Input {
	word := func(i int) string { return fmt.Sprintf("w%02dx", i) }
	body := func(i int) string {
		return fmt.Sprintf("Eviction detail %s: keep %s apart from %s when %s runs.", word(4*i), word(4*i+1), word(4*i+2), word(4*i+3))
	}
	at := func(minute int) string { return fmt.Sprintf("2026-03-01T10:%02d:00Z", minute) }
	learning := func(id string, tags []string, created, text string) entry.Learning {
		return entry.Learning{ID: id, Category: "pitfall", Tags: tags, Status: "active", CreatedAt: created, Body: text, Path: entry.LearningPath(id)}
	}
	both, one := []string{"cache", "eviction"}, []string{"cache"}
	var in Input
	in.Task = Task{Title: "Repair cache eviction"}
	for i := 1; i <= 20; i++ {
		in.Learnings = append(in.Learnings, learning(fmt.Sprintf("l-%02d", i), both, at(50-i), body(i)))
	}
	in.Learnings = append(in.Learnings,
		learning("l-02b", both, at(55), body(2)+" Again."),
		learning("l-03far", one, at(59), body(3)+" Again."))
	for i := range 3 {
		in.Learnings = append(in.Learnings, learning(fmt.Sprintf("l-04old%d", i), one, at(i), body(4)+" Again."))
	}
	in.Relevance = map[string]float64{entry.LearningPath("l-02"): 0.5}
	page := func(i int) string { // about 600 characters, sharing little with another page
		var b strings.Builder
		for j := range 60 {
			fmt.Fprintf(&b, "k%03dy%02d ", i, j)
		}
		return strings.TrimSpace(b.String())
	}
	knowledge := func(slug string, tags []string, created, text string) entry.Knowledge {
		return entry.Knowledge{Slug: slug, Title: "Eviction " + slug, Tags: tags, CreatedAt: created, Body: text, Path: entry.KnowledgePath(slug)}
	}
	for i := 1; i <= 30; i++ {
		in.Knowledge = append(in.Knowledge, knowledge(fmt.Sprintf("k-%02d", i), both, at(50-i), page(i)))
	}
	for i := range 3 {
		in.Knowledge = append(in.Knowledge, knowledge(fmt.Sprintf("k-01old%d", i), one, at(i), page(1)))
	}
	return in
}

// TestNearDuplicatesMergeAmongTheExamined: prime merges near-duplicates
// among the entries a section examines — until it is full, and
// nearDuplicateLookAhead more — and counts the others as left out: a
// newer copy next to a shown entry takes its place, one far below does
// not, and copies far below are counted among the entries left out.
func TestNearDuplicatesMergeAmongTheExamined(t *testing.T) {
	b := config.DefaultBudgets()
	b.AttemptsChars, b.MemoriesTokens, b.KnowledgeTokens = 0, 0, 750 // about five knowledge entries
	ctx := Prime(nearDuplicateScenario(), Options{Budgets: b})
	sections := map[string]Section{}
	for _, s := range ctx.Sections {
		sections[s.Name] = s
	}
	learnings := sections[SectionLearnings]
	if want := []string{"learning:l-02b", "learning:l-01", "learning:l-03", "learning:l-04", "learning:l-05"}; !slices.Equal(learnings.Entries, want) {
		t.Errorf("learnings shown %q, want %q: the newer copy next to l-02 in its place, l-03 kept over its copy far below", learnings.Entries, want)
	}
	// Ranked: 25. Examined: the first 6 (l-02, its copy, l-01, l-03,
	// l-04, l-05: five kept) and 10 more; kept 15, of which 5 shown; the
	// 9 below (l-16 to l-20, l-03far and l-04's three copies) unread.
	if learnings.Capped != 19 || !strings.Contains(ctx.Omitted, "19 learnings beyond the 5 prime shows") {
		t.Errorf("learnings capped %d, left-out line %q: want 15 - 5 kept and 9 not examined", learnings.Capped, ctx.Omitted)
	}
	knowledge := sections[SectionKnowledge]
	if knowledge.Shown == 0 || knowledge.Entries[0] != "knowledge:k-01" {
		t.Fatalf("knowledge shown %q", knowledge.Entries)
	}
	// Every entry not shown is counted, the copies of k-01 far below
	// among them.
	if got, want := knowledge.Omitted, 33-knowledge.Shown; got != want {
		t.Errorf("knowledge left out %d, want %d (33 ranked, %d shown)", got, want, knowledge.Shown)
	}
	loretest.Golden(t, "testdata/prime-near-duplicates.md", ctx.Markdown())
}

// storeShaped is the knowledge and learnings of a store of n entries
// shaped as the prime benchmark's (bench/corpus.go): 90% of them tagged
// with the topic "checkout", bodies of made-up words drawn from a fixed
// vocabulary, one learning in ten a near-duplicate of an earlier one.
func storeShaped(n int) Input {
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	vocabulary := make([]string, 800)
	for i := range vocabulary {
		vocabulary[i] = fmt.Sprintf("wo%03drd", i)
	}
	text := func(words int) string {
		ws := make([]string, words)
		for i := range ws {
			ws[i] = vocabulary[min(rng.IntN(len(vocabulary)), rng.IntN(len(vocabulary)))] // common words commoner
		}
		return strings.Join(ws, " ") + "."
	}
	tags := func() []string {
		out := []string{vocabulary[rng.IntN(40)]}
		if rng.IntN(10) < 9 {
			out = append(out, "checkout")
		}
		return out
	}
	at := func(i int) string {
		return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * 7 * time.Minute).Format(time.RFC3339)
	}
	var in Input
	for i := range n * 2 / 5 {
		slug := fmt.Sprintf("k-%06d", i)
		in.Knowledge = append(in.Knowledge, entry.Knowledge{Slug: slug, Title: text(4), Tags: tags(), CreatedAt: at(i), Body: text(120), Path: entry.KnowledgePath(slug)})
	}
	for i := range n * 3 / 5 {
		id := fmt.Sprintf("l-%06x", i)
		body := text(40)
		if i%10 == 9 {
			body = in.Learnings[rng.IntN(i)].Body + " Again."
		}
		in.Learnings = append(in.Learnings, entry.Learning{ID: id, Category: entry.LearningCategories[i%3], Tags: tags(), Status: "active",
			CreatedAt: at(i), Body: body, Path: entry.LearningPath(id)})
	}
	return in
}

// TestPrimeWorkGrowsWithTheBudget: the work prime does on each entry
// beyond ranking it by its head — reading it whole and asking whether it
// nearly duplicates another — is bounded by what its sections show, not
// by the store: a store ten times larger, of the same shape, costs about
// as many, without a task and with one most entries match.
func TestPrimeWorkGrowsWithTheBudget(t *testing.T) {
	type work struct{ ranked, read, compared int }
	prime := func(n int, task Task) work {
		in := storeShaped(n)
		in.Task = task
		r := Rank(in, DefaultHeadingLevel)
		b := config.DefaultBudgets()
		r.Prime(Options{Budgets: b})
		b.TotalTokens = 1500 // and under a tighter budget, as a hook tries
		r.Prime(Options{Budgets: b})
		return work{r.pl.knowledge.len() + r.pl.learnings.len(), r.pl.read.reads, r.pl.compared}
	}
	for _, task := range []Task{{}, {Title: "Fix the checkout wo001rd step", Feature: "checkout"}} {
		small, large := prime(2000, task), prime(20000, task)
		t.Logf("task %+v: %+v, ten times larger %+v", task, small, large)
		if large.ranked < 8*small.ranked {
			t.Fatalf("task %+v: ranked %d and %d entries: the stores are not of the same shape", task, small.ranked, large.ranked)
		}
		if large.read > small.read+small.read/2 || large.compared > small.compared+small.compared/2 {
			t.Errorf("task %+v: a store ten times larger read %d entries whole and asked about %d near-duplicates, against %d and %d",
				task, large.read, large.compared, small.read, small.compared)
		}
		if large.read > 100 {
			t.Errorf("task %+v: %d entries read whole to show at most a few dozen", task, large.read)
		}
	}
}

// TestNearTiesGoToRelevance: of two entries whose scores fall in one band
// of nearTieStep, the one full-text search finds more relevant ranks
// first; scores a band apart keep their order; without relevance the
// score decides, as before.
func TestNearTiesGoToRelevance(t *testing.T) {
	for _, c := range []struct {
		a, b rank
		want int
	}{
		{rank{score: 2.1, rel: 0.05}, rank{score: 2.05, rel: 0.1}, 1},
		{rank{score: 2.1}, rank{score: 2.05}, -1},
		{rank{score: 3.0, rel: 0}, rank{score: 2.05, rel: 0.9}, -1},
		{rank{score: 2.0, rel: 0.3}, rank{score: 2.0, rel: 0.1, tie: 1}, 1},
	} {
		if got := c.a.compare(&c.b); got != c.want {
			t.Errorf("%+v vs %+v: %d, want %d", c.a, c.b, got, c.want)
		}
		if got := c.b.compare(&c.a); got != -c.want {
			t.Errorf("%+v vs %+v: %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// TestStaleRanksBelowFresh: of two knowledge entries of the same score,
// the one a cited file changed under comes after the fresh one, though it
// is newer, and is marked; of different scores, the better one stays
// first, stale or not.
func TestStaleRanksBelowFresh(t *testing.T) {
	k := func(slug, created string, tags ...string) entry.Knowledge {
		return entry.Knowledge{Slug: slug, Title: "About " + slug, Tags: tags, Body: "Body of " + slug + ".", CreatedAt: created, Path: entry.KnowledgePath(slug)}
	}
	ks := []entry.Knowledge{k("fresh", "2026-01-01T00:00:00Z", "auth"), k("stale", "2026-02-01T00:00:00Z", "auth"), k("better", "2026-01-15T00:00:00Z", "auth", "login")}
	in := Input{Task: Task{Title: "Fix the auth login"}, Knowledge: ks,
		Stale: map[string]bool{entry.KnowledgePath("stale"): true, entry.KnowledgePath("better"): true},
		Mark:  func(string) string { return "cites `a.go`, changed since" }}
	ctx := Prime(in, Options{Budgets: config.DefaultBudgets()})
	for _, s := range ctx.Sections {
		if s.Name == SectionKnowledge {
			if got := strings.Join(s.Entries, " "); got != "knowledge:better knowledge:fresh knowledge:stale" {
				t.Errorf("order %s", got)
			}
			if strings.Count(s.Markdown, "_⚠ Stale: cites `a.go`, changed since_") != 2 {
				t.Errorf("marks:\n%s", s.Markdown)
			}
			return
		}
	}
	t.Fatal("no knowledge section")
}

// TestFreshFirstMovesStaleEntriesWithinTheirRun holds freshFirst, which
// finds only the runs that hold a stale entry, to the plain rule: every
// run of equal scores sorted stably, fresh entries before stale ones.
func TestFreshFirstMovesStaleEntriesWithinTheirRun(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	o := order{score: func(c *candidate, _ map[string]float64) (float64, bool) { return float64(c.tie), true }}
	for round := range 500 {
		n := rng.IntN(30)
		var cs [2][]candidate
		stale := map[string]bool{}
		for i := range n {
			c := candidate{tie: int32(rng.IntN(4)), path: fmt.Sprint("p", i)}
			if rng.IntN(3) == 0 {
				stale[c.path] = true
			}
			cs[i%2] = append(cs[i%2], c)
		}
		order := make([]int32, n)
		for i, p := range rng.Perm(n) {
			order[i] = int32(p)
		}
		want := slices.Clone(order)
		for start := 0; start < n; {
			end := start + 1
			for end < n && of(cs, int(want[end])).tie == of(cs, int(want[start])).tie {
				end++
			}
			slices.SortStableFunc(want[start:end], func(a, b int32) int {
				return boolCompare(stale[of(cs, int(a)).path], stale[of(cs, int(b)).path])
			})
			start = end
		}
		got := ranking{cs: cs, order: order}.freshFirst(o, nil, stale)
		if !slices.Equal(got.order, want) {
			t.Fatalf("round %d: %v, want %v", round, got.order, want)
		}
	}
}
