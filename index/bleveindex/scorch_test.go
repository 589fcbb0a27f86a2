package bleveindex

import (
	"testing"
	"time"

	"lore/index"
	"lore/index/indextest"
)

func TestScorchConformance(t *testing.T) {
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
// text, counted: what a query looks for is what was indexed.
func TestTextFieldTermsAreQueryTokens(t *testing.T) {
	for _, text := range []string{
		"",
		"The cache is warm; the CACHE is cold.",
		"Straße and STRASSE, İstanbul and istanbul, ΣΊΣΥΦΟΣ",
		"a-b_c 42x 42 x42 — don't",
		"日本語のテキスト and ascii",
	} {
		f := &field{name: fieldContent, value: text, options: textOptions}
		f.Analyze()
		want := map[string]int{}
		tokens := index.Tokens(text)
		for _, tok := range tokens {
			want[tok]++
		}
		if f.AnalyzedLength() != len(tokens) || len(f.AnalyzedTokenFrequencies()) != len(want) {
			t.Fatalf("%q: %d tokens in %d terms, want %d in %d", text, f.AnalyzedLength(), len(f.AnalyzedTokenFrequencies()), len(tokens), len(want))
		}
		for term, tf := range f.AnalyzedTokenFrequencies() {
			if string(tf.Term) != term || tf.Frequency() != want[term] {
				t.Errorf("%q: term %q (%q) x%d, want x%d", text, term, tf.Term, tf.Frequency(), want[term])
			}
		}
	}
	k := &field{name: fieldTag, value: "Mixed-Case", options: keywordOptions, keyword: true}
	k.Analyze()
	if tf := k.AnalyzedTokenFrequencies()["Mixed-Case"]; k.AnalyzedLength() != 1 || tf == nil || tf.Frequency() != 1 {
		t.Fatalf("keyword: %v", k.AnalyzedTokenFrequencies())
	}
}
