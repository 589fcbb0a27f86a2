package bleveindex

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/mdstore/entry"
)

// A rebuilt generation (the builder: segments made on every core, merged
// into one, wrapped by scorch's Builder) answers every query with the
// same hits, scores and totals as an index that scorch itself built from
// the same documents, and holds as many documents.
func TestBuilderIndexesAsScorchDoes(t *testing.T) {
	defer func(n int) { segmentDocs = n }(segmentDocs)
	segmentDocs = 7 // 340 documents: 49 segments to merge
	r := newTestRepo(t)
	r.writeDamageStore()
	r.Write(".agent/learnings/l-0a0b0c.md", "---\nid: l-0a0b0c\ncategory: pitfall\ntags: [kestrel, birds]\ncreated_at: \"2026-01-02T03:04:05Z\"\n---\n\nA kestrel hovers; a walrus does not.\n")
	ix := r.index(Options{})
	rep, err := ix.Rebuild("asked for")
	if err != nil {
		t.Fatal(err)
	}
	gen, dir := liveGen(t, ix)
	if leftovers, _ := os.ReadDir(ix.dir.Generation(gen) + ".build"); leftovers != nil {
		t.Errorf("the build left %d files behind", len(leftovers))
	}
	built, err := openScorch(dir, false, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer built.Close()

	docs, _, err := index.LoadDocs(r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Indexed != len(docs) {
		t.Errorf("rebuild indexed %d documents, the store has %d", rep.Indexed, len(docs))
	}
	ref, err := openScorch(t.TempDir(), true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if err := ref.Index(docs...); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Scorch{built, ref} {
		if n, err := x.DocCount(); err != nil || n != uint64(len(docs)) {
			t.Fatalf("%s holds %d documents (%v), want %d", x.path, n, err, len(docs))
		}
	}

	var queries []index.Query
	for _, topic := range damageTopics {
		queries = append(queries, index.Query{Text: topic}, index.Query{Text: topic[:len(topic)-1] + "x"}, index.Query{Text: "plain " + topic, Limit: 3, LimitPerKind: true, Bare: true})
	}
	queries = append(queries,
		index.Query{Text: "misc", Kinds: []entry.Kind{entry.KindMemory}},
		index.Query{Text: "kestrel walrus", Kinds: []entry.Kind{entry.KindLearning}, Categories: []string{"pitfall"}},
		index.Query{Text: "entry 7"},
		index.Query{Tags: []string{"birds"}},
		index.Query{},
	)
	for _, q := range queries {
		got, err := built.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Search(q)
		if err != nil {
			t.Fatal(err)
		}
		g, w := scored(got), scored(want)
		if q.Limit > 0 { // which of the hits tied at the limit are kept depends on the documents' order
			g, w = scoresOf(g), scoresOf(w)
		}
		if got.Total != want.Total || !slices.Equal(g, w) {
			t.Errorf("%+v:\nbuilt %d: %v\nscorch %d: %v", q, got.Total, g, want.Total, w)
		}
	}
}

// scored lists a result's hits as id and score, in the order of their
// scores (ties, which the two indexes may order differently, by id).
func scored(res index.Result) []string {
	var out []string
	for _, h := range res.Hits {
		out = append(out, fmt.Sprintf("%.9f %s", math.Round(h.Score*1e9)/1e9, h.ID))
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := strings.Compare(b[:strings.IndexByte(b, ' ')], a[:strings.IndexByte(a, ' ')]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

func scoresOf(hits []string) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i], _, _ = strings.Cut(h, " ")
	}
	return out
}

// A store without entries builds an empty index that searches.
func TestBuilderOfNoDocuments(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	ix := r.index(Options{})
	if rep, err := ix.Rebuild("asked for"); err != nil || rep.Indexed != 0 {
		t.Fatalf("rebuild: %+v, %v", rep, err)
	}
	res, _, err := ix.Search(index.Query{Text: "anything"})
	if err != nil || res.Total != 0 {
		t.Fatalf("search: %+v, %v", res, err)
	}
}
