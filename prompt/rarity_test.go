package prompt

import (
	"fmt"
	"strings"
	"testing"

	"lore/mdstore/config"
	"lore/mdstore/entry"
)

// TestCommonTagsWeighLess: in a store where most knowledge entries carry
// the generic tags task, ui and feature, a title holding those words and
// "embed" ranks the one entry about embedding first (issue 37); in a
// small store every tag found in the title still adds seed 000's 2.
func TestCommonTagsWeighLess(t *testing.T) {
	var ks []entry.Knowledge
	for i := range 40 {
		slug := fmt.Sprintf("generic-%02d", i)
		ks = append(ks, entry.Knowledge{Slug: slug, Title: fmt.Sprintf("Generic note %d", i), Tags: []string{"task", "ui", "feature"},
			Body: "Something about screens.", CreatedAt: fmt.Sprintf("2026-02-01T00:%02d:00Z", i), Path: entry.KnowledgePath(slug)})
	}
	ks = append(ks, entry.Knowledge{Slug: "embed-prompt", Title: "How the embed prompt is built", Tags: []string{"embed", "prompt"},
		Body: "The template lives in prompt/embed.tmpl.", CreatedAt: "2026-01-01T00:00:00Z", Path: entry.KnowledgePath("embed-prompt")})
	task := Task{Title: "Embed the prompt: a ui task of the feature"}
	first := func(ks []entry.Knowledge) string {
		ctx := Prime(Input{Task: task, Knowledge: ks}, Options{Budgets: config.DefaultBudgets()})
		for _, s := range ctx.Sections {
			if s.Name == SectionKnowledge {
				return s.Entries[0]
			}
		}
		return ""
	}
	if got := first(ks); got != "knowledge:embed-prompt" {
		t.Errorf("the entry the title is about is not first: %s", got)
	}
	// Seed 000's rule stands for rare tags: two tags (4) beat one (2).
	small := []entry.Knowledge{ks[0], ks[40]}
	small[1].Tags = []string{"embed"}
	if got := first(small); got != "knowledge:generic-00" {
		t.Errorf("in a small store, three tags found in the title do not beat one: %s", got)
	}
	w := keywords{in: map[string]keywordSets{"ui": inText}}.weighTextTags(100, func(fn func([]string)) {
		for i := range 100 {
			fn([]string{strings.Repeat("x", i%2), "UI", "ui"})
		}
	})
	if got := w.of("ui", 2); got >= 1 || got <= 0 {
		t.Errorf("a tag on every entry weighs %v, want between 0 and 1", got)
	}
}

// TestCommonLearningTagsWeighLess: learnings are ranked by their tags
// among the task's keywords too; two tags that most learnings carry
// (api, test) no longer outrank one rare tag the title names.
func TestCommonLearningTagsWeighLess(t *testing.T) {
	var ls []entry.Learning
	for i := range 40 {
		id := fmt.Sprintf("l-%06x", i)
		ls = append(ls, entry.Learning{ID: id, Category: "other", Tags: []string{"api", "test"}, Body: fmt.Sprintf("Generic lesson %d.", i),
			CreatedAt: fmt.Sprintf("2026-02-01T00:%02d:00Z", i), Status: "active", Path: entry.LearningPath(id)})
	}
	ls = append(ls, entry.Learning{ID: "l-0000ff", Category: "pitfall", Tags: []string{"pagination"}, Body: "The cursor must be opaque.",
		CreatedAt: "2026-01-01T00:00:00Z", Status: "active", Path: entry.LearningPath("l-0000ff")})
	ctx := Prime(Input{Task: Task{Title: "Fix pagination in the api test"}, Learnings: ls}, Options{Budgets: config.DefaultBudgets()})
	for _, s := range ctx.Sections {
		if s.Name == SectionLearnings {
			if s.Entries[0] != "learning:l-0000ff" {
				t.Errorf("the learning the title is about is not first: %v", s.Entries)
			}
			return
		}
	}
	t.Fatal("no learnings section")
}
