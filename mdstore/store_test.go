package mdstore

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// gitRepo makes a repository with one commit and returns its directory
// and a function that runs C git in it.
func gitRepo(t *testing.T) (string, func(args ...string) string) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	return r.Dir, r.Git
}

// testOptions gives a store a fixed clock and id source.
func testOptions(home string) Options {
	return Options{
		Now:    func() time.Time { return time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC) },
		Random: bytes.NewReader(bytes.Repeat([]byte{0xbe, 0xef, 0x01, 0x02}, 64)),
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
	}
}

func TestStoreAddCommitsOneMemory(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	m, res, err := s.AddMemory(NewMemory{Type: "Decision", Content: "  Chose Go for lore.\r\nSingle static binary.  ", Tags: []string{" Arch ", "lang", "arch"}})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "mem-1800007200-beef" || m.Type != entry.Decision || m.Content != "Chose Go for lore.\nSingle static binary." || strings.Join(m.Tags, ",") != "arch,lang" || m.Created != "2027-01-15" {
		t.Fatalf("memory = %+v", m)
	}
	if res.Mode != "commit" || res.Commit == "" || res.Branch != "main" {
		t.Fatalf("result = %+v", res)
	}
	if got := git("log", "-1", "--format=%s%n%b"); got != "lore: add decision mem-1800007200-beef\nChose Go for lore.\nSingle static binary.\n\nLore-Id: mem-1800007200-beef\nLore-Kind: memory" {
		t.Fatalf("message:\n%s", got)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
	want := strings.Replace(entry.MemoriesTemplate, "## Decisions\n", "## Decisions\n\n### mem-1800007200-beef\n> Chose Go for lore.\n> Single static binary.\n<!-- tags: arch, lang | created: 2027-01-15 -->\n", 1)
	if got := git("show", "HEAD:.agent/memories.md"); got+"\n" != want {
		t.Fatalf("file:\n%s", got)
	}

	// A second add with the same random source must not reuse the id.
	m2, _, err := s.AddMemory(NewMemory{Type: entry.Decision, Content: "another"})
	if err != nil {
		t.Fatal(err)
	}
	if m2.ID == m.ID {
		t.Fatal("id reused")
	}
	got, _, err := s.Memory(m.ID)
	if err != nil || got.Content != m.Content {
		t.Fatalf("Memory(%s) = %+v, %v", m.ID, got, err)
	}
}

func TestStoreRefusesBadInputAndChangesNothing(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	cases := []NewMemory{
		{Type: "insight", Content: "x"},
		{Type: entry.Pattern, Content: "   "},
		{Type: entry.Pattern, Content: "x", Tags: []string{"a|b"}},
		{Type: entry.Pattern, Content: "x", Tags: []string{"a", " "}},
		{Type: entry.Pattern, Content: "x", Tags: []string{"end-->"}},
		{Type: entry.Pattern, Content: "bad \xff utf-8"},
	}
	for _, in := range cases {
		_, _, err := s.AddMemory(in)
		var ie *entry.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("%+v: err = %v", in, err)
		}
	}
	if got := git("rev-list", "--count", "HEAD"); got != "1" {
		t.Fatal("a commit was made")
	}
	if _, err := os.Stat(filepath.Join(dir, entry.MemoriesPath)); !os.IsNotExist(err) {
		t.Fatal("memories.md was written")
	}
}

func TestStoreDelete(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	if _, _, err := s.Init(false); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, entry.MemoriesPath))
	m, _, err := s.AddMemory(NewMemory{Type: entry.Fix, Content: "restart docker", Tags: []string{"docker"}})
	if err != nil {
		t.Fatal(err)
	}
	deleted, res, err := s.DeleteMemory(m.ID)
	if err != nil || deleted.Content != "restart docker" || res.Commit == "" {
		t.Fatalf("delete: %+v %+v %v", deleted, res, err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, entry.MemoriesPath))
	if !bytes.Equal(before, after) {
		t.Fatalf("file after add+delete:\n%s", after)
	}
	if got := git("log", "--format=%s", "-3"); got != "lore: delete fix "+m.ID+"\nlore: add fix "+m.ID+"\nlore: init memory store" {
		t.Fatalf("log:\n%s", got)
	}
	if _, _, err := s.DeleteMemory(m.ID); !errors.Is(err, entry.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if got := git("rev-list", "--count", "HEAD"); got != "4" {
		t.Fatalf("commits = %s", got)
	}
}

