package lifecycle

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"lore/internal/fsx"
	"lore/internal/words"
	"lore/mdstore"
	"lore/mdstore/catalog"
	"lore/mdstore/entry"
	"lore/mdstore/entry/yamlfm"
)

// Summarization (seed 002): past a number of shown learnings, the
// learnings of a category that share at least half their tags (over the
// smaller set; a cluster is every learning linked to another so) are
// merged into a new learning — "Common pattern: {recurring theme}.
// Examples: {bulleted list}", with the union of their tags — and all but
// the newest of them are pruned and superseded by it. A cluster whose
// examples would not all fit in summaryMaxLen gets its recurring words
// too, its most representative examples (largeSummary) and the rest by
// id. A cluster with no shared tag or a member with no text is skipped,
// and said so (SummaryPlan.Skipped); a summary is not summarized again.
// One commit lists every merge.

// Merge is one cluster of learnings summarized into a new one.
type Merge struct {
	Category string         `json:"category"`
	Members  []string       `json:"members"` // oldest first; the last is kept as it is
	Learning entry.Learning `json:"learning"`
}

// summaryPrefix starts the body of a summary (seed 002's template).
const summaryPrefix = "Common pattern: "

// summaryMaxLen is the longest summary body written: a cluster whose
// examples would not all fit gets its most representative ones and the
// rest by id.
const summaryMaxLen = 2000

// SummaryPlan is the clusters of similar shown learnings a summary
// merges, each with its merged learning (its id, path and time given when
// applied), and the clusters it leaves as they are, and why.
type SummaryPlan struct {
	Merges  []Merge
	Skipped []SkippedCluster
}

// SkippedCluster is a cluster of similar learnings a summary does not
// merge, and why.
type SkippedCluster struct {
	Category string   `json:"category"`
	Members  []string `json:"members"` // oldest first
	Reason   string   `json:"reason"`
}

// PlanSummary finds the clusters of similar shown learnings (see above);
// it changes nothing.
func PlanSummary(s *mdstore.Store) (*SummaryPlan, error) {
	// Only the shown learnings with tags are decoded: the heads say which.
	cat, _, err := s.Catalog()
	if err != nil {
		return nil, err
	}
	var at []int
	cat.Heads(entry.KindLearning, func(i int, h *catalog.Head) {
		if h.Shown() && len(h.Tags) > 0 {
			at = append(at, i)
		}
	})
	merges, skipped := planMerges(cat.Learnings(at))
	return &SummaryPlan{Merges: merges, Skipped: skipped}, nil
}

// Apply writes each merge's learning, prunes and supersedes its members
// but the newest, and gives the merged learnings their ids, as one
// commit; the result is nil when there is nothing to merge.
func (plan *SummaryPlan) Apply(s *mdstore.Store) (*mdstore.WriteResult, error) {
	merges := plan.Merges
	if len(merges) == 0 {
		return nil, nil
	}
	now := s.Now().UTC().Format(time.RFC3339)
	return s.Write(func(tx *mdstore.Tx) error {
		stored, err := tx.Learnings()
		if err != nil {
			return err
		}
		var body []string
		for i := range merges {
			m := &merges[i]
			id, err := stored.NewID()
			if err != nil {
				return err
			}
			m.Learning.ID, m.Learning.Path, m.Learning.CreatedAt = id, entry.LearningPath(id), now
			tx.Apply(mdstore.Edit{Path: m.Learning.Path, Op: mdstore.OpPut, Content: string(entry.RenderLearning(m.Learning))})
			for _, member := range m.Members[:len(m.Members)-1] {
				tx.Apply(mdstore.Edit{Path: entry.LearningPath(member), Op: mdstore.OpFields, Fields: []entry.FrontmatterField{
					{Key: "status", Value: "pruned"}, {Key: "status_reason", Value: yamlfm.Quote("summarized into " + id)}, {Key: "superseded_by", Value: id}}})
			}
			body = append(body, fmt.Sprintf("- %s (%s): %s; kept as it is: %s", id, m.Category,
				strings.Join(m.Members[:len(m.Members)-1], ", "), m.Members[len(m.Members)-1]))
		}
		tx.SetMessage(mdstore.CommitMessage(fmt.Sprintf("lore: summarize %d %s", len(merges), words.Plural(len(merges), "cluster of learnings", "clusters of learnings")),
			strings.Join(body, "\n"), "Lore-Kind", "summarize"))
		return nil
	})
}

// planMerges finds the clusters of shown learnings to merge, and their
// merged learnings (without id, path or time), and those it skips.
func planMerges(ls []entry.Learning) ([]Merge, []SkippedCluster) {
	byCategory := map[string][]*entry.Learning{}
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
	var skipped []SkippedCluster
	for _, c := range categories {
		group := byCategory[c]
		sort.SliceStable(group, func(i, j int) bool { return entry.CompareLearnings(group[i], group[j]) < 0 })
		// Single-linkage clusters: union-find over the pairs that share
		// half the tags of the smaller set.
		parent := make([]int, len(group))
		for i := range parent {
			parent[i] = i
		}
		find := func(i int) int {
			for parent[i] != i {
				parent[i] = parent[parent[i]]
				i = parent[i]
			}
			return i
		}
		linkSimilar(group, func(i, j int) { parent[find(j)] = find(i) })
		clusters := map[int][]*entry.Learning{}
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
				m, why := mergeOf(c, members)
				if why != "" {
					skipped = append(skipped, SkippedCluster{Category: c, Members: idsOf(members), Reason: why})
					continue
				}
				out = append(out, m)
			}
		}
	}
	return out, skipped
}

