package gitx

import (
	"slices"
	"testing"
)

func TestCGitEnv(t *testing.T) {
	got := CGitEnv([]string{"PATH=/bin", "GIT_DIR=/elsewhere/.git", "GIT_INDEX_FILE=/tmp/i", "GIT_WORK_TREE=/w", "GIT_AUTHOR_NAME=A"}, "GIT_OPTIONAL_LOCKS=0")
	want := []string{"PATH=/bin", "GIT_AUTHOR_NAME=A", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0"}
	if !slices.Equal(got, want) {
		t.Errorf("CGitEnv: %q, want %q", got, want)
	}
}
