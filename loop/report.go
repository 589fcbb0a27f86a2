package loop

import (
	"fmt"

	"lore/mdstore"
	"lore/mdstore/entry"
)

// Reporter is told what a step of the loop has to say beside its result:
// the problems of files it read, and one-line notices (a change queued
// during a rebase, a run started, a step that failed after the iteration
// was recorded). The CLI prints them on stderr as they come; the MCP
// server adds them to a tool's text.
type Reporter interface {
	Warnings(ws []entry.Warning)
	Notice(msg string)
}

// Discard is a Reporter that says nothing.
var Discard Reporter = discard{}

type discard struct{}

func (discard) Warnings([]entry.Warning) {}
func (discard) Notice(string)            {}

// Notes is a Reporter that keeps what it is told, in order.
type Notes struct {
	Warned  []entry.Warning
	Notices []string
}

func (n *Notes) Warnings(ws []entry.Warning) { n.Warned = append(n.Warned, ws...) }
func (n *Notes) Notice(msg string)           { n.Notices = append(n.Notices, msg) }

// ReportWrite says what a write of one entry, noun id ("Memory",
// "mem-…"), noted on the way, and when it was queued instead of
// committed: "Memory queued: mem-… — a rebase is in progress; lore
// commits it when the rebase is over". The change is acknowledged either
// way.
func ReportWrite(r Reporter, res *mdstore.WriteResult, noun, id string) {
	if res == nil {
		return
	}
	for _, n := range res.Notices {
		r.Notice(n)
	}
	if res.Queued != "" {
		r.Notice(fmt.Sprintf("%s queued: %s — %s", noun, id, res.Queued))
	}
}
