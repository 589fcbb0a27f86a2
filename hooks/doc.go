// Package hooks connects lore to the tools around it. For now that is
// Claude Code: reading its Stop hook payload and its session transcript
// so that `lore ingest --hook claude` records the agent's last turn. Git
// hooks and the merge driver come here too.
package hooks
