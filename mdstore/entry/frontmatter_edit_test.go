package entry

import (
	"strings"
	"testing"
)

// Setting frontmatter fields rewrites only their lines: comments, keys
// lore does not know, the order and the body stay byte for byte.
func TestSetFrontmatterFieldsKeepsTheRest(t *testing.T) {
	t.Parallel()
	src := "---\nid: l-0a1b2c\n# kept by hand\ncategory: pitfall\nstatus: active\nextra:\n  - a\n  - b\ntags: [x]\n---\n\nThe body: status: active.\n"
	got, err := SetFrontmatterFields([]byte(src), []FrontmatterField{{"status", "rejected"}, {"status_reason", `"not true here"`}, {"extra", ""}})
	if err != nil {
		t.Fatal(err)
	}
	want := "---\nid: l-0a1b2c\n# kept by hand\ncategory: pitfall\nstatus: rejected\ntags: [x]\nstatus_reason: \"not true here\"\n---\n\nThe body: status: active.\n"
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	// A file saved with CR LF keeps its line ends; one closed at its end
	// without a body is closed the same way.
	crlf := strings.ReplaceAll(src, "\n", "\r\n")
	got, err = SetFrontmatterFields([]byte(crlf), []FrontmatterField{{"status", "pruned"}})
	if err != nil || !strings.Contains(string(got), "status: pruned\r\n") || strings.Count(string(got), "\n") != strings.Count(string(got), "\r\n") {
		t.Fatalf("CR LF: %q %v", got, err)
	}
	got, err = SetFrontmatterFields([]byte("---\nid: l-0a1b2c\n---"), []FrontmatterField{{"status", "staged"}})
	if err != nil || string(got) != "---\nid: l-0a1b2c\nstatus: staged\n---" {
		t.Fatalf("closed at the end: %q %v", got, err)
	}
	for _, bad := range []string{"no frontmatter\n", "---\nid: l-0a1b2c\nnever closed\n"} {
		if _, err := SetFrontmatterFields([]byte(bad), []FrontmatterField{{"status", "staged"}}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
