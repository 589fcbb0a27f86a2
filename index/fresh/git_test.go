package fresh_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"lore/index/fresh"
	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// A large store does not stat its files, but git's index tells which
// files git has seen change: an entry edited in place (its directory
// unchanged) is seen once it is staged, also when the store is in a
// subdirectory of the worktree; what git itself then rewrites (a stash,
// a reset) is seen too, and git writing its index for files outside the
// store changes nothing.
func TestFilesGitHasSeenAreSeen(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"", "project/sub"} {
		name := "store at the top"
		if sub != "" {
			name = "store in " + sub
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newStoreRepoIn(t, -1, sub)
			k := r.addKnowledge("Cache layout", "Entries live in shards.", "cache")
			other := r.addKnowledge("Other entry", "Unrelated.", "misc")
			gitPath := knowledgePath(k.Slug)
			if sub != "" {
				gitPath = sub + "/" + gitPath
			}
			wantChanges(t, "the first build", r.rebuild(), []string{k.Slug, other.Slug}, nil)

			r.write(knowledgePath(k.Slug), knowledgeFile("Cache layout", "Entries live in shards of 256."))
			r.Git("add", gitPath)
			ch := r.expect("an in-place edit, staged", []string{k.Slug}, nil)
			if d := doc(t, ch.Docs, k.Slug); d.Content != "Entries live in shards of 256." {
				t.Fatalf("the staged entry's document: %+v", d)
			}
			r.Git("commit", "-q", "-m", "shards")
			r.expect("the staged edit committed", nil, nil)

			r.Commit("readme", map[string]string{"README.md": "# project\n"})
			r.expect("a commit outside the store", nil, nil)

			r.write(knowledgePath(k.Slug), knowledgeFile("Cache layout", "Entries live in shards of 512."))
			r.Git("add", gitPath)
			r.expect("a second in-place edit, staged", []string{k.Slug}, nil)
			r.Git("stash", "-q")
			ch = r.expect("the edit stashed", []string{k.Slug}, nil)
			if d := doc(t, ch.Docs, k.Slug); d.Content != "Entries live in shards of 256." {
				t.Fatalf("after git stash: %+v", d)
			}

			r.Git("reset", "-q", "--hard", "HEAD~2")
			ch = r.expect("a hard reset to the first version", []string{k.Slug}, nil)
			if d := doc(t, ch.Docs, k.Slug); d.Content != "Entries live in shards." {
				t.Fatalf("after git reset: %+v", d)
			}
			if st := r.status(); !st.Empty() || st.Changed != 0 {
				t.Fatalf("status after the checks: %s; want fresh", describe(st))
			}
		})
	}
}

// Without git's index — a store outside git, or a repository whose
// index git has not written yet — the checks see what the directories
// and memories.md show.
func TestStoreWithoutAGitIndex(t *testing.T) {
	t.Parallel()
	for name, store := range map[string]func(t *testing.T) fresh.Store{
		"outside git": func(t *testing.T) fresh.Store {
			return fresh.Store{Root: t.TempDir()}
		},
		"in a repository without an index yet": func(t *testing.T) fresh.Store {
			r := loretest.NewRepo(t)
			gitIndex := r.Path(".git/index")
			if _, err := os.Stat(gitIndex); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("a new repository has an index: %v", err)
			}
			return fresh.Store{Root: r.Dir, GitIndex: gitIndex}
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := store(t)
			saveAs := func(p, content string) {
				full := filepath.Join(s.Root, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full+".tmp", []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(full+".tmp", full); err != nil {
					t.Fatal(err)
				}
			}
			saveAs(knowledgePath("first"), knowledgeFile("First", "One."))
			saveAs(entry.MemoriesPath, entry.MemoriesTemplate)
			mpath := filepath.Join(t.TempDir(), "m.manifest")
			ch, err := fresh.CheckAll(s, time.Now().UnixNano(), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			wantChanges(t, "the first build", ch, []string{"first"}, nil)
			if err := fresh.WriteManifest(mpath, ch.Next); err != nil {
				t.Fatal(err)
			}
			check := func(what string, docs, remove []string) {
				t.Helper()
				m, err := fresh.ReadManifest(mpath)
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				ch, err := fresh.Check(s, m, false, time.Now().UnixNano())
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				wantChanges(t, what, ch, docs, remove)
				if err := fresh.WriteManifest(mpath, ch.Next); err != nil {
					t.Fatal(err)
				}
			}
			saveAs(knowledgePath("second"), knowledgeFile("Second", "Two."))
			saveAs(knowledgePath("first"), knowledgeFile("First", "One, saved again."))
			check("two files saved", []string{"first", "second"}, nil)
			check("nothing changed", nil, nil)
		})
	}
}

// git stash pop writes the stashed files back without recording their
// stat in git's index (it leaves the entries' stat data zero, for git
// to refresh later), under the inode number the file had: a large store
// sees them all the same.
func TestStashPopIsSeen(t *testing.T) {
	t.Parallel()
	sweeps(t, func(t *testing.T, sweep int) {
		r := newStoreRepo(t, sweep)
		k := r.addKnowledge("Cache layout", "Entries live in shards of 256.", "cache")
		wantChanges(t, "the first build", r.rebuild(), []string{k.Slug}, nil)

		r.write(knowledgePath(k.Slug), knowledgeFile("Cache layout", "Entries live in shards of 512."))
		r.Git("add", knowledgePath(k.Slug))
		r.expect("an in-place edit, staged", []string{k.Slug}, nil)
		r.Git("stash", "-q")
		r.expect("the edit stashed", []string{k.Slug}, nil)

		r.Git("stash", "pop", "-q")
		ch := r.expect("the stash popped", []string{k.Slug}, nil)
		if d := doc(t, ch.Docs, k.Slug); d.Content != "Entries live in shards of 512." {
			t.Fatalf("after git stash pop: %+v", d)
		}
	})
}
