package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"lore/loop"
	"lore/mdstore/entry"
	"lore/secrets"
)

// How a failed command ends: its exit status, and the one line on stderr
// that says why in lore's words (loop.ErrorText), with any secret of the
// command line redacted.

// Exit codes: 0 success, 1 failure or not found, 2 usage.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError is a command used wrongly: a missing argument, an unknown
// flag or a flag value out of range. It exits with status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// reportedError has already been explained to the user; it only carries
// the exit status.
type reportedError struct{ code int }

func (e *reportedError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

// exitCode prints err for a person and maps it to an exit status.
func exitCode(e *env, err error) int {
	if err == nil {
		return exitOK
	}
	var reported *reportedError
	var usage *usageError
	var input *entry.InputError
	var missing *entry.NotFoundError
	switch {
	case errors.As(err, &reported):
		return reported.code
	case errors.As(err, &usage):
		printError(e, usage.msg+"\nRun 'lore --help' for usage.")
		return exitUsage
	case errors.As(err, &input):
		printError(e, loop.ErrorText(err))
		return exitUsage
	case errors.As(err, &missing):
		printError(e, loop.ErrorText(err))
		return exitFailure
	}
	printError(e, loop.ErrorText(err))
	return exitFailure
}

// printError prints "Error: msg" on stderr, with any secret in it
// redacted: lore's own messages name a secret's rule, never its value,
// but a value echoed back — by urfave/cli ("invalid value … for flag
// -cost"), or as an unknown command, format or id — may be one pasted
// in the wrong place. A secret of the command line is replaced as it is
// and as Go quotes it (urfave/cli quotes values with %q, whose escapes
// can hide a secret from the rules: `\"Bearer …\"`); then the message is
// scanned.
func printError(e *env, msg string) {
	for _, s := range e.argSecrets {
		quoted := strconv.Quote(s.value)
		for _, form := range []string{s.value, quoted[1 : len(quoted)-1]} {
			msg = strings.ReplaceAll(msg, form, "[REDACTED:"+s.rule+"]")
		}
	}
	msg, _ = secrets.Redact(msg)
	fmt.Fprintf(&terminalSafe{w: e.stderr}, "Error: %s\n", msg) // a message may quote what an entry holds
}

// argSecret is a secret found in the command line.
type argSecret struct{ value, rule string }

// secretsIn returns the secrets the arguments hold.
func secretsIn(args []string) []argSecret {
	var found []argSecret
	for _, a := range args {
		for _, f := range secrets.Scan(a) {
			found = append(found, argSecret{value: a[f.Start:f.End], rule: f.Rule})
		}
	}
	return found
}

// hookExit keeps a hook's failure from blocking the agent: Claude Code
// reads exit status 2 from a Stop hook as "do not stop", so every error
// is reported on stderr with status 1.
func hookExit(e *env, err error) error {
	if err == nil {
		return nil
	}
	if code := exitCode(e, err); code != exitOK {
		return &reportedError{code: exitFailure}
	}
	return nil
}
