package index

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lore/internal/words"
)

// The needles a document is looked at for (matcher.mayHold) never make a
// search miss anything: a Scan answers the same with them as reading
// every document.
func FuzzScanNeedlesMissNothing(f *testing.F) {
	f.Add("Flaky tests", "ci,CopyFiles", "Retry the gondola job; it copies everything.", "l-abc123", "copy flakiness")
	f.Add("Deploy", "", "DEPLOYING the BackoffJitterFn", "", "deployed backoff jitter")
	f.Add("", "", "The temperature is 3 \u212a over", "", "k kelvin")
	f.Add("\u0130stanbul", "STRASSE", "Stra\u00dfe", "", "istanbul stra\u00dfe i\u0307stanbul")
	f.Add("Gondla", "", "", "mem-1-abcd", "gondola mem-1-abcd")
	f.Add("usability", "", "nobility possibility", "", "usable noble possible")
	f.Fuzz(func(t *testing.T, title, tags, content, entryID, query string) {
		docs := []Doc{
			{ID: "d1", Kind: "knowledge", Title: title, Tags: strings.Split(tags, ","), Content: content, EntryID: entryID},
			{ID: "d2", Kind: "memory", Content: content + " " + title, EntryID: "mem-2"},
			{ID: "d3", Kind: "learning", Title: "Unrelated", Content: "Nothing to see here at all."},
		}
		for _, strict := range []bool{false, true} {
			q := Query{Text: query, Strict: strict}
			got, err := NewScan(docs...).Search(q)
			if err != nil {
				t.Fatal(err)
			}
			readEverything = true
			want, err := NewScan(docs...).Search(q)
			readEverything = false
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("query %q (strict %v):\nwith needles %+v\nreading all  %+v", query, strict, got, want)
			}
		}
	})
}

func FuzzContainsFoldASCII(f *testing.F) {
	f.Add("The Gondola", "gondola")
	f.Add("GONDOLA", "dol")
	f.Add("abc", "abcd")
	f.Add("aAaAb", "aab")
	f.Add("x", "")
	f.Fuzz(func(t *testing.T, text, needle string) {
		if !isASCII(text) {
			return
		}
		needle = strings.ToLower(needle)
		if got, want := containsFoldASCII(text, needle), strings.Contains(strings.ToLower(text), needle); got != want {
			t.Fatalf("containsFoldASCII(%q, %q) = %v, want %v", text, needle, got, want)
		}
	})
}

// A word holds the start of its stem: all of it but its last two letters
// (what matcher's needles rely on). Checked on every word of lore's own
// files, the labelled store of bench/recall among them.
func TestAWordHoldsTheStartOfItsStem(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range strings.Fields("ability usability possibility nobility relational conditional generalization happiness copies copy flaky flakiness agreed feed plastered motoring sing conflated troubled sized hopping tanned falling hissing fizzed failing filing happy sky formaliti sensitiviti sensibiliti triplicate formative formalize electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective bowdlerize probate rate cease controll roll") {
		seen[w] = true
	}
	filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".json") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		text := strings.ToLower(string(data))
		words.EachTerm(text, func(start, end int) bool {
			seen[text[start:end]] = true
			return true
		})
		return nil
	})
	if len(seen) < 5000 {
		t.Fatalf("only %d words read", len(seen))
	}
	for w := range seen {
		st := Stem(w)
		if st != "" && (len(st) < 2 || !strings.HasPrefix(w, st[:len(st)-2])) {
			t.Errorf("%q: its stem %q does not start it", w, st)
		}
	}
}
