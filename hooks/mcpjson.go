package hooks

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"lore/internal/fsx"
)

// MCPServerName is the name lore's MCP server has in a project's
// .mcp.json, and MCPServer how Claude Code starts it: lore on PATH, so
// that the file, committed, works for everyone on the project.
const MCPServerName = "lore"

// MCPConfigPath is where a project's MCP servers for Claude Code are
// listed (project scope, meant to be committed).
func MCPConfigPath(root string) string { return filepath.Join(root, ".mcp.json") }

// mcpServer is lore's entry under "mcpServers".
func mcpServer() jsonObject {
	return jsonObject{{"type", "stdio"}, {"command", "lore"}, {"args", []any{"mcp"}}}
}

// InstallMCP adds lore's server to the "mcpServers" of the .mcp.json at
// path (creating it), changing nothing else, in the style of the text
// around it. A server already named lore is left as it is. It reports
// whether the file changed.
func InstallMCP(path string) (bool, error) {
	config, err := readSettings(path)
	if err != nil {
		return false, err
	}
	root := config.root
	var e edit
	switch {
	case root == nil:
		nl, end := config.newline(), len(config.text)
		e = edit{end, end, mcpConfig(nl) + nl}
	case root.kind != '{':
		return false, fmt.Errorf("%s: not a JSON object; fix it or move it away, lore changes nothing", path)
	default:
		servers := root.get("mcpServers")
		switch {
		case servers == nil:
			e = config.insert(root, []any{jsonField{"mcpServers", jsonObject{{MCPServerName, mcpServer()}}}})
		case servers.kind != '{':
			return false, fmt.Errorf(`%s: "mcpServers" is not an object; fix it or move it away, lore changes nothing`, path)
		case servers.get(MCPServerName) != nil:
			return false, nil
		default:
			e = config.insert(servers, []any{jsonField{MCPServerName, mcpServer()}})
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, err
	}
	return true, fsx.WriteFile(path, applyEdits(config.text, []edit{e}), fsx.SyncAll)
}

// UninstallMCP removes lore's server from the .mcp.json at path when it
// is the one InstallMCP writes (lore mcp), and "mcpServers" with it when
// nothing else was there; a file left holding only what install wrote
// is removed.
func UninstallMCP(path string) (bool, error) {
	config, err := readSettings(path)
	if err != nil || config.root == nil || config.root.kind != '{' {
		return false, err
	}
	root := config.root
	at := root.lookup("mcpServers")
	if at < 0 || root.elems[at].kind != '{' {
		return false, nil
	}
	servers := root.elems[at]
	i := servers.lookup(MCPServerName)
	if i < 0 || !isLoreServer(servers.elems[i]) {
		return false, nil
	}
	var edits []edit
	if len(servers.elems) > 1 {
		gone := make([]bool, len(servers.elems))
		gone[i] = true
		edits = servers.remove(gone)
	} else if len(root.elems) > 1 {
		gone := make([]bool, len(root.elems))
		gone[at] = true
		edits = root.remove(gone)
	} else if nl := config.newline(); string(config.text[root.start:]) == mcpConfig(nl)+nl {
		// The file held only what install writes where there is none.
		if err := os.Remove(path); err != nil {
			return false, err
		}
		return true, nil
	} else {
		edits = []edit{{root.start + 1, servers.end, ""}}
	}
	return true, fsx.WriteFile(path, applyEdits(config.text, edits), fsx.SyncAll)
}

// MCPStatus says whether the .mcp.json at path lists lore's server.
func MCPStatus(path string) (bool, error) {
	config, err := readSettings(path)
	if err != nil || config.root == nil || config.root.kind != '{' {
		return false, err
	}
	servers := config.root.get("mcpServers")
	return servers != nil && servers.kind == '{' && servers.get(MCPServerName) != nil, nil
}

// isLoreServer says whether a server entry runs lore mcp.
func isLoreServer(n *jsonNode) bool {
	if n == nil || n.kind != '{' {
		return false
	}
	command, _ := n.get("command").str()
	args := n.get("args")
	if args == nil || args.kind != '[' || len(args.elems) != 1 {
		return false
	}
	arg, _ := args.elems[0].str()
	return filepath.Base(command) == "lore" && arg == "mcp"
}

// mcpConfig is what install writes where there is no .mcp.json.
func mcpConfig(nl string) string {
	var b strings.Builder
	layout{nl: nl, unit: "  ", colon: ": "}.item(&b, jsonObject{{"mcpServers", jsonObject{{MCPServerName, mcpServer()}}}}, "")
	return b.String()
}
