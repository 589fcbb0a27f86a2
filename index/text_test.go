package index

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/go-porterstemmer"

	"lore/mdstore/entry"
)

func TestTokens(t *testing.T) {
	got := Tokens("The go-git index.lock isn't HELD by Ümlaut v2.6.1")
	want := []string{"go-git", "go", "git", "index.lock", "index", "lock", "isn", "t", "held", "ümlaut", "v2.6.1", "v2", "v", "2", "6", "1"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokens = %q, want %q", got, want)
	}
}

func TestFuzziness(t *testing.T) {
	for term, want := range map[string]int{"go": 0, "git": 0, "lock": 1, "index": 1, "search": 2, "élan": 1} {
		if got := Fuzziness(term); got != want {
			t.Errorf("Fuzziness(%q) = %d, want %d", term, got, want)
		}
	}
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("filler words here ", 20) + "the zeppelin lands " + strings.Repeat("more filler ", 20)
	s := Snippet(long, []string{"zeppelin"}, 60)
	if !strings.Contains(s, "zeppelin") || !strings.HasPrefix(s, "…") || !strings.HasSuffix(s, "…") {
		t.Errorf("Snippet = %q", s)
	}
	if s := Snippet(long, []string{"zepelin"}, 60); !strings.Contains(s, "zeppelin") {
		t.Errorf("fuzzy snippet = %q", s)
	}
	// An exact match anywhere beats a near one before it.
	nearFirst := "zeppelins " + strings.Repeat("filler words here ", 20) + "the zeppelin lands " + strings.Repeat("more filler ", 20)
	if s := Snippet(nearFirst, []string{"zeppelin"}, 60); !strings.Contains(s, "the zeppelin lands") {
		t.Errorf("exact after near: Snippet = %q", s)
	}
	if s := Snippet("short text", []string{"x"}, 60); s != "short text" {
		t.Errorf("short snippet = %q", s)
	}
	// A match early on shows the beginning; one at the very end is shown
	// whole (search's table narrows a 160-character snippet to 80 so).
	early := "the zeppelin lands " + strings.Repeat("more filler ", 20)
	if s := Snippet(early, []string{"zeppelin"}, 60); !strings.HasPrefix(s, "the zeppelin") {
		t.Errorf("early match: Snippet = %q", s)
	}
	late := strings.Repeat("filler words here ", 20) + "the zeppelin."
	if s := Snippet(late, []string{"zeppelin"}, 40); !strings.HasSuffix(s, "the zeppelin.") {
		t.Errorf("late match: Snippet = %q", s)
	}
}

func FuzzSnippet(f *testing.F) {
	f.Add("ünïcödé text with a match in the middle of it all", "match", 10)
	f.Fuzz(func(t *testing.T, text, term string, width int) {
		width = 1 + width&255
		s := Snippet(text, Tokens(term), width)
		if utf8.ValidString(text) && !utf8.ValidString(s) {
			t.Fatalf("Snippet(%q) = %q: invalid UTF-8", text, s)
		}
		if utf8.RuneCountInString(s) > width+2 {
			t.Fatalf("Snippet is %d runes, width %d", utf8.RuneCountInString(s), width)
		}
	})
}

func TestSuggest(t *testing.T) {
	vocab := func(yield func(string, int) bool) {
		for _, w := range []struct {
			t string
			n int
		}{{"barrel", 3}, {"exports", 2}, {"imports", 5}, {"structure", 1}} {
			if !yield(w.t, w.n) {
				return
			}
		}
	}
	if got := Suggest("barel exprots", vocab); got != "barrel exports" {
		t.Errorf("Suggest = %q", got)
	}
	if got := Suggest("imports", vocab); got != "" {
		t.Errorf("Suggest of a known word = %q", got)
	}
	// Words of another meaning are not typos: not a changed first letter,
	// not more than a third of the word.
	other := func(yield func(string, int) bool) {
		for _, w := range []string{"pr", "format", "s", "out", "booking", "have", "create", "phones", "barrel"} {
			if !yield(w, 1) {
				return
			}
		}
	}
	for _, q := range []string{"the app forgets who I am", "court booking page breaks on phones", "app"} {
		if got := Suggest(q, other); got != "" {
			t.Errorf("Suggest(%q) = %q, want none", q, got)
		}
	}
	if got := Suggest("barel booking phones", other); got != "barrel booking phones" {
		t.Errorf("Suggest of one typo among known words = %q", got)
	}
}

