package history

import (
	"strconv"
	"strings"
	"testing"

	"lore/internal/loretest"
	"lore/mdstore"
	"lore/mdstore/entry"
)

// A memory's versions through edits of memories.md by hand that move,
// reword, unclose, duplicate and delete its block: each version's text is
// its block as the parser reads it from that commit's memories.md, which
// C git shows (git show <commit>:.agent/memories.md). Versions does not
// parse a version whose block it can tell is the same as the last one it
// read; this holds it to what a parse of every version gives.
func TestMemoryVersionsAreTheParsersBlocks(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	const id = "mem-1700000000-abcd"
	block := "### " + id + "\n> run go vet before a commit\n<!-- tags: go | created: 2023-11-14 -->\n"
	other := "### mem-1700000001-0001\n> the deploy needs the VPN\n<!-- tags:  | created: 2023-11-14 -->\n"
	file := func(patterns, decisions string) string {
		return "# Memories\n\n## Patterns\n" + patterns + "\n## Decisions\n" + decisions + "\n## Fixes\n\n## Context\n"
	}
	steps := []struct{ message, memories string }{
		{"added", file("\n"+block, "")},
		{"another memory", file("\n"+block, "\n"+other)},
		{"moved to decisions", file("", "\n"+block+"\n"+other)},
		{"a line after its comment", file("", "\n"+block+"> stray line\n\n"+other)},
		{"reworded", file("", "\n"+strings.Replace(block, "before a commit", "before every commit", 1)+"\n"+other)},
		{"its comment gone", file("", "\n### "+id+"\n> run go vet before every commit\n\n"+other)},
		{"its comment back", file("", "\n"+block+"\n"+other)},
		{"a second block of the id", file("\n"+strings.Replace(block, "run go vet", "twice", 1), "\n"+block+"\n"+other)},
		{"the first one gone", file("", "\n"+block+"\n"+other)},
		{"deleted", file("", "\n"+other)},
		{"back", file("\n"+block, "\n"+other)},
	}
	for _, st := range steps {
		r.Commit(st.message, map[string]string{".agent/memories.md": st.memories})
	}
	s, err := mdstore.Open(r.Dir, mdstore.Options{Getenv: r.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	versions, err := Versions(s, id)
	if err != nil {
		t.Fatal(err)
	}
	// The oracle: every commit's memories.md parsed whole.
	var want []string
	older := "\x00"
	for i := len(steps) - 1; i >= 0; i-- {
		commit := r.Git("rev-parse", "HEAD~"+strconv.Itoa(i))
		data := r.Git("show", commit+":.agent/memories.md") + "\n"
		text := ""
		if b, ok := entry.ParseMemoriesFile([]byte(data), entry.MemoriesPath).ShownBlock(id); ok {
			text = data[b.Start:b.End]
		}
		if text != older {
			want = append([]string{steps[len(steps)-1-i].message + ": " + text}, want...)
		}
		older = text
	}
	var got []string
	for _, v := range versions {
		got = append(got, v.Subject+": "+v.Text)
	}
	if strings.Join(got, "\n--\n") != strings.Join(want, "\n--\n") {
		t.Fatalf("versions:\n%s\n\nwant (each commit parsed):\n%s", strings.Join(got, "\n--\n"), strings.Join(want, "\n--\n"))
	}
	if versions[0].Change != "restored" || versions[1].Change != "deleted" || versions[len(versions)-1].Change != "added" {
		t.Fatalf("changes: %+v", versions)
	}
}