// idsOf is the ids of ls, in order.
func idsOf(ls []*entry.Learning) []string {
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return ids
}

// linkSimilar calls link(i, j) for enough of the pairs of group whose tags
// overlap by half the smaller set (tagOverlap ≥ 0.5) that the pairs
// linked have the same connected components as all of them — and never
// for another pair — without comparing every pair: 25,000 learnings took
// 31 s so. A pair whose smaller side has one or two tags passes when they
// share a tag, so every holder of a tag is linked to its first holder with
// at most two; a pair of larger sides must share two tags, so only the
// learnings filed under the same pair of tags are looked at.
func linkSimilar(group []*entry.Learning, link func(i, j int)) {
	sets := make([][]string, len(group))
	byTag := map[string][]int{}
	var tags []string
	for i, l := range group {
		seen := map[string]bool{}
		for _, t := range l.Tags {
			if t = strings.ToLower(t); !seen[t] {
				seen[t] = true
				sets[i] = append(sets[i], t)
				if byTag[t] == nil {
					tags = append(tags, t)
				}
				byTag[t] = append(byTag[t], i)
			}
		}
	}
	for _, t := range tags {
		members := byTag[t]
		small := slices.IndexFunc(members, func(i int) bool { return len(sets[i]) <= 2 })
		if small < 0 {
			continue
		}
		for _, m := range members {
			if m != members[small] {
				link(members[small], m)
			}
		}
	}
	byPair := map[[2]string][]int{}
	var pairs [][2]string
	for i, set := range sets {
		if len(set) < 3 {
			continue
		}
		sorted := slices.Sorted(slices.Values(set))
		for a := range sorted {
			for b := a + 1; b < len(sorted); b++ {
				key := [2]string{sorted[a], sorted[b]}
				if byPair[key] == nil {
					pairs = append(pairs, key)
				}
				byPair[key] = append(byPair[key], i)
			}
		}
	}
	// Sharing two tags passes when the smaller side has at most four: every
	// holder of the pair is linked to its first holder with at most four;
	// only two sides of five tags or more are compared.
	for _, key := range pairs {
		bucket := byPair[key]
		if small := slices.IndexFunc(bucket, func(i int) bool { return len(sets[i]) <= 4 }); small >= 0 {
			for _, m := range bucket {
				if m != bucket[small] {
					link(bucket[small], m)
				}
			}
		}
		for x := range bucket {
			for y := x + 1; y < len(bucket); y++ {
				if i, j := bucket[x], bucket[y]; len(sets[i]) > 4 && len(sets[j]) > 4 && entry.TagOverlap(group[i].Tags, group[j].Tags) >= 0.5 {
					link(i, j)
				}
			}
		}
	}
}

// mergeOf is the merged learning of members (oldest first): the recurring
// theme is the tags more than one of them has, in the order they first
// appear, then each one's text; a cluster whose text would be longer than
// summaryMaxLen is summarized by largeSummary. The reason it is skipped
// instead, "" when it is not: no shared tag, or a member with no text.
func mergeOf(category string, members []*entry.Learning) (Merge, string) {
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
	if len(theme) == 0 {
		return Merge{}, "no tag more than one of them has"
	}
	bodies := make([]string, len(members))
	for i, l := range members {
		bodies[i] = strings.Join(strings.Fields(l.Body), " ")
		if bodies[i] == "" {
			return Merge{}, l.ID + " has no text"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s. Examples:", summaryPrefix, strings.Join(theme, ", "))
	for _, body := range bodies {
		b.WriteString("\n- " + body)
	}
	text := b.String()
	if len(text) > summaryMaxLen {
		text = largeSummary(theme, members, bodies)
		tags = summaryTags(theme, tags)
	}
	return Merge{Category: category, Members: idsOf(members), Learning: entry.Learning{
		Category: category, Tags: tags, Status: "active", Body: text,
	}}, ""
}

// summarizeEvery is how many iterations pass at least between two
// summarizations that ingest starts (seed 002: once per 10).
const summarizeEvery = 10

// SummarizeDue reports whether ingest should summarize now: more shown
// learnings than learnings.summarize_threshold (shown, as IngestResult
// counted them; -1 for unknown is never due), and at least summarizeEvery
// iterations recorded (NoteIteration) since the last summarization ingest
// made (NoteSummarized). It reads one small file in the state directory:
// ingest asks it every iteration.
func SummarizeDue(s *mdstore.Store, shown int) bool {
	return shown > s.Config().SummarizeThreshold && iterationsSinceSummary(s) >= summarizeEvery
}

// NoteIteration counts an iteration ingest recorded, for SummarizeDue.
func NoteIteration(s *mdstore.Store) {
	writeSummaryCount(s, min(iterationsSinceSummary(s), summarizeEvery)+1)
}

// NoteSummarized records, for SummarizeDue, that ingest summarized the
// learnings now (a summarization by hand does not count).
func NoteSummarized(s *mdstore.Store) { writeSummaryCount(s, 0) }

// iterationsSinceSummary is what the state directory counts; with no
// count (a new clone, never summarized), as many as make it due.
func iterationsSinceSummary(s *mdstore.Store) int {
	if data, err := os.ReadFile(summarizedFile(s)); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
			return n
		}
	}
	return summarizeEvery
}

// writeSummaryCount records n; a count lost only makes the next
// summarization come sooner or later.
func writeSummaryCount(s *mdstore.Store, n int) {
	if s.StateDir() != "" {
		fsx.WriteFile(summarizedFile(s), []byte(strconv.Itoa(n)+"\n"), fsx.Unsynced)
	}
}

func summarizedFile(s *mdstore.Store) string { return filepath.Join(s.StateDir(), "summarized") }
