package yamlfm

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v3"
)

// slowFrontmatter is what Parse reads without the fast path.
func slowFrontmatter(data []byte) (yaml.Node, []byte, error) {
	var node yaml.Node
	body, err := frontmatter.MustParse(bytes.NewReader(data), &node, yamlFrontmatter)
	return node, body, err
}

// checkFast fails when the fast path accepts data and reads it otherwise
// than yaml.v3; it reports whether the fast path accepted it.
func checkFast(t *testing.T, data []byte) bool {
	t.Helper()
	fast, fastBody, ok := fastFrontmatter(string(data))
	if !ok {
		return false
	}
	slow, slowBody, err := slowFrontmatter(data)
	if err != nil {
		t.Fatalf("the fast path read what yaml.v3 refuses (%v):\n%q", err, data)
	}
	if !reflect.DeepEqual(fast, slow) || fastBody != string(slowBody) {
		t.Fatalf("the fast path reads\n%q\nas\n%s\nyaml.v3 as\n%s\nbodies %q and %q", data, dumpNode(&fast), dumpNode(&slow), fastBody, slowBody)
	}
	return true
}

func dumpNode(n *yaml.Node) string {
	var b strings.Builder
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		fmt.Fprintf(&b, "%s%d %s %q style %d at %d:%d\n", strings.Repeat("  ", depth), n.Kind, n.Tag, n.Value, n.Style, n.Line, n.Column)
		for _, c := range n.Content {
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// TestFastFrontmatterReadsAsYAML reads every Markdown file of the
// repository's own store and entry's test data, and generated frontmatter near
// the edges of the subset, both ways.
func TestFastFrontmatterReadsAsYAML(t *testing.T) {
	t.Parallel()
	accepted := 0
	for _, glob := range []string{"../../../.agent/*/*.md", "../../../.agent/*/*/*.md", "../testdata/*.md", "../testdata/*/*.md"} {
		files, _ := filepath.Glob(glob)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if checkFast(t, data) {
				accepted++
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	// Keys and values in the subset, and near it.
	keys := []string{"id", "title", "tags", "task_id", "a_b", "x1", "Y2"}
	edgeKeys := []string{"y", "True", "null", "1x", "é", "-k", "k k", "_k"}
	values := []string{"active", "run-0001", "12", "0", "1.50", "0.00", "a b", "src/x.go", "a@b.c", "a+b", "Yes-no", "nan", "inf", "e1",
		`"quoted"`, `"é ✓ 漢"`, `""`, `"a: b # c"`, `"[x]"`, "[]", "[a]", "[a, b]", "[1, 2]", "[a, 0.5, b-c]", "[src/x.go, README.md]"}
	edgeValues := []string{"007", "1.", ".5", "1e3", "-1", "+1", "123456789012345678901",
		"true", "Null", "yes", "on", "No", "~", "a  b", "a ", " a", "a #b", "a: b", "a:b", "a\tb",
		`"with \" escape"`, `"tab	in"`, `"a" b`, `"unclosed`, `'single'`, `"\u00e9"`,
		"[a,b]", "[a,  b]", "[ a]", "[a, ]", "[a b]", `["a"]`, "[a", "[[a]]", "{a: b}", "|", ">", "&x a", "*x", "!tag a", "%x", "@x", "`x`",
		"2026-01-01", "2026-01-01T00:00:00Z", "0x1F", "1_000", ".inf", "é", "a\rb"}
	pick := func(good, edge []string) string {
		if rng.IntN(8) == 0 {
			return edge[rng.IntN(len(edge))]
		}
		return good[rng.IntN(len(good))]
	}
	for round := 0; round < 20000; round++ {
		var b strings.Builder
		b.WriteString("---\n")
		for n := 1 + rng.IntN(5); n > 0; n-- {
			b.WriteString(pick(keys, edgeKeys) + ": " + pick(values, edgeValues) + "\n")
		}
		switch rng.IntN(6) {
		case 0:
			b.WriteString("---")
		case 1:
			b.WriteString("--- \nbody\n")
		case 2:
			b.WriteString("key:\n---\n")
		default:
			b.WriteString("---\n\nThe body.\n")
		}
		if checkFast(t, []byte(b.String())) {
			accepted++
		}
	}
	if accepted < 5000 {
		t.Fatalf("the fast path took only %d of the inputs: the test checks little", accepted)
	}
}

func FuzzFastFrontmatter(f *testing.F) {
	f.Add([]byte("---\nid: l-1\ntags: [a, b-c]\ntask: \"task-0\"\nn: 12\nc: 0.00\n---\n\nbody\n"))
	f.Add([]byte("---\ntitle: \"é ✓\"\n---"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFast(t, data)
	})
}