// TestQueryTokensCountAWordOnce: a word repeated in a query is looked for
// once; Tokens keeps every occurrence (it is also the indexing rule).
func TestQueryTokensCountAWordOnce(t *testing.T) {
	if got := QueryTokens("timeout Timeout the TIMEOUT retry"); !slices.Equal(got, []string{"timeout", "retry"}) {
		t.Fatalf("QueryTokens: %q", got)
	}
	if got := Tokens("timeout Timeout"); len(got) != 2 {
		t.Fatalf("Tokens: %q", got)
	}
}

// TestQueryTokensDropQuestionWords (issue 39): a question looks for its
// topic words; one made only of question words looks for them; the words
// of state, time, comparison and "too many" are kept.
func TestQueryTokensDropQuestionWords(t *testing.T) {
	for q, want := range map[string][]string{
		"why does the nightly export email sometimes arrive twice": {"nightly", "export", "email", "arrive", "twice"},
		"how do we know when the API is down":                      {"api", "down"},
		"too many connections after we added more pods":            {"too", "many", "connections", "after", "added", "more", "pods"},
		"what is it":  {"what"},
		"i/o timeout": {"i/o", "i", "o", "timeout"},
	} {
		if got := QueryTokens(q); !slices.Equal(got, want) {
			t.Errorf("QueryTokens(%q) = %q, want %q", q, got, want)
		}
	}
}

// TestJournalStackTraceIsSearched: a pasted error line finds the
// iteration whose failure report's stack trace holds it.
func TestJournalStackTraceIsSearched(t *testing.T) {
	j := &entry.JournalEntry{RunID: "r", Iteration: 1, Outcome: "failed", Failure: &entry.Failure{
		WhatTried: "ran the suite", WhyFailed: "render loop", StackTrace: "Uncaught (in promise) Error: Maximum update depth exceeded"}}
	docs := DocsFromFile(".agent/journal/r/0001-abcdef.md", entry.FileEntries{Journal: j})
	if len(docs) != 1 || !strings.Contains(docs[0].Content, "Maximum update depth exceeded") {
		t.Fatalf("%+v", docs)
	}
}

// TestStem: word forms meet at one stem; short, non-ASCII and unchanged
// terms have none.
func TestStem(t *testing.T) {
	for _, forms := range [][]string{{"deploying", "deployed", "deploys"}, {"retries", "retried"}, {"timeouts", "timeout"}, {"flakiness", "flaky"}} {
		stem := func(w string) string {
			if s := Stem(w); s != "" {
				return s
			}
			return w
		}
		for _, f := range forms[1:] {
			if stem(f) != stem(forms[0]) {
				t.Errorf("%s and %s: stems %q and %q", forms[0], f, stem(forms[0]), stem(f))
			}
		}
	}
	for _, term := range []string{"go", "straße", "v2", "api"} {
		if got := Stem(term); got != "" {
			t.Errorf("Stem(%q) = %q, want none", term, got)
		}
	}
	if got := Stem("timeout"); got != "timeout" {
		t.Errorf("Stem(timeout) = %q", got)
	}
	if got := QueryTokens("deploying deployed"); !slices.Equal(got, []string{"deploying", "deployed"}) {
		t.Errorf("QueryTokens holds stems: %q", got)
	}
}

// Scan skips stemming a word whose first letter or length rules out the
// query word's stem: a Porter stem keeps its word's first letter and is
// never longer. (Checked on 400,000 words of Go's sources, Debian's docs
// and a 100k-entry store; here on words ending in every suffix Porter's
// steps rewrite.)
func TestStemKeepsFirstLetterAndIsNoLonger(t *testing.T) {
	suffixes := []string{"sses", "ies", "ss", "s", "eed", "ed", "ing", "at", "bl", "iz", "y",
		"ational", "tional", "enci", "anci", "izer", "abli", "alli", "entli", "eli", "ousli",
		"ization", "ation", "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti",
		"biliti", "logi", "icate", "ative", "alize", "iciti", "ical", "ful", "ness", "al", "ance",
		"ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism",
		"ate", "iti", "ous", "ive", "ize", "e", "ll"}
	stems := []string{"a", "e", "y", "b", "ab", "hop", "tr", "sensi", "condi", "gener", "rel", "x", "ey", "oy"}
	n := 0
	for _, st := range stems {
		for _, s1 := range suffixes {
			for _, s2 := range append([]string{""}, suffixes...) {
				w := st + s1 + s2
				got := Stem(w)
				if got == "" {
					continue
				}
				n++
				if got[0] != w[0] || len(got) > len(w) {
					t.Errorf("Stem(%q) = %q", w, got)
				}
			}
		}
	}
	if n < 10000 {
		t.Fatalf("only %d words stemmed", n)
	}
}

