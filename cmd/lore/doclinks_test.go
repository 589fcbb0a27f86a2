package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocLinks: every relative link of README.md and docs/ names a file
// that exists, and a link to a heading of a Markdown file (page.md#id)
// names a heading it has, as GitHub makes the ids.
func TestDocLinks(t *testing.T) {
	docs := []string{filepath.Join(repoRoot, "README.md")}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			docs = append(docs, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]map[string]bool{} // file → anchors
	anchorsOf := func(path string) map[string]bool {
		if a, ok := headings[path]; ok {
			return a
		}
		a := map[string]bool{}
		headings[path] = a
		f, err := os.Open(path)
		if err != nil {
			return a
		}
		defer f.Close()
		fenced := false
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && !fenced && strings.HasPrefix(line, "#") {
				id := anchor(strings.NewReplacer("`", "", `\`, "").Replace(h))
				for n, base := 1, id; a[id]; n++ { // GitHub numbers a repeated heading
					id = fmt.Sprintf("%s-%d", base, n)
				}
				a[id] = true
			}
		}
		return a
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	checked := 0
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(string(data), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			path := doc
			if file != "" {
				path = filepath.Join(filepath.Dir(doc), filepath.FromSlash(file))
			}
			checked++
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", doc, target, err)
				continue
			}
			if frag != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[frag] {
				t.Errorf("%s: link %s: %s has no heading #%s", doc, target, path, frag)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no links found: the test reads the wrong files")
	}
}
