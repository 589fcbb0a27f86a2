// Command lore is a git-native memory store for coding agents that work in
// loops. It keeps what an agent learns as Markdown under .agent/ in the
// project's git repository, commits every change, and hands the next
// iteration a budget-capped context block (`lore prime`).
//
// This package is the only one that knows about flags, terminals and exit
// codes: every command is an options struct filled from flags plus a run
// function that takes an env, so the run functions are tested without
// parsing flags.
package main

import (
	"crypto/rand"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"lore/internal/fsx"
)

func main() {
	// lore lives for milliseconds: collecting garbage it is about to drop
	// on exit was a fifth of prime's time at 10k memories. GOGC, when set,
	// still decides.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	code := run(os.Args[1:], systemEnv())
	fsx.Settle()
	os.Exit(code)
}

// env is everything a command may touch outside its arguments: streams,
// clock, randomness, environment variables and the working directory.
// Nothing below main reaches for os.Stdout or time.Now directly.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	now            func() time.Time
	random         io.Reader
	getenv         func(string) string
	workDir        string
	stdinTerminal  bool // lore edit opens $EDITOR only on a terminal
	stdoutTerminal bool
	stderrTerminal bool
	// buildInfo reads how the binary was built, for lore --version; nil
	// is a build that recorded nothing.
	buildInfo func() (*debug.BuildInfo, bool)
	// executable says where the running lore is (os.Executable), for
	// the hooks to run it by path; nil when it cannot be told.
	executable func() (string, error)
	// runCommand, when set, is handed the options a command's flags built
	// in place of the command's run function (see runWith): the flag
	// wiring's tests see what a command line turns into.
	runCommand func(g globals, opts any) error
	// argSecrets are the secrets the command line holds, which no error
	// message may echo (printError); run sets them.
	argSecrets []argSecret
}

func systemEnv() *env {
	wd, err := os.Getwd()
	if err != nil {
		wd = "."
	}
	return &env{
		stdin:          os.Stdin,
		stdout:         os.Stdout,
		stderr:         os.Stderr,
		now:            time.Now,
		random:         rand.Reader,
		getenv:         os.Getenv,
		workDir:        wd,
		stdinTerminal:  isTTY(os.Stdin),
		stdoutTerminal: isTerminal(os.Stdout),
		stderrTerminal: isTerminal(os.Stderr),
		buildInfo:      debug.ReadBuildInfo,
		executable:     os.Executable,
	}
}

// abs is path p, given relative to the working directory, made absolute.
func (e *env) abs(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.workDir, p)
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
