package bleveindex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lore/index"
	"lore/mdstore/entry"
)

// The index and the scan follow one scoring rule (index.Scorer): on the
// same documents they answer every query alike — the same hits, in the
// same order, with the same scores. Checked on the labelled stores of go
// run ./bench recall with their queries as people and agents ask them,
// under the query shapes lore asks (a search's best 10; prime's strict
// best of each kind; filters), on an index built whole and on one that
// has lived: documents replaced and removed, segments merged or not.

// labelledSet is a labelled store's documents and its queries' texts.
func labelledSet(t *testing.T, dir string) ([]index.Doc, []string) {
	t.Helper()
	docs, _, err := index.LoadDocs(filepath.Join("..", "..", dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", dir, "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []struct{ Query string }
	if err := json.Unmarshal(raw, &qs); err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, q := range qs {
		texts = append(texts, q.Query)
	}
	if len(docs) < 100 || len(texts) < 100 {
		t.Fatalf("%s: %d documents, %d queries", dir, len(docs), len(texts))
	}
	return docs, texts
}

// shapes are the queries lore asks of a text.
func shapes(text string) map[string]index.Query {
	return map[string]index.Query{
		"search":    {Text: text, Limit: 10},
		"relevance": {Text: text, Limit: 5, LimitPerKind: true, Bare: true, Strict: true},
		"learnings": {Text: text, Kinds: []entry.Kind{entry.KindLearning, entry.KindMemory}, Statuses: []string{"active", "superseded"}, Limit: 5},
	}
}

// answer is how a result reads for comparison: each hit's id and score.
func answer(res index.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d hits", res.Total)
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "\n  %s %s %.12g", h.Kind, h.ID, h.Score)
	}
	return b.String()
}

func TestIndexAndScanAnswerAlike(t *testing.T) {
	t.Parallel()
	for _, set := range []string{"bench/recall", "bench/recall-pipeline", "bench/recall-questions", "bench/recall-paraphrase"} {
		t.Run(filepath.Base(set), func(t *testing.T) {
			t.Parallel()
			docs, texts := labelledSet(t, set)
			compare(t, scorchOf(t, docs...), index.NewScan(docs...), texts)
		})
	}
}

// TestALivedIndexAnswersAsABuiltOne: an index whose documents were
// replaced and removed — their postings still in its segments until a
// merge — answers as the scan of what it holds.
func TestALivedIndexAnswersAsABuiltOne(t *testing.T) {
	t.Parallel()
	docs, texts := labelledSet(t, "bench/recall")
	// Every document, then a third of them replaced one batch at a time
	// with other words, and a tenth removed.
	x := scorchOf(t, docs...)
	scan := index.NewScan(docs...)
	for i := 0; i < len(docs); i += 3 {
		d := docs[i]
		d.Content = strings.ReplaceAll(d.Content, "e", "é") + "\nrewritten by hand"
		if err := x.Index(d); err != nil {
			t.Fatal(err)
		}
		scan.Index(d)
	}
	var gone []string
	for i := 1; i < len(docs); i += 10 {
		gone = append(gone, docs[i].ID)
	}
	if err := x.Remove(gone...); err != nil {
		t.Fatal(err)
	}
	scan.Remove(gone...)
	compare(t, x, scan, append(texts[:60:60], "rewritten", "rewriten by hand"))
}

// scorchOf is a new index holding docs, closed when the test ends.
func scorchOf(t *testing.T, docs ...index.Doc) *Scorch {
	t.Helper()
	x, err := openScorch(t.TempDir(), true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if err := x.Index(docs...); err != nil {
		t.Fatal(err)
	}
	return x
}

func compare(t *testing.T, x *Scorch, scan *index.Scan, texts []string) {
	t.Helper()
	differ := 0
	for _, text := range texts {
		for shape, q := range shapes(text) {
			got, err := x.Search(q)
			if err != nil {
				t.Fatalf("%q: %v", text, err)
			}
			want, err := scan.Search(q)
			if err != nil {
				t.Fatal(err)
			}
			if g, w := answer(got), answer(want); g != w {
				differ++
				if differ <= 5 {
					t.Errorf("%s %q:\nindex %s\nscan  %s", shape, text, g, w)
				}
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d of %d queries answered differently", differ, 3*len(texts))
	}
	if !slices.ContainsFunc(texts, func(s string) bool { return s != "" }) {
		t.Fatal("no queries")
	}
}
