package secrets

import (
	"os"
	"os/exec"
	"testing"
)

// TestNothingCompiledUntilNeeded checks that loading the package compiles
// no regular expression, that plain text compiles none either, and that a
// text holding one rule's keyword compiles that rule's pattern alone. It
// re-runs the test binary, so that no other test has scanned before it.
func TestNothingCompiledUntilNeeded(t *testing.T) {
	if os.Getenv("LORE_SECRETS_FRESH_PROCESS") != "1" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestNothingCompiledUntilNeeded$", "-test.count=1")
		cmd.Env = append(os.Environ(), "LORE_SECRETS_FRESH_PROCESS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("fresh process: %v\n%s", err, out)
		}
		return
	}

	if got := compiledPatterns(); len(got) != 0 {
		t.Fatalf("compiled before any scan: %v", got)
	}
	Scan(plainText)
	if got := compiledPatterns(); len(got) != 0 {
		t.Fatalf("compiled after scanning plain text: %v", got)
	}
	Scan("the CI reads GITHUB_TOKEN=ghp_Q3vW8kZr1TbX6nLp0YcJ5mHs2GdF9aEuRi7o")
	got := compiledPatterns()
	if len(got) != 3 || got[0] != "github-pat" || got[1] != "secret-assignment" || got[2] != "generic-api-key" {
		t.Fatalf("compiled after scanning a GitHub token: %v, want github-pat, secret-assignment and generic-api-key", got)
	}
}

// compiledPatterns returns the ids of the rules whose pattern is compiled.
func compiledPatterns() []string {
	var ids []string
	for _, r := range rules {
		if r.pattern.re != nil {
			ids = append(ids, r.id)
		}
	}
	return ids
}
