package index_test

import (
	"strings"
	"testing"

	"lore/index"
	"lore/index/indextest"
	"lore/mdstore/entry"
)

func TestScanConformance(t *testing.T) {
	indextest.Run(t, func(t *testing.T) index.Index { return index.NewScan() })
}

// MayMatch holds for every entry a search can find, and every entry that
// holds a query word: the bleve index makes the changed entries for which
// it holds searchable before it answers, and indexes the others after, so
// it must never rule out a hit, nor an entry that weighs a word.
func FuzzMayMatchCoversEveryHit(f *testing.F) {
	f.Add("Gondola lifts", "cable,GONDOLA", "The gondlas run all winter.", "mem-1-abcd", "gondola")
	f.Add("", "", "Straße und STRASSE", "", "strasse")
	f.Add("Ünïcode", "ß", "ΣΊΣΥΦΟΣ", "x", "σίσυφος")
	f.Add("a", "", "", "mem-1737390000-a1b2", "mem-1737390000-a1b2")
	f.Add("Release", "", "tagging builds", "", "relaese tagg")
	f.Add("On call", "", "The doctors write discharge letters.", "", "physician")
	f.Fuzz(func(t *testing.T, title, tags, content, entryID, query string) {
		d := index.Doc{ID: "d", Kind: "knowledge", Title: title, Tags: strings.Split(tags, ","), Content: content, EntryID: entryID}
		q := index.Query{Text: query}
		res, err := index.NewScan(d).Search(q)
		if err != nil {
			t.Fatal(err)
		}
		if res.Total > 0 && !index.MayMatch(d, q, index.QueryTerms(q.Text)) {
			t.Fatalf("scan finds %+v for %q, MayMatch says it cannot", d, query)
		}
	})
}

func TestMayMatch(t *testing.T) {
	d := index.Doc{ID: "d", Kind: "learning", Type: "pitfall", Title: "Flaky tests", Tags: []string{"ci"}, Content: "Retry the Gondola job.", EntryID: "l-abc123"}
	for _, c := range []struct {
		q    index.Query
		want bool
	}{
		{index.Query{Text: "gondola"}, true},
		{index.Query{Text: "gondla"}, true},          // one edit
		{index.Query{Text: "GONDOLA retries"}, true}, // any word
		{index.Query{Text: "flaky"}, true},           // title
		{index.Query{Text: "ci"}, true},              // tag
		{index.Query{Text: "l-abc123"}, true},        // its id
		{index.Query{Text: "zeppelin"}, false},       // no word
		{index.Query{Text: "gandalf"}, false},        // two edits away, fuzziness 2 but letters differ
		{index.Query{Text: ""}, true},                // no words: every entry that passes the filters
		{index.Query{Text: "retrying"}, true},        // by its stem
		// Filtered out, it still counts among the entries holding the
		// word, which weighs the word in the hits' scores.
		{index.Query{Text: "gondola", Kinds: []entry.Kind{entry.KindMemory}}, true},
		{index.Query{Text: "zeppelin", Kinds: []entry.Kind{entry.KindMemory}}, false},
		{index.Query{Text: "", Kinds: []entry.Kind{entry.KindMemory}}, false},
		{index.Query{Text: "gondola", Categories: []string{"Pitfall"}}, true},
	} {
		if got := index.MayMatch(d, c.q, index.Tokens(c.q.Text)); got != c.want {
			t.Errorf("MayMatch(%+v) = %v, want %v", c.q, got, c.want)
		}
	}
}
