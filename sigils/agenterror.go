package sigils

import (
	"strings"
)

// AgentFailure is an infrastructure failure an agent CLI reported in
// its output: the agent did not run to the end, and what it said is no
// attempt at its task.
type AgentFailure struct {
	Kind    string // rate limit, overload, authentication, network, timeout, crash
	Message string // the line that says it, trimmed and cut to MaxAgentFailureMessage
	Line    int    // 1-based
}

// MaxAgentFailureMessage caps AgentFailure.Message, in characters.
const MaxAgentFailureMessage = 300

// agentFailures are the messages agent CLIs print when they, not the
// agent, failed, each found at the start of the output's last line
// (after the CLI's decoration: ⎿, ⏺, ■, ⚠️, └, •, [System Error]; Claude
// Code's "/login to switch …" hint under a usage limit aside). The
// fixtures in testdata/agent-errors.txtar name where each was seen.
var agentFailures = []struct{ prefix, kind string }{
	// Claude Code
	{"API Error: 529", "overload"},
	{"API Error: 500", "crash"},
	{"API Error: 502", "network"},
	{"API Error: 503", "overload"},
	{"API Error: 504", "timeout"},
	{"API Error: 429", "rate limit"},
	{"API Error: Rate limit reached", "rate limit"},
	{"API Error: Request rejected (429)", "rate limit"},
	{"API Error: Request timed out", "timeout"},
	{"API Error: Connection error", "network"},
	{"API Error: 401", "authentication"},
	{"API Error: 403", "authentication"},
	{"Invalid API key", "authentication"},
	{"Error: No messages returned", "crash"},
	{"Claude Code cannot be launched inside another Claude Code session", "crash"},
	{"Error: Claude Code cannot be launched inside another Claude Code session", "crash"},
	{"Claude usage limit reached", "rate limit"},
	{"Claude AI usage limit reached", "rate limit"},
	{"You've hit your limit", "rate limit"},
	{"You've hit your session limit", "rate limit"},
	{"You've hit your weekly limit", "rate limit"},
	{"Error: 429 {", "rate limit"},
	{"Error: 529 {", "overload"},
	// Codex
	{"stream disconnected before completion", "network"},
	{"stream error: stream disconnected before completion", "network"},
	// Node-based CLIs (Claude Code, Gemini CLI) dying on the network
	{"Error: read ECONNRESET", "network"},
	{"Error: connect ETIMEDOUT", "timeout"},
	{"Error: getaddrinfo ENOTFOUND", "network"},
}

// FindAgentFailure reports whether text ends with a known agent CLI's
// infrastructure failure: its last line — a task sigil, a stack frame
// ("at …") and blank lines after it left aside — starts with one of
// agentFailures. A message earlier in the output (quoted, in a fenced
// block whose closing fence is then the last line, or a retry the CLI
// went on from) is not its end — unless the output is that message and
// at most two more lines (a loop script's own error line after it, as a
// real loop's log had: "❌ Error on line 79").
func FindAgentFailure(text string) (AgentFailure, bool) {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "at ") || taskSigilLine(line) || strings.HasPrefix(line, "/login to switch") {
			continue
		}
		if f, ok := failureAt(line, i); ok {
			return f, true
		}
		break
	}
	var said []int // the lines that are not blank
	for i, line := range lines {
		if strings.TrimSpace(line) != "" {
			if said = append(said, i); len(said) > 3 {
				return AgentFailure{}, false
			}
		}
	}
	if len(said) > 0 {
		return failureAt(strings.TrimSpace(lines[said[0]]), said[0])
	}
	return AgentFailure{}, false
}

// failureAt reads line (the i-th, from 0) as one of agentFailures, after
// the CLI's decoration.
func failureAt(line string, i int) (AgentFailure, bool) {
	bare := strings.TrimSpace(strings.TrimLeft(line, "⎿⏺●■⚠️└•> \t"))
	bare = strings.TrimSpace(strings.TrimPrefix(bare, "[System Error]"))
	for _, f := range agentFailures {
		if strings.HasPrefix(bare, f.prefix) {
			return AgentFailure{Kind: f.kind, Message: cutRunes(bare, MaxAgentFailureMessage), Line: i + 1}, true
		}
	}
	return AgentFailure{}, false
}

// taskSigilLine reports whether line is a task sigil alone.
func taskSigilLine(line string) bool {
	for _, s := range []string{"task-done", "task-failed"} {
		if strings.HasPrefix(line, "<"+s+">") && strings.HasSuffix(line, "</"+s+">") {
			return true
		}
	}
	return false
}

func cutRunes(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// AgentErrorReason begins the why_failed of an agent error.
const AgentErrorReason = "Agent error"

// AgentError says why an iteration whose output is text and sigils r is
// an agent error — the agent did not run to the end — or "": its output
// is empty, or holds a known infrastructure failure of the agent's CLI
// (unless the agent said its task is done, or wrote a failure report:
// then it ran to the end), or the agent ended badly (processEnd, such as
// "exited with status 7") without a task sigil; with one, the sigil says
// what happened.
func (r Result) AgentError(text, processEnd string) string {
	if r.Task.Outcome == "done" || r.FailureReport != nil {
		return ""
	}
	end := ""
	if processEnd != "" {
		end = ": the agent " + processEnd
	}
	if strings.TrimSpace(text) == "" {
		return AgentErrorReason + end + ": the output is empty"
	}
	if f, ok := FindAgentFailure(text); ok {
		return AgentErrorReason + " (" + f.Kind + ")" + end + ": " + f.Message
	}
	if end != "" && r.Task.Outcome == "" {
		return AgentErrorReason + end
	}
	return ""
}
