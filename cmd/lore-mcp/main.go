// Command lore-mcp is lore's MCP server over stdio (mcpserver.Serve):
// `lore mcp` runs it, for the store of the directory it is started in or
// of lore's --root. Each tool call calls the packages the CLI calls, in
// process, so that a write from the server is a commit like any other.
// It stops at the end of stdin or on SIGTERM, SIGINT or SIGHUP, once
// every call it read is answered (exit 0). It is a separate binary
// because the MCP SDK adds to the start of every process that links it,
// which lore's write commands cannot afford. Install it next to lore: go
// install ./cmd/...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"lore/internal/sibling"
	"lore/mcpserver"
)

func main() {
	lore := flag.String("lore", "", "the lore a merge driver registered in a fresh clone runs (default: the one beside lore-mcp, or on PATH)")
	root := flag.String("root", "", "the directory holding .agent/ (default: the enclosing git worktree)")
	flag.Parse()
	if flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: lore-mcp [--lore PATH] [--root DIR]  (an MCP server on stdin and stdout)")
		os.Exit(2)
	}
	if *lore == "" {
		*lore, _ = sibling.Find("lore") // "": the driver runs lore by name
	}
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, "lore-mcp:", err)
		os.Exit(1)
	}
	version := "devel"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		version = bi.Main.Version
	}
	// SIGPIPE ignored: a client that stops reading makes a write to
	// stdout fail, which ends the server as the end of stdin does, after
	// the calls under way; by default Go would die at once, maybe inside
	// a commit. SIGINT, SIGTERM and SIGHUP stop it the same way.
	signal.Ignore(syscall.SIGPIPE)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	opts := mcpserver.Options{Dir: dir, Root: *root, Getenv: os.Getenv, LoreBinary: func() string { return *lore }}
	if err := mcpserver.Serve(ctx, opts, version, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lore-mcp:", err)
		os.Exit(1)
	}
}
