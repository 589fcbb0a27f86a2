package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lore/mdstore"
	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// Issue 38's store: 210 shown learnings in five topics of 42, each pair of
// a topic sharing two of its three tags. Every cluster's examples would
// take more than 2,000 characters, and summarize used to skip all five
// without a word ("Nothing to summarize"). Each now gets one summary
// within the limit: its theme, its most representative examples (the
// members of each topic written around one idea before the others, each
// in words of its own) and the rest by id; all but the newest member are superseded by it.
func TestSummarizeLargeClusters(t *testing.T) {
	t.Parallel()
	dir, git := storeRepo(t)
	topics := []string{"auth", "cache", "deploy", "migrations", "testing"}
	central := map[string]bool{} // the members written around the topic's one idea
	byTopic := map[string][]string{}
	if err := os.MkdirAll(filepath.Join(dir, entry.LearningsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	n := 0
	for k, topic := range topics {
		for j := range 42 {
			n++
			id := fmt.Sprintf("l-%06x", n)
			// The others: each its own words, none the others use.
			body := fmt.Sprintf("Zq%[1]dk%[2]d vx%[1]dm%[2]d wb%[1]dp%[2]d yt%[1]dr%[2]d hg%[1]dn%[2]d, (%[3]s).", k, j, strings.ToUpper(topic))
			if j%2 == 0 {
				body = fmt.Sprintf("The %s retry must wait for the lock before the second request, case %d.", topic, j)
				central[id] = true
			}
			l := entry.Learning{ID: id, Category: "pitfall", Tags: []string{topic, topic + "-area", fmt.Sprintf("%s-%d", topic, j)},
				CreatedAt: fmt.Sprintf("2027-01-0%dT10:%02d:00Z", k+1, j), Status: "active", Body: body}
			if err := os.WriteFile(filepath.Join(dir, entry.LearningPath(id)), entry.RenderLearning(l), 0o644); err != nil {
				t.Fatal(err)
			}
			byTopic[topic] = append(byTopic[topic], id)
		}
	}
	git("add", ".agent")
	git("commit", "-q", "-m", "210 learnings")
	s, err := mdstore.Open(dir, storeOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanSummary(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Merges) != 5 || len(plan.Skipped) != 0 {
		t.Fatalf("%d merges, skipped %+v", len(plan.Merges), plan.Skipped)
	}
	for i, m := range plan.Merges {
		topic := topics[i]
		body := m.Learning.Body
		if !slices.Equal(m.Members, byTopic[topic]) {
			t.Fatalf("%s: members %v", topic, m.Members)
		}
		if len(body) > summaryMaxLen || !strings.HasPrefix(body, "Common pattern: "+topic+", "+topic+"-area. Recurring words: before, case, lock, must, request.\n") {
			t.Fatalf("%s: %d bytes:\n%s", topic, len(body), body)
		}
		// Every member is there once: its text as an example, or its id.
		examples, listed := 0, 0
		var outliers, centralListed []string
		for _, id := range m.Members {
			l, err := s.Learning(id)
			if err != nil {
				t.Fatal(err)
			}
			asExample := strings.Contains(body, "\n- "+l.Body+"\n") || strings.HasSuffix(body, "\n- "+l.Body)
			asID := strings.Contains(body, id)
			if asExample == asID {
				t.Fatalf("%s: %s as an example %v, by id %v:\n%s", topic, id, asExample, asID, body)
			}
			switch {
			case asExample:
				examples++
				if !central[id] {
					outliers = append(outliers, id)
				}
			default:
				listed++
				if central[id] {
					centralListed = append(centralListed, id)
				}
			}
		}
		if len(outliers) > 0 && len(centralListed) > 0 {
			t.Errorf("%s: %v are examples, while %v, more representative, are listed by id:\n%s", topic, outliers, centralListed, body)
		}
		if examples < 5 || !strings.Contains(body, fmt.Sprintf("\nExamples (%d of 42, the most representative):\n- ", examples)) ||
			!strings.Contains(body, fmt.Sprintf("\nAnd %d more: l-", listed)) {
			t.Fatalf("%s: %d examples, %d by id:\n%s", topic, examples, listed, body)
		}
	}
	t.Logf("one summary:\n%s", plan.Merges[0].Learning.Body)

	res, err := plan.Apply(s)
	if err != nil || res == nil || res.Commit == "" {
		t.Fatalf("%+v %v", res, err)
	}
	if got := git("log", "-1", "--format=%s"); got != "lore: summarize 5 clusters of learnings" {
		t.Fatalf("subject %q", got)
	}
	// C git: five summaries added, 205 members pruned, the five newest kept.
	if got := git("diff", "--name-status", "HEAD~1", "HEAD"); strings.Count(got, "A\t") != 5 || strings.Count(got, "M\t") != 205 {
		t.Fatalf("the commit's files:\n%s", got)
	}
	for i, m := range plan.Merges {
		for j, id := range m.Members {
			l, err := s.Learning(id)
			if err != nil {
				t.Fatal(err)
			}
			if j == len(m.Members)-1 {
				if !l.Shown() {
					t.Errorf("%s, the newest of %s, should be kept: %+v", id, topics[i], l)
				}
			} else if l.Status != "pruned" || l.SupersededBy != m.Learning.ID {
				t.Errorf("%s: %+v", id, l)
			}
		}
	}
	files, err := s.ValidationFiles(false)
	if err != nil {
		t.Fatal(err)
	}
	if ps := entry.Validate(files, config.Validate); entry.HasErrors(ps) {
		t.Fatalf("validation: %+v", ps)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

// A cluster of thousands, each with a tag of its own: its summary's text
// and tags stay within 2,000 characters each (the union of every tag would
// pass what an entry's file may hold), the theme's tags first, and every
// member is named (past the room, counted).
func TestSummarizeHugeCluster(t *testing.T) {
	t.Parallel()
	var ls []entry.Learning
	for j := range 4000 {
		ls = append(ls, entry.Learning{ID: fmt.Sprintf("l-%06x", j), Category: "pitfall", Status: "active",
			Tags: []string{"ci", "flaky", fmt.Sprintf("flaky-test-number-%d", j)},
			Body: fmt.Sprintf("The CI job %d is flaky when the cache is cold; rerun it once before looking.", j)})
	}
	merges, skipped := planMerges(ls)
	if len(merges) != 1 || len(skipped) != 0 {
		t.Fatalf("%d merges, skipped %+v", len(merges), skipped)
	}
	l := merges[0].Learning
	tags := strings.Join(l.Tags, ", ")
	if len(l.Body) > summaryMaxLen || len(tags) > summaryMaxLen || !strings.HasPrefix(tags, "ci, flaky, flaky-test-number-0, ") {
		t.Fatalf("%d bytes of text, %d of tags: %s", len(l.Body), len(tags), tags)
	}
	if len(merges[0].Members) != 4000 || !strings.Contains(l.Body, " others (their superseded_by names this summary)") {
		t.Fatalf("%d members:\n%s", len(merges[0].Members), l.Body)
	}
	l.ID, l.CreatedAt = "l-abcdef", "2027-01-01T00:00:00Z"
	if data := entry.RenderLearning(l); len(data) > entry.MaxEntryFileBytes {
		t.Fatalf("the summary's file takes %d bytes", len(data))
	} else if back, err := entry.ParseLearning(data, entry.LearningPath(l.ID)); err != nil || back.Body != l.Body {
		t.Fatalf("%+v %v", back, err)
	}
}

// A cluster summarize leaves as it is is said, with why: never a silent
// skip.
func TestSummarizeSaysWhatItSkips(t *testing.T) {
	t.Parallel()
	ls := []entry.Learning{
		{ID: "l-00000a", Category: "pitfall", Tags: []string{"go", "vet"}, Status: "active", Body: "Run go vet."},
		{ID: "l-00000b", Category: "pitfall", Tags: []string{"go", "vet"}, Status: "active", Body: "  "},
	}
	merges, skipped := planMerges(ls)
	if len(merges) != 0 || len(skipped) != 1 || !slices.Equal(skipped[0].Members, []string{"l-00000a", "l-00000b"}) ||
		skipped[0].Reason != "l-00000b has no text" || skipped[0].Category != "pitfall" {
		t.Fatalf("%+v %+v", merges, skipped)
	}
}
