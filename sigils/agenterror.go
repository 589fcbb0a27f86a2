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
// agent, failed, each found at the start of a line (after the CLI's
// decoration: ⎿, ■, ⚠️, └, •, [System Error]). The fixtures in
// testdata/agent-errors name where each was seen.
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
	{"Claude usage limit reached", "rate limit"},
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

// FindAgentFailure returns the first line of text, outside code, that is
// a known agent CLI's infrastructure failure, or ok false.
func FindAgentFailure(text string) (AgentFailure, bool) {
	spans := codeSpans(text)
	start, n := 0, 0
	for start <= len(text) {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		n++
		if !inFencedCode(spans, start) {
			line := strings.TrimSpace(text[start:end])
			bare := strings.TrimSpace(strings.TrimLeft(line, "⎿■⚠️└•>*- \t"))
			bare = strings.TrimSpace(strings.TrimPrefix(bare, "[System Error]"))
			for _, f := range agentFailures {
				if strings.HasPrefix(bare, f.prefix) {
					return AgentFailure{Kind: f.kind, Message: cutRunes(bare, MaxAgentFailureMessage), Line: n}, true
				}
			}
		}
		if end == len(text) {
			break
		}
		start = end + 1
	}
	return AgentFailure{}, false
}

func inFencedCode(spans []span, at int) bool {
	for _, s := range spans {
		if s.fenced && at >= s.start && at < s.end {
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
