package loretest

import "os"

// LongEnv names the one switch of the long runs: with LORE_TEST_LONG=1
// (as .ci/run sets it) the stress and crash suites run as many rounds,
// processes and entries as they were written with; without it they run
// fewer, with the same assertions, so that `go test ./...` fits a small
// machine.
const LongEnv = "LORE_TEST_LONG"

// Long reports whether the long runs were asked for (LORE_TEST_LONG=1).
func Long() bool { return os.Getenv(LongEnv) == "1" }

// Rounds is short, or long when the long runs were asked for.
func Rounds(short, long int) int {
	if Long() {
		return long
	}
	return short
}
