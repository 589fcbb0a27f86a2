package mdstore

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"lore/internal/fsx"
)

// Summarization (seed 002): past a number of shown learnings, the
// learnings of a category that share at least half their tags (over the
// smaller set; a cluster is every learning linked to another so) are
// merged into a new learning — "Common pattern: {recurring theme}.
// Examples: {bulleted list}", with the union of their tags — and all but
// the newest of them are pruned and superseded by it. A merge whose text
// would be empty or too long is skipped, and a summary is not summarized
// again. One commit lists every merge.

// Merge is one cluster of learnings summarized into a new one.
type Merge struct {
	Category string   `json:"category"`
	Members  []string `json:"members"` // oldest first; the last is kept as it is
	Learning Learning `json:"learning"`
}

// summaryPrefix starts the body of a summary (seed 002's template).
const summaryPrefix = "Common pattern: "

// summaryMaxLen is the longest summary body written; a longer one is a
// sign the cluster is not one theme, and its merge is skipped.
const summaryMaxLen = 2000

// SummarizeLearnings merges the clusters of similar shown learnings (see
// above) as one commit; with dryRun it only says which. res is nil when
// there is nothing to merge.
func (s *Store) SummarizeLearnings(dryRun bool) ([]Merge, *WriteResult, error) {
	entries, _, err := s.Entries()
	if err != nil {
		return nil, nil, err
	}
	merges := planMerges(entries.Learnings)
	if dryRun || len(merges) == 0 {
		return merges, nil, nil
	}
	now := s.now().UTC().Format(time.RFC3339)
	res, err := s.write(func(tx *storeTx) error {
		stored := &storedLearnings{}
		if err := stored.load(tx); err != nil {
			return err
		}
		var body []string
		for i := range merges {
			m := &merges[i]
			id, err := stored.newID(s, tx)
			if err != nil {
				return err
			}
			m.Learning.ID, m.Learning.Path, m.Learning.CreatedAt = id, LearningPath(id), now
			tx.apply(storeEdit{Path: m.Learning.Path, Op: opPut, Content: string(RenderLearning(m.Learning))})
			for _, member := range m.Members[:len(m.Members)-1] {
				tx.apply(storeEdit{Path: LearningPath(member), Op: opFields, Fields: []frontmatterField{
					{"status", "pruned"}, {"status_reason", YAMLQuote("summarized into " + id)}, {"superseded_by", id}}})
			}
			body = append(body, fmt.Sprintf("- %s (%s): %s; kept as it is: %s", id, m.Category,
				strings.Join(m.Members[:len(m.Members)-1], ", "), m.Members[len(m.Members)-1]))
		}
		tx.message(commitMessage(fmt.Sprintf("lore: summarize %d %s", len(merges), plural(len(merges), "cluster of learnings", "clusters of learnings")),
			strings.Join(body, "\n"), "Lore-Kind", "summarize"))
		return nil
	})
	return merges, res, err
}

// planMerges finds the clusters of shown learnings to merge, and their
// merged learnings (without id, path or time).
func planMerges(ls []Learning) []Merge {
	byCategory := map[string][]*Learning{}
	var categories []string
	for i := range ls {
		l := &ls[i]
		if !l.Shown() || len(l.Tags) == 0 || strings.HasPrefix(l.Body, summaryPrefix) {
			continue // a summary is not summarized again: it holds its newest member's text
		}
		if byCategory[l.Category] == nil {
			categories = append(categories, l.Category)
		}
		byCategory[l.Category] = append(byCategory[l.Category], l)
	}
	sort.Strings(categories)
	var out []Merge
	for _, c := range categories {
		group := byCategory[c]
		sort.SliceStable(group, func(i, j int) bool { return compareLearnings(group[i], group[j]) < 0 })
		// Single-linkage clusters: union-find over the pairs that share
		// half the tags of the smaller set.
		parent := make([]int, len(group))
		for i := range parent {
			parent[i] = i
		}
		var find func(int) int
		find = func(i int) int {
			for parent[i] != i {
				parent[i] = parent[parent[i]]
				i = parent[i]
			}
			return i
		}
		for i := range group {
			for j := i + 1; j < len(group); j++ {
				if tagOverlap(group[i].Tags, group[j].Tags) >= 0.5 {
					parent[find(j)] = find(i)
				}
			}
		}
		clusters := map[int][]*Learning{}
		var roots []int
		for i := range group {
			r := find(i)
			if clusters[r] == nil {
				roots = append(roots, r)
			}
			clusters[r] = append(clusters[r], group[i])
		}
		for _, r := range roots {
			if members := clusters[r]; len(members) >= 2 {
				if m, ok := mergeOf(c, members); ok {
					out = append(out, m)
				}
			}
		}
	}
	return out
}

// mergeOf is the merged learning of members (oldest first): the recurring
// theme is the tags more than one of them has, in the order they first
// appear; false when the text would be empty or too long.
func mergeOf(category string, members []*Learning) (Merge, bool) {
	count := map[string]int{}
	var tags []string
	for _, l := range members {
		for _, t := range l.Tags {
			if count[t] == 0 {
				tags = append(tags, t)
			}
			count[t]++
		}
	}
	var theme []string
	for _, t := range tags {
		if count[t] > 1 {
			theme = append(theme, t)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s. Examples:", summaryPrefix, strings.Join(theme, ", "))
	ids := make([]string, len(members))
	for i, l := range members {
		ids[i] = l.ID
		body := strings.Join(strings.Fields(l.Body), " ")
		if body == "" {
			return Merge{}, false
		}
		b.WriteString("\n- " + body)
	}
	text := b.String()
	if len(theme) == 0 || len(text) > summaryMaxLen {
		return Merge{}, false
	}
	return Merge{Category: category, Members: ids, Learning: Learning{
		Category: category, Tags: tags, Status: "active", Body: text,
	}}, true
}

// summarizeEvery is how many iterations pass at least between two
// summarizations that ingest starts (seed 002: once per 10).
const summarizeEvery = 10

// SummarizeDue reports whether ingest should summarize now: more shown
// learnings than learnings.summarize_threshold, and at least
// summarizeEvery iterations recorded since the last one ingest made
// (NoteSummarized; kept in the state directory, per clone).
func (s *Store) SummarizeDue() (bool, error) {
	entries, _, err := s.Entries()
	if err != nil {
		return false, err
	}
	shown := 0
	for i := range entries.Learnings {
		if entries.Learnings[i].Shown() {
			shown++
		}
	}
	if shown <= s.config.SummarizeThreshold {
		return false, nil
	}
	last := -summarizeEvery
	if data, err := os.ReadFile(s.summarizedFile()); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			last = n
		}
	}
	return len(entries.Journal)-last >= summarizeEvery, nil
}

// NoteSummarized records, for SummarizeDue, that ingest summarized the
// learnings now (a summarization by hand does not count).
func (s *Store) NoteSummarized() {
	if s.StateDir() == "" {
		return
	}
	if entries, _, err := s.Entries(); err == nil {
		fsx.WriteFile(s.summarizedFile(), []byte(strconv.Itoa(len(entries.Journal))+"\n"), fsx.Unsynced) // a hint: lost, the next ingest summarizes again
	}
}

func (s *Store) summarizedFile() string { return filepath.Join(s.StateDir(), "summarized") }
