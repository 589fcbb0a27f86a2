// Command lore-mcp is lore's MCP server over stdio (package mcpserver):
// `lore mcp` runs it, for the store of the directory it is started in or
// of lore's --root. Each tool call runs the lore CLI, so that a write from
// the server is a commit like any other. It is a separate binary because
// the MCP SDK adds to the start of every process that links it, which
// lore's write commands cannot afford. Install it next to lore:
// go install ./cmd/...
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"lore/internal/sibling"
	"lore/mcpserver"
)

func main() {
	lore := flag.String("lore", "", "the lore binary to run (default: the one beside lore-mcp, or on PATH)")
	root := flag.String("root", "", "the directory holding .agent/ (default: the enclosing git worktree)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: lore-mcp [--lore PATH] [--root DIR]  (an MCP server on stdin and stdout)")
		os.Exit(2)
	}
	if *lore == "" {
		p, ok := sibling.Find("lore")
		if !ok {
			fmt.Fprintln(os.Stderr, "lore-mcp: lore is not installed beside lore-mcp or on PATH (go install ./cmd/...)")
			os.Exit(1)
		}
		*lore = p
	}
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	server := mcpserver.New(mcpserver.Exec(*lore, *root, nil), version)
	if err := server.Run(ctx, &mcp.StdioTransport{}); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "lore-mcp:", err)
		os.Exit(1)
	}
}
