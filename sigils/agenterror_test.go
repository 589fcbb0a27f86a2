package sigils

import (
	"path"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestFindAgentFailure reads real messages of agent CLIs that failed
// (testdata/agent-errors.txtar names where each was seen), and outputs of
// agents that ran to the end while quoting one.
func TestFindAgentFailure(t *testing.T) {
	t.Parallel()
	a, err := txtar.ParseFile("testdata/agent-errors.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Files) < 12 {
		t.Fatalf("%d fixtures", len(a.Files))
	}
	for _, f := range a.Files {
		want := path.Dir(f.Name)
		got, ok := FindAgentFailure(string(f.Data))
		switch {
		case want == "none" && ok:
			t.Errorf("%s: read as an agent error (%s): %q", f.Name, got.Kind, got.Message)
		case want != "none" && (!ok || got.Kind != want):
			t.Errorf("%s: got %q (found %v), want %q", f.Name, got.Kind, ok, want)
		case ok && !strings.Contains(string(f.Data), strings.TrimSuffix(got.Message, "…")):
			t.Errorf("%s: message %q is not the output's", f.Name, got.Message)
		}
	}
}

// TestAgentError: an empty output, a crash message at the end, or a bad
// exit without a task sigil is an agent error; an agent that said its
// task is done, or wrote a failure report, ran to the end.
func TestAgentError(t *testing.T) {
	t.Parallel()
	const crash = "API Error: 529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n"
	for _, tc := range []struct {
		out, end, want string
	}{
		{"", "", "Agent error: the output is empty"},
		{" \n", "exited with status 1", "Agent error: the agent exited with status 1: the output is empty"},
		{crash + "<task-failed>t-1</task-failed>\n", "", "Agent error (overload): " + strings.TrimSpace(crash)},
		{"working\n", "exited with status 7", "Agent error: the agent exited with status 7"},
		{"<task-failed>t-1</task-failed>", "exited with status 7", ""},
		{crash + "<task-done>t-1</task-done>\n", "", ""},
		{"<failure-report>\nwhat_tried: a\nwhy_failed: b\n</failure-report>\n" + crash + "<task-failed>t-1</task-failed>\n", "", ""},
		{"I ran out of turns.", "", ""},
	} {
		if got := Parse(tc.out).AgentError(tc.out, tc.end); got != tc.want {
			t.Errorf("%q, %q: %q, want %q", tc.out, tc.end, got, tc.want)
		}
	}
}
