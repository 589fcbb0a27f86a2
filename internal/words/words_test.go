package words

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestKeywords(t *testing.T) {
	got := Keywords("The go-git index.lock isn't HELD by Ümlaut v2.6.1, the INDEX")
	want := []string{"the", "git", "index", "lock", "isn", "held", "ümlaut", "the", "index"}
	if !slices.Equal(got, want) {
		t.Errorf("Keywords = %q, want %q", got, want)
	}
}

// Keywords splits the lowercased text where a rune is neither a letter nor
// a digit, and keeps words of three runes or more: what prime and the
// near-duplicate check always did with strings.FieldsFunc.
func FuzzKeywords(f *testing.F) {
	f.Add("The go-git index.lock isn't HELD by Ümlaut v2.6.1")
	f.Add("İstanbul ǅemal ﬃ")
	f.Fuzz(func(t *testing.T, text string) {
		var want []string
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			if len([]rune(w)) > 2 {
				want = append(want, w)
			}
		}
		if got := Keywords(text); !slices.Equal(got, want) {
			t.Fatalf("Keywords(%q) = %q, want %q", text, got, want)
		}
	})
}

func TestEachGivesTheWordsByteRanges(t *testing.T) {
	s := "go-git: Ümlaut v2.6"
	var got []string
	Each(s, func(start, end int) bool {
		got = append(got, s[start:end])
		return len(got) < 4
	})
	if want := []string{"go", "git", "Ümlaut", "v2"}; !slices.Equal(got, want) {
		t.Errorf("Each = %q, want %q (stopping after four)", got, want)
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

func TestEachTerm(t *testing.T) {
	cases := map[string][]string{
		"ParseDuration":                 {"ParseDuration", "Parse", "Duration"},
		"HTTPServer on v2":              {"HTTPServer", "HTTP", "Server", "on", "v2", "v", "2"},
		"argon2id":                      {"argon2id", "argon", "2", "id"},
		"user_sessions table":           {"user_sessions", "user", "sessions", "table"},
		"see internal/gitx/objects.go.": {"internal/gitx/objects.go", "objects.go", "internal", "gitx", "objects", "go", "see"},
		"orders.customer_id":            {"orders.customer_id", "customer_id", "orders", "customer", "id"},
		"dags/daily_orders.py":          {"dags/daily_orders.py", "daily_orders.py", "daily_orders", "dags", "daily", "orders", "py"},
		"db.max_conns":                  {"db.max_conns", "max_conns", "db", "max", "conns"},
		"index.lock, go-git":            {"index.lock", "index", "lock", "go-git", "go", "git"},
		"plain words. Next":             {"plain", "words", "Next"},
		"a__b":                          {"a", "b"},
		"ÜberStraße":                    {"ÜberStraße", "Über", "Straße"},
		"getHTTPResponseCode":           {"getHTTPResponseCode", "get", "HTTP", "Response", "Code"},
		"":                              nil,
	}
	for s, want := range cases {
		var got []string
		EachTerm(s, func(start, end int) bool { got = append(got, s[start:end]); return true })
		slices.Sort(got)
		w := slices.Clone(want)
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%q: %q, want %q", s, got, want)
		}
	}
	n := 0
	EachTerm("a_b c", func(int, int) bool { n++; return false })
	if n != 1 {
		t.Errorf("EachTerm went on after fn said stop: %d calls", n)
	}
}

// TestIsWordRuneASCIIAsUnicode: the ASCII shortcut says what unicode's
// tables say of every ASCII rune.
func TestIsWordRuneASCIIAsUnicode(t *testing.T) {
	for r := rune(0); r < utf8.RuneSelf; r++ {
		if got, want := IsWordRune(r), unicode.IsLetter(r) || unicode.IsDigit(r); got != want {
			t.Errorf("IsWordRune(%q) = %v, want %v", r, got, want)
		}
	}
}

// TestEachAsRangingOverRunes: Each's byte loop finds the words that
// ranging over the string's runes finds, in text with multi-byte runes
// and bytes that are not UTF-8.
func TestEachAsRangingOverRunes(t *testing.T) {
	pieces := []string{"a", "Z", "9", " ", "-", "_", "é", "Ü", "日本", "\xff", "\xe2\x82", "·", "\u00a0", "x1"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		var want [][2]int
		start := -1
		for i, r := range s {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				if start < 0 {
					start = i
				}
			} else if start >= 0 {
				want, start = append(want, [2]int{start, i}), -1
			}
		}
		if start >= 0 {
			want = append(want, [2]int{start, len(s)})
		}
		var got [][2]int
		Each(s, func(start, end int) bool { got = append(got, [2]int{start, end}); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("Each(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestKeywordsAreLongerThanTwoRunes: a keyword has more than two runes,
// whatever its bytes: two-byte and four-byte runes, bytes that are not
// UTF-8, words of two to nine bytes.
func TestKeywordsAreLongerThanTwoRunes(t *testing.T) {
	pieces := []string{"a", "B", "é", "日", "\U0001F600", "\xff", " ", "ab", "\U00010400"}
	rng := rand.New(rand.NewPCG(6, 1))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(10) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		var want []string
		lower := strings.ToLower(s)
		Each(lower, func(start, end int) bool {
			if w := lower[start:end]; len([]rune(w)) > 2 {
				want = append(want, w)
			}
			return true
		})
		if got := Keywords(s); !slices.Equal(got, want) {
			t.Fatalf("Keywords(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestNearestIDs(t *testing.T) {
	ids := []string{"sprint-1/0001-250d11", "mem-1795825581-1d62"}
	if got, ok := Nearest("sprint-1/99", ids, 2); ok {
		t.Errorf("Nearest(sprint-1/99) = %q: an id is not a typo of another's start", got)
	}
	if got, _ := Nearest("mem-1795825581-1d6x", ids, 2); got != "mem-1795825581-1d62" {
		t.Errorf("Nearest(mem-1795825581-1d6x) = %q", got)
	}
}

func TestNearest(t *testing.T) {
	known := []string{"learning", "list", "knowledge", "import", "init"}
	for _, c := range []struct {
		word, want string
		ok         bool
	}{
		{"lern", "learning", true}, // a typo of its start
		{"lrn", "", false},
		{"learnig", "learning", true},
		{"lst", "list", true},
		{"imprt", "import", true},
		{"int", "init", true},
		{"list", "", false}, // a word it knows needs no suggestion
		{"zzzz", "", false},
	} {
		if got, ok := NearestName(c.word, known, 2); got != c.want || ok != c.ok {
			t.Errorf("NearestName(%q) = %q, %v; want %q, %v", c.word, got, ok, c.want, c.ok)
		}
	}
}
