package main

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"lore/internal/sibling"
)

// mcpHelperName is the MCP server's binary (cmd/lore-mcp): the SDK is not
// linked into lore, whose every command would start slower.
const mcpHelperName = "lore-mcp"

func mcpCommand(e *env) *cli.Command {
	return &cli.Command{
		Name:      "mcp",
		Usage:     "serve this store to an agent over MCP on stdin and stdout (tools: prime, search, show, add_memory, add_knowledge, add_learning, ingest)",
		UsageText: "lore [--root DIR] mcp",
		Description: "Each tool call is what the command does (lore-mcp, installed beside lore, calls the same\n" +
			"packages in process): a write is one commit like any other, the search index is used as the\n" +
			"CLI uses it, and an error is a tool error in the CLI's words while the server goes on. Two\n" +
			"resources hold the store as Markdown, every kind of entry: lore://memories and\n" +
			"lore://entry/{id} (a journal id with its slash as it is). A line that is not a JSON-RPC\n" +
			"message gets a JSON-RPC error, and the server reads on. At the end of stdin, or on SIGTERM,\n" +
			"SIGINT or SIGHUP, it reads no more and exits once every call it read is answered: a write\n" +
			"is never cut in two. Register it for Claude Code with lore hooks install --mcp (the\n" +
			"project's .mcp.json), or claude mcp add lore -- lore mcp.",
		Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("mcp takes no arguments")
			}
			return runWith(e, globalsFrom(c), struct{}{}, runMCP)
		},
	}
}

// runMCP runs lore-mcp on lore's own stdin and stdout, for the lore that
// is running and the store of --root.
func runMCP(e *env, g globals, _ struct{}) error {
	helper, ok := sibling.Find(mcpHelperName)
	if !ok {
		return errors.New("lore mcp needs " + mcpHelperName + ", next to lore or on PATH (go install ./cmd/... installs it)")
	}
	args := []string{}
	if e.executable != nil {
		if self, err := e.executable(); err == nil {
			args = append(args, "--lore", self)
		}
	}
	if g.root != "" {
		args = append(args, "--root", e.abs(g.root))
	}
	cmd := exec.Command(helper, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = e.stdin, e.stdout, e.stderr
	// A client stops the server by signalling the process it started,
	// this one: the signal is passed on, and lore exits when lore-mcp
	// has finished the calls under way — never before, which would tell
	// the client the store is free while a commit is still being made.
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			return err
		case sig := <-signals:
			if sig != syscall.SIGPIPE {
				cmd.Process.Signal(sig)
			}
		}
	}
}
