package bleveindex

import (
	"fmt"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/index/scorch"

	"lore/index"
	"lore/index/indextest"
	"lore/mdstore/entry"
)

func TestScorchConformance(t *testing.T) {
	t.Parallel()
	indextest.Run(t, func(t *testing.T) index.Index {
		x, err := openScorch(t.TempDir(), true, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { x.Close() })
		return x
	})
}

// A text field's terms are the words index.Tokens makes of the same
// text, counted, and a stems field's are index.Stems: what a query looks
// for is what was indexed.
func TestTextFieldTermsAreQueryTokens(t *testing.T) {
	t.Parallel()
	check := func(what, text string, f *field, tokens []string) {
		t.Helper()
		want := map[string]int{}
		for _, tok := range tokens {
			want[tok]++
		}
		if f.AnalyzedLength() != len(tokens) || len(f.AnalyzedTokenFrequencies()) != len(want) {
			t.Fatalf("%s of %q: %d tokens in %d terms, want %d in %d", what, text, f.AnalyzedLength(), len(f.AnalyzedTokenFrequencies()), len(tokens), len(want))
		}
		for term, tf := range f.AnalyzedTokenFrequencies() {
			if string(tf.Term) != term || tf.Frequency() != want[term] {
				t.Errorf("%s of %q: term %q (%q) x%d, want x%d", what, text, term, tf.Term, tf.Frequency(), want[term])
			}
		}
	}
	for _, text := range []string{
		"",
		"The cache is warm; the CACHE is cold.",
		"Straße and STRASSE, İstanbul and istanbul, ΣΊΣΥΦΟΣ",
		"a-b_c 42x 42 x42 — don't",
		"日本語のテキスト and ascii",
		"Deploying deployed DEPLOY deploys; flaky flakiness, the deploy_flaky_cache deployed",
	} {
		f := &field{name: fieldContent, value: text, options: textOptions}
		stems := &field{name: fieldStems, value: text, options: textOptions, stemsOf: f}
		stems.Analyze() // its words first
		f.Analyze()     // and not again
		check("words", text, f, index.Tokens(text))
		check("stems", text, stems, index.Stems(text))
	}
	k := &field{name: fieldTag, value: "Mixed-Case", options: keywordOptions, keyword: true}
	k.Analyze()
	if tf := k.AnalyzedTokenFrequencies()["Mixed-Case"]; k.AnalyzedLength() != 1 || tf == nil || tf.Frequency() != 1 {
		t.Fatalf("keyword: %v", k.AnalyzedTokenFrequencies())
	}
}

// Updates one after another leave few segments: the small ones are
// merged, the large one is not rewritten.
func TestUpdatesKeepFewSegments(t *testing.T) {
	t.Parallel()
	x, err := openScorch(t.TempDir(), true, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	s := x.s.(*scorch.Scorch)
	segments := func() uint64 { n, _ := s.StatsMap()["num_root_filesegments"].(uint64); return n }
	var base []index.Doc
	for i := range 400 {
		base = append(base, index.Doc{ID: fmt.Sprintf("k/%d", i), Kind: entry.KindKnowledge, EntryID: fmt.Sprint(i), Content: "base entry"})
	}
	if err := x.apply(base, nil); err != nil {
		t.Fatal(err)
	}
	for round := range 30 {
		doc := index.Doc{ID: fmt.Sprintf("l/%d", round), Kind: entry.KindLearning, EntryID: fmt.Sprint(round), Content: "a later learning"}
		if err := x.apply([]index.Doc{doc}, nil); err != nil {
			t.Fatal(err)
		}
		if err := x.compact(); err != nil {
			t.Fatal(err)
		}
		if n := segments(); n > maxSegments {
			t.Fatalf("after update %d: %d segments, want at most %d", round, n, maxSegments)
		}
	}
	if n, err := x.DocCount(); err != nil || n != 430 {
		t.Fatalf("%d documents, %v", n, err)
	}
}
