package lifecycle

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/mdstore"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// Seed 002's example: three SQLite foreign-key learnings of a category,
// each sharing half its tags with another, become one learning with the
// union of their tags; the two oldest are pruned and superseded by it, the
// newest is kept as it is. Learnings of another category, or sharing too
// few tags, stay.
func TestSummarizeSeedExample(t *testing.T) {
	t.Parallel()
	dir, git := storeRepo(t)
	s, _ := mdstore.Open(dir, storeOptions(t))
	add := func(category string, tags []string, body string) entry.Learning {
		t.Helper()
		l, dup, _, err := s.AddLearning(entry.NewLearning{Category: category, Tags: tags, Body: body})
		if err != nil || dup {
			t.Fatalf("%v %v", dup, err)
		}
		return l
	}
	abc := add("success_pattern", []string{"Rust", "SQLite", "foreign keys"}, "Enable PRAGMA foreign_keys = ON when creating tables with FKs.")
	def := add("success_pattern", []string{"Rust", "SQLite", "CASCADE"}, "Use ON DELETE CASCADE to maintain referential integrity.")
	ghi := add("success_pattern", []string{"SQLite", "foreign keys", "migration"}, "Check foreign key constraints after schema migrations with PRAGMA foreign_key_check.")
	other := add("pitfall", []string{"SQLite", "foreign keys"}, "Foreign keys are off by default in every new connection.")
	far := add("success_pattern", []string{"deploy", "vpn", "staging"}, "The staging deploy needs the VPN up.")

	head := git("rev-parse", "HEAD")
	merges, res, err := summarize(s, false)
	if err != nil || res != nil || len(merges) != 1 || git("rev-parse", "HEAD") != head {
		t.Fatalf("dry run: %+v %+v %v", merges, res, err)
	}
	merges, res, err = summarize(s, true)
	if err != nil || res == nil || res.Commit == "" || len(merges) != 1 {
		t.Fatalf("%+v %+v %v", merges, res, err)
	}
	m := merges[0]
	if strings.Join(m.Members, ",") != abc.ID+","+def.ID+","+ghi.ID {
		t.Fatalf("members %v", m.Members)
	}
	want := "Common pattern: rust, sqlite, foreign keys. Examples:\n" +
		"- Enable PRAGMA foreign_keys = ON when creating tables with FKs.\n" +
		"- Use ON DELETE CASCADE to maintain referential integrity.\n" +
		"- Check foreign key constraints after schema migrations with PRAGMA foreign_key_check."
	merged, err := s.Learning(m.Learning.ID)
	if err != nil || merged.Body != want || strings.Join(merged.Tags, ",") != "rust,sqlite,foreign keys,cascade,migration" ||
		merged.Category != "success_pattern" || !merged.Shown() {
		t.Fatalf("the merged learning: %+v %v\nwant body %q", merged, err, want)
	}
	for _, id := range []string{abc.ID, def.ID} {
		if l, _ := s.Learning(id); l.Status != "pruned" || l.SupersededBy != merged.ID || l.StatusReason != "summarized into "+merged.ID {
			t.Errorf("%s: %+v", id, l)
		}
	}
	for _, id := range []string{ghi.ID, other.ID, far.ID} {
		if l, _ := s.Learning(id); !l.Shown() {
			t.Errorf("%s should be kept as it is: %+v", id, l)
		}
	}
	if got := git("log", "-1", "--format=%s%n%b"); !strings.HasPrefix(got, "lore: summarize 1 cluster of learnings\n- "+merged.ID+" (success_pattern): "+abc.ID+", "+def.ID+"; kept as it is: "+ghi.ID) {
		t.Fatalf("commit message:\n%s", got)
	}
	if got := git("show", "--stat", "--format=", "HEAD"); strings.Count(got, ".md") != 3 {
		t.Fatalf("the commit should touch the new learning and the two pruned ones:\n%s", got)
	}
	files, err := s.ValidationFiles(false)
	if err != nil {
		t.Fatal(err)
	}
	if ps := entry.Validate(files, config.Validate); entry.HasErrors(ps) {
		t.Fatalf("validation: %+v", ps)
	}
	// Again: the newest is alone among the shown learnings of its tags, and
	// a summary is not summarized again: nothing to merge.
	if merges, res, err := summarize(s, true); err != nil || res != nil || len(merges) != 0 {
		t.Fatalf("a second summarization: %+v %+v %v", merges, res, err)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

// Ingest summarizes past the threshold, at most once every ten
// iterations.
func TestSummarizeDue(t *testing.T) {
	t.Parallel()
	dir, _ := storeRepo(t)
	os.MkdirAll(filepath.Join(dir, ".agent"), 0o755)
	os.WriteFile(filepath.Join(dir, ".agent", "config.yaml"), []byte("learnings:\n  summarize_threshold: 1\n"), 0o644)
	s, err := mdstore.Open(dir, storeOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if SummarizeDue(s, 0) || SummarizeDue(s, -1) {
		t.Fatal("no learnings, or none counted: due")
	}
	for _, body := range []string{"Use a real temp dir for git tests.", "Pin the toolchain in go.mod for CI."} {
		if _, _, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"x"}, Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	if !SummarizeDue(s, 2) {
		t.Fatal("two learnings past a threshold of one: not due")
	}
	if _, _, err := summarize(s, true); err != nil {
		t.Fatal(err)
	}
	NoteSummarized(s)
	if _, _, _, err := s.AddLearning(entry.NewLearning{Category: "pitfall", Tags: []string{"y"}, Body: "Another one about retries."}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < summarizeEvery-1; i++ {
		NoteIteration(s)
	}
	if SummarizeDue(s, 3) {
		t.Fatal("due again before ten iterations")
	}
	NoteIteration(s)
	if !SummarizeDue(s, 3) {
		t.Fatal("not due after ten iterations")
	}
}

// linkSimilar's components are those of linking every pair of learnings
// whose tags overlap by half the smaller set, and it links no other pair.
func TestLinkSimilarAsEveryPair(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	vocab := []string{"a", "b", "c", "d", "e", "f", "g", "h"}
	components := func(n int, each func(link func(i, j int))) []int {
		parent := make([]int, n)
		for i := range parent {
			parent[i] = i
		}
		find := func(i int) int {
			for parent[i] != i {
				i = parent[i]
			}
			return i
		}
		each(func(i, j int) { parent[find(j)] = find(i) })
		out := make([]int, n)
		for i := range out {
			out[i] = find(i) // compared by partition below
		}
		return out
	}
	samePartition := func(a, b []int) bool {
		for i := range a {
			for j := range a {
				if (a[i] == a[j]) != (b[i] == b[j]) {
					return false
				}
			}
		}
		return true
	}
	for round := range 300 {
		group := make([]*entry.Learning, 2+rng.IntN(40))
		for i := range group {
			// Tags as a learning has them: normalized, each once.
			var tags []string
			for range 1 + rng.IntN(8) {
				if t := vocab[rng.IntN(len(vocab))]; !slices.Contains(tags, t) {
					tags = append(tags, t)
				}
			}
			group[i] = &entry.Learning{Tags: tags}
		}
		want := components(len(group), func(link func(i, j int)) {
			for i := range group {
				for j := i + 1; j < len(group); j++ {
					if entry.TagOverlap(group[i].Tags, group[j].Tags) >= 0.5 {
						link(i, j)
					}
				}
			}
		})
		got := components(len(group), func(link func(i, j int)) {
			linkSimilar(group, func(i, j int) {
				if entry.TagOverlap(group[i].Tags, group[j].Tags) < 0.5 {
					t.Fatalf("round %d: linked %v and %v", round, group[i].Tags, group[j].Tags)
				}
				link(i, j)
			})
		})
		if !samePartition(want, got) {
			t.Fatalf("round %d: components differ for %v", round, func() (ts [][]string) {
				for _, l := range group {
					ts = append(ts, l.Tags)
				}
				return
			}())
		}
	}
}

// summarize plans a summary and, with apply, applies it.
func summarize(s *mdstore.Store, apply bool) ([]Merge, *mdstore.WriteResult, error) {
	plan, err := PlanSummary(s)
	if err != nil {
		return nil, nil, err
	}
	if !apply {
		return plan.Merges, nil, nil
	}
	res, err := plan.Apply(s)
	return plan.Merges, res, err
}