// TestQueryWordsKeepATopic (issue 39): when every word of a query is
// common, its rarest counts as rare — the query is about it — unless
// more than half the entries hold it; a query with a rare word keeps the
// rule as it was.
func TestQueryWordsKeepATopic(t *testing.T) {
	held := map[string]int{"database": 3000, "connections": 2000, "pods": 40, "the": 9000, "service": 6000, "system": 7000}
	docFreq := func(term string, stem bool) int {
		if stem {
			return 0
		}
		return held[term]
	}
	common := func(ws []QueryWord) map[string]bool {
		out := map[string]bool{}
		for _, w := range ws {
			out[w.Term] = w.Common
		}
		return out
	}
	for _, c := range []struct {
		query string
		want  map[string]bool
	}{
		{"database connections", map[string]bool{"database": true, "connections": false}},
		{"database connections pods", map[string]bool{"database": true, "connections": true, "pods": false}},
		{"service system", map[string]bool{"service": true, "system": true}},
	} {
		if got := common(QueryWords(c.query, 10000, docFreq)); !maps.Equal(got, c.want) {
			t.Errorf("%q: common %v, want %v", c.query, got, c.want)
		}
	}
}

// TestIdentifiersInsideIdentifiers (issue 39): a dotted or slashed
// identifier is found whole, by its words, and by the identifiers inside
// it — customer_id of orders.customer_id, daily_orders.py of a path.
func TestIdentifiersInsideIdentifiers(t *testing.T) {
	doc := Tokens("the join on orders.customer_id in dags/daily_orders.py")
	for _, q := range []string{"customer_id", "orders.customer_id", "daily_orders.py", "daily_orders", "customer"} {
		for _, w := range QueryTokens(q) {
			if !slices.Contains(doc, w) {
				t.Errorf("%q: the entry does not hold %q (it holds %q)", q, w, doc)
			}
		}
	}
}

// TestStemsApart: each family of apartFamilies keeps its own stem, apart
// from a word Porter's algorithm would give it (the collision it is there
// for is real), and keeps Stem's promises (the first letter, no longer
// than the word).
func TestStemsApart(t *testing.T) {
	for _, f := range apartFamilies {
		mate := Stem(f.mate)
		if mate == f.stem {
			t.Errorf("%s: its mate %s has its stem", f.stem, f.mate)
		}
		ws := strings.Fields(f.words)
		if !slices.ContainsFunc(ws, func(w string) bool { return porterstemmer.StemString(w) == mate }) {
			t.Errorf("%s: no word of the family would meet %s (stem %s)", f.stem, f.mate, mate)
		}
		for _, w := range ws {
			got := Stem(w)
			if got != f.stem {
				t.Errorf("Stem(%q) = %q, want %q", w, got, f.stem)
			}
			if got[0] != w[0] || len(got) > len(w) {
				t.Errorf("Stem(%q) = %q: not a prefix-length stem", w, got)
			}
		}
	}
	for _, q := range [][2]string{{"container", "contains"}, {"production", "product"}, {"authorization", "author"}} {
		if Stem(q[0]) == Stem(q[1]) {
			t.Errorf("%s and %s still meet", q[0], q[1])
		}
	}
	for _, q := range [][2]string{{"containers", "container"}, {"deploying", "deployed"}, {"authorized", "authorization"}, {"connection", "connecting"}} {
		if Stem(q[0]) != Stem(q[1]) {
			t.Errorf("%s and %s no longer meet", q[0], q[1])
		}
	}
}
