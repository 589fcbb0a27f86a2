package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLabelledSetsNameTheirEntries reads the labelled sets as
// benchRecall does: every query's kind is known and every relevant id is
// an entry of its store.
func TestLabelledSetsNameTheirEntries(t *testing.T) {
	for _, dir := range []string{"recall", "recall-pipeline", "recall-questions", "recall-paraphrase"} {
		queries, err := readQueries(filepath.Join(dir, "queries.json"))
		if err != nil {
			t.Fatal(err)
		}
		entries, err := readEntries(filepath.Join(dir, "store"))
		if err != nil {
			t.Fatal(err)
		}
		known := map[string]bool{}
		for _, e := range entries {
			known[e.id] = true
		}
		for _, q := range queries {
			for _, id := range q.Relevant {
				if !known[id] {
					t.Errorf("%s: query %q: relevant entry %s is not in the store", dir, q.Query, id)
				}
			}
		}
	}
}

// TestRecallTableHasEveryEngine checks that the table has a column group
// for each engine and grep, and rows only for the kinds the queries have.
func TestRecallTableHasEveryEngine(t *testing.T) {
	q := recallQuery{Query: "why twice", Kind: "question", Relevant: []string{"a"}}
	r := queryResult{Query: q, Ranked: map[string][]string{"index": {"a"}, "scan": {"b", "a"}, "grep": nil}}
	r.score()
	table := recallTable("test", []queryResult{r}, []string{"index", "scan"}, false)
	for _, want := range []string{"| index R@1 |", "| scan R@1 |", "| grep R@1 |", "| question | 1 | 1.00 | 1.00 | 1.00 | 1.00 | 0.00 | 1.00 | 1.00 | 0.50 | 0.00 | 0.00 | 0.00 | 0.00 |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	for _, absent := range []string{"| exact |", "prime shown", "target"} {
		if strings.Contains(table, absent) {
			t.Errorf("table has %q:\n%s", absent, table)
		}
	}
}
