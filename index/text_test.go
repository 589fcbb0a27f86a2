package index

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTokens(t *testing.T) {
	got := Tokens("The go-git index.lock isn't HELD by Ümlaut v2.6.1")
	want := []string{"go", "git", "index", "lock", "isn", "t", "held", "ümlaut", "v2", "6", "1"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokens = %q, want %q", got, want)
	}
}

func TestFuzziness(t *testing.T) {
	for term, want := range map[string]int{"go": 0, "git": 1, "lock": 1, "index": 1, "search": 2, "élan": 1} {
		if got := Fuzziness(term); got != want {
			t.Errorf("Fuzziness(%q) = %d, want %d", term, got, want)
		}
	}
}

// referenceDistance is the textbook optimal-string-alignment distance.
func referenceDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"search", "serach", 1}, {"bleve", "bleev", 1}, {"lock", "lcok", 1}, {"kitten", "sitting", 3}, {"", "abc", 3}, {"größe", "grösse", 2}} {
		if d, ok := EditDistance(c.a, c.b, 5); !ok || d != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, %v; want %d", c.a, c.b, d, ok, c.want)
		}
	}
	if _, ok := EditDistance("kitten", "sitting", 2); ok {
		t.Error("kitten/sitting within 2")
	}
}

func FuzzEditDistance(f *testing.F) {
	f.Add("search", "serach", 2)
	f.Add("größe", "grosse", 1)
	f.Fuzz(func(t *testing.T, a, b string, max int) {
		if len(a) > 64 || len(b) > 64 {
			return
		}
		max = max & 3
		want := referenceDistance(a, b)
		d, ok := EditDistance(a, b, max)
		if ok != (want <= max) || (ok && d != want) {
			t.Fatalf("EditDistance(%q, %q, %d) = %d, %v; reference %d", a, b, max, d, ok, want)
		}
	})
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
}
