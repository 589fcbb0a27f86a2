package thesaurus

import (
	"slices"
	"strings"
	"testing"
)

// TestRelated: a word of one or two senses finds its synonyms, by any
// inflection; a word of many senses, a word WordNet lacks and a phrase
// find none.
func TestRelated(t *testing.T) {
	for word, want := range map[string]string{
		"physician":  "doctor",
		"physicians": "doctor",
		"automobile": "motorcar",
		"password":   "countersign",
	} {
		if got := Related(word); !slices.Contains(got, want) {
			t.Errorf("Related(%q) = %q, want it to hold %q", word, got, want)
		}
	}
	for _, word := range []string{"find", "ready", "kubernetes", "", "set up"} {
		if got := Related(word); got != nil {
			t.Errorf("Related(%q) = %q, want none", word, got)
		}
	}
}

// TestTableIsSortedAndWhole: the lookup's binary search needs the lines
// sorted, each a word, a tab and its related words; every line is found,
// and a word between two lines or past either end is not.
func TestTableIsSortedAndWhole(t *testing.T) {
	rows := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(rows) < 30000 || !strings.HasSuffix(table, "\n") {
		t.Fatalf("%d rows, or no newline at the end", len(rows))
	}
	prev := ""
	for i, row := range rows {
		word, rel, ok := strings.Cut(row, "\t")
		if !ok || word <= prev || strings.TrimSpace(rel) == "" {
			t.Fatalf("line %d: %q (after %q)", i+1, row, prev)
		}
		prev = word
	}
	for _, row := range rows {
		word, rel, _ := strings.Cut(row, "\t")
		if got := lookUp(word); got != rel {
			t.Errorf("lookUp(%q) = %q, want %q", word, got, rel)
		}
	}
	for _, word := range []string{"zzzzzz", "a", "", "physiciam"} {
		if got := lookUp(word); got != "" {
			t.Errorf("lookUp(%q) = %q, want none", word, got)
		}
	}
}

func TestLemmas(t *testing.T) {
	for word, want := range map[string]string{"doctors": "doctor", "tallies": "tally", "wiped": "wipe", "boxes": "box", "booking": "book"} {
		if got := Lemmas(word); !slices.Contains(got, want) || got[0] != word {
			t.Errorf("Lemmas(%q) = %q, want %q after the word", word, got, want)
		}
	}
}
