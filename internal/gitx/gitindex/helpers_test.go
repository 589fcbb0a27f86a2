package gitindex

import (
	"testing"

	"lore/internal/loretest"
)

// newRepo is a repository with README.md and src/main.go committed.
func newRepo(t *testing.T) *loretest.Repo {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# project\n", "src/main.go": "package main\n"})
	return r
}