func TestStoreInit(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	s, _ := Open(dir, testOptions(t.TempDir()))
	created, res, err := s.Init(false)
	if err != nil || !created || res.Commit == "" {
		t.Fatalf("init: %v %+v %v", created, res, err)
	}
	if got := git("show", "HEAD:.agent/memories.md"); got+"\n" != entry.MemoriesTemplate {
		t.Fatalf("template:\n%s", got)
	}
	s.AddMemory(NewMemory{Type: entry.Pattern, Content: "keep me"})
	created, _, err = s.Init(false)
	if err != nil || created {
		t.Fatalf("second init: %v %v", created, err)
	}
	if ms, _, _ := s.Memories(); len(ms) != 1 {
		t.Fatal("init without --force changed the file")
	}
	created, _, err = s.Init(true)
	if err != nil || !created {
		t.Fatalf("forced init: %v %v", created, err)
	}
	if ms, _, _ := s.Memories(); len(ms) != 0 {
		t.Fatal("forced init kept memories")
	}
	if got := git("log", "-1", "--format=%s"); got != "lore: reinit memory store" {
		t.Fatalf("log: %s", got)
	}
}

func TestStoreOutsideGit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := Open(dir, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if s.InRepository() {
		t.Fatal("thinks it is in a repository")
	}
	_, res, err := s.AddMemory(NewMemory{Type: entry.Context, Content: "no git here"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "files" || len(res.Notices) != 1 || !strings.Contains(res.Notices[0], "not a git repository") {
		t.Fatalf("result = %+v", res)
	}
	if ms, _, _ := s.Memories(); len(ms) != 1 || ms[0].Content != "no git here" {
		t.Fatalf("memories = %+v", ms)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, entry.Dir))
	if len(entries) != 1 {
		t.Fatalf(".agent holds %d entries (a lock left behind?)", len(entries))
	}
}

func TestStoreInSubdirectoryOfRepository(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	sub := filepath.Join(dir, "services", "api")
	os.MkdirAll(sub, 0o755)
	s, err := Open(sub, testOptions(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.AddMemory(NewMemory{Type: entry.Pattern, Content: "api memory"}); err != nil {
		t.Fatal(err)
	}
	if got := git("diff", "--name-only", "HEAD^", "HEAD"); got != "services/api/.agent/memories.md" {
		t.Fatalf("committed %q", got)
	}
	if got := git("status", "--porcelain"); got != "" {
		t.Fatalf("status: %s", got)
	}
}

// TestDeleteRemovesTheMemoryShownNotItsDuplicate: a hand edit or a merge
// can leave two blocks with one id. list and show read the first valid
// one; delete removes that one alone, and its commit says which line.
func TestDeleteRemovesTheMemoryShownNotItsDuplicate(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	const id = "mem-1737372000-a1b2"
	src := "# Memories\n\n## Patterns\n\n### " + id + "\n> the one list shows\n<!-- tags: a | created: 2025-01-20 -->\n\n" +
		"## Decisions\n\n## Fixes\n\n### " + id + "\n> a copy made by hand\n<!-- tags: b | created: 2025-01-20 -->\n\n## Context\n"
	r.Commit("memories", map[string]string{entry.MemoriesPath: src})
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	shown, _, err := s.Memory(id)
	if err != nil || shown.Content != "the one list shows" {
		t.Fatalf("show: %+v %v", shown, err)
	}
	deleted, _, err := s.DeleteMemory(id)
	if err != nil || deleted.Content != "the one list shows" {
		t.Fatalf("delete: %+v %v", deleted, err)
	}
	want := "# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n### " + id + "\n> a copy made by hand\n<!-- tags: b | created: 2025-01-20 -->\n\n## Context\n"
	if got := r.Git("show", "HEAD:"+entry.MemoriesPath) + "\n"; got != want {
		t.Fatalf("HEAD:\n%s", got)
	}
	r.AssertClean()
	if got := r.Git("log", "-1", "--format=%b"); !strings.Contains(got, "Removed the block at .agent/memories.md:5; another block with this id, at line 13 before this commit, stays.") {
		t.Fatalf("message body:\n%s", got)
	}
	// The copy is what show reads now, and a second delete removes it.
	if again, _, err := s.Memory(id); err != nil || again.Content != "a copy made by hand" {
		t.Fatalf("show after delete: %+v %v", again, err)
	}
	if _, _, err := s.DeleteMemory(id); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("show", "HEAD:"+entry.MemoriesPath) + "\n"; got != "# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n## Context\n" {
		t.Fatalf("HEAD after the second delete:\n%s", got)
	}
}

// TestDeleteSkipsABlockShowCannotRead: a first block without content is
// not a memory; the valid block after it is the one shown and deleted.
func TestDeleteSkipsABlockShowCannotRead(t *testing.T) {
	t.Parallel()
	r := loretest.NewRepo(t)
	const id = "mem-1737372000-a1b2"
	src := "# Memories\n\n## Patterns\n\n### " + id + "\n\n### " + id + "\n> valid\n<!-- tags: a | created: 2025-01-20 -->\n"
	r.Commit("memories", map[string]string{entry.MemoriesPath: src})
	s, _ := Open(r.Dir, testOptions(t.TempDir()))
	if _, _, err := s.DeleteMemory(id); err != nil {
		t.Fatal(err)
	}
	if got := r.Git("show", "HEAD:"+entry.MemoriesPath) + "\n"; got != "# Memories\n\n## Patterns\n\n### "+id+"\n" {
		t.Fatalf("HEAD:\n%q", got)
	}
}

// A new memory's id is one that neither the committed memories.md nor
// the one on disk holds: not a committed block's, not a block added by
// hand and not committed yet.
func TestNewMemoryIDIsFree(t *testing.T) {
	t.Parallel()
	dir, git := gitRepo(t)
	opts := testOptions(t.TempDir())
	// The first two tries are taken, the third is free.
	opts.Random = bytes.NewReader([]byte{0xbe, 0xef, 0xca, 0xfe, 0x01, 0x02})
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Init(false); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ".agent/memories.md")
	data, _ := os.ReadFile(p)
	committed := strings.Replace(string(data), "## Patterns\n", "## Patterns\n\n### mem-1800007200-beef\n> committed\n<!-- tags: a | created: 2027-01-15 -->\n", 1)
	os.WriteFile(p, []byte(committed), 0o644)
	git("add", "-A")
	git("commit", "-q", "-m", "a memory")
	onDisk := strings.Replace(committed, "## Fixes\n", "## Fixes\n\n### mem-1800007200-cafe\n> by hand\n<!-- tags: b | created: 2027-01-15 -->\n", 1)
	os.WriteFile(p, []byte(onDisk), 0o644)
	m, _, err := s.AddMemory(NewMemory{Type: "Pattern", Content: "a third memory"})
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "mem-1800007200-0102" {
		t.Fatalf("id %s, want mem-1800007200-0102 (beef is committed, cafe on disk)", m.ID)
	}
}

// realClock gives a store the real clock: the cache trusts a file's stamp
// only once the file is older than the racy window, by the clock the file
// system stamps files with.
func realClock(t *testing.T) Options {
	opts := testOptions(t.TempDir())
	opts.Now, opts.Random = time.Now, rand.Reader
	return opts
}
