package loretest

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// A SettleClock is the clock of a store, or of a check of an index, whose
// test needs what it wrote to be behind the racy window (a file changed
// less than the window before a stamp was taken may change again without
// its stamp changing, so the stamp is not trusted: fsx.Stamp.Settled)
// rather than wait the window out. The clock stands still: at first where
// the real clock was when it was made, so that what the test writes is
// too new to trust. Settle moves it just past the window of every change
// made until then, and no further: what changes afterwards is too new to
// trust again, as on a machine infinitely fast. Its Now is the function
// to give a store (mdstore.Options.Now).
type SettleClock struct {
	window time.Duration
	at     atomic.Int64 // Unix nanoseconds
	probe  string
}

// NewSettleClock is a clock for a racy window of window (fsx.RacyWindow).
func NewSettleClock(t testing.TB, window time.Duration) *SettleClock {
	c := &SettleClock{window: window, probe: filepath.Join(t.TempDir(), "tick")}
	c.at.Store(time.Now().UnixNano())
	return c
}

// Now is the time the clock stands at.
func (c *SettleClock) Now() time.Time { return time.Unix(0, c.at.Load()) }

// Settle waits for the file system's clock to tick (NextTick) and sets
// the clock the racy window after the tick: every file and directory
// changed before Settle has a stamp older than the window, and any change
// after it a later stamp, one within the window.
func (c *SettleClock) Settle(t testing.TB) {
	t.Helper()
	c.at.Store(nextTick(t, c.probe).Add(c.window).UnixNano())
}

// NextTick waits until the file system's clock has moved on, and returns
// the time it moved to: a file changed before NextTick has a modification
// and change time before it, a file changed after it one at or after it
// (so a change cannot leave a stamp taken before it as it was). It
// writes a file of its own, in a directory of its own, again until its
// modification time changes: at once with fine-grained timestamps, within
// a tick of the kernel's coarse clock (a few milliseconds) otherwise. It
// is a wait for an event of the file system, not for a span of time.
func NextTick(t testing.TB) time.Time {
	t.Helper()
	return nextTick(t, filepath.Join(t.TempDir(), "tick"))
}

func nextTick(t testing.TB, probe string) time.Time {
	t.Helper()
	stamp := func() time.Time {
		if err := os.WriteFile(probe, []byte("tick"), 0o644); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(probe)
		if err != nil {
			t.Fatal(err)
		}
		return info.ModTime()
	}
	first := stamp()
	for {
		if next := stamp(); next.After(first) {
			return next
		}
	}
}
