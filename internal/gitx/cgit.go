package gitx

import "strings"

// CGitEnv is env as C git that lore runs must see it: without a hook's
// GIT_DIR, GIT_WORK_TREE or GIT_INDEX_FILE, which would point it at
// another repository or index, and never asking at a terminal it may
// not have; more is added at the end. lore sync's git and the git loop
// runs (status, lore prime --at's checkout) both start from it.
func CGitEnv(env []string, more ...string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k == "GIT_DIR" || k == "GIT_INDEX_FILE" || k == "GIT_WORK_TREE" {
			continue
		}
		out = append(out, kv)
	}
	return append(append(out, "GIT_TERMINAL_PROMPT=0"), more...)
}
