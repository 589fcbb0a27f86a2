package lifecycle

import (
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"lore/internal/loretest"
	"lore/mdstore"
)

// storeRepo is a repository with one commit, and C git in it.
func storeRepo(t *testing.T) (string, func(args ...string) string) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	return r.Dir, r.Git
}

// storeOptions gives a store a clock that starts at a fixed time and
// moves a second each time it is read (created_at is to the second, and
// learnings are ordered by it), and a real source of ids.
func storeOptions(t *testing.T) mdstore.Options {
	var mu sync.Mutex
	clock := time.Date(2027, 1, 15, 10, 0, 0, 0, time.UTC)
	home := t.TempDir()
	return mdstore.Options{
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Second)
			return clock
		},
		Random: rand.Reader,
		Getenv: func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		},
	}
}
