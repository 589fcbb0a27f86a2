package fsx

import "time"

// Stamp is what tells a file or directory apart from its next version: its
// modification and change times (nanoseconds), inode and size. Dev, UID
// and GID are what git's index records besides; they are not compared.
// The zero Stamp means "unknown": it is the same as nothing.
type Stamp struct {
	Mtime, Ctime  int64
	Ino           uint64
	Size          int64
	Dir           bool
	Dev, UID, GID uint32
}

// Same reports whether a and b are the same known version of a file.
func (a Stamp) Same(b Stamp) bool {
	return a.Mtime != 0 && a.Mtime == b.Mtime && a.Ctime == b.Ctime && a.Ino == b.Ino && a.Size == b.Size
}

// A file changed less than RacyWindow before its stamp was taken may
// change again without its stamp changing: timestamps are coarse, and a
// write in the same tick leaves them as they were (git's "racily clean"
// rule). On a file system with whole-second timestamps the window is
// CoarseRacyWindow.
const (
	RacyWindow       = 50 * time.Millisecond
	CoarseRacyWindow = 2 * time.Second
)

// Settled reports whether the stamp, taken at time now (Unix
// nanoseconds), can be trusted: the file did not change within the racy
// window before now. A stamp that is not settled is recorded as unknown
// and the file looked at again next time.
func (a Stamp) Settled(now int64) bool {
	window := int64(RacyWindow)
	if a.Mtime%1e9 == 0 { // a file system with whole-second times
		window = int64(CoarseRacyWindow)
	}
	return a.Mtime < now-window && a.Ctime < now-window
}

// SettledBy reports whether the stamp can be trusted once a file on the
// same file system, written after the stamp was taken, has the stamp
// later: the file system's clock has moved on since the file last
// changed, so any change from then on gives it another stamp. It is the
// racy rule told by the file system's own clock, as git compares an
// entry's time with its index file's: no waiting out RacyWindow, only
// the clock's tick (a few milliseconds, less with fine-grained
// timestamps).
func (a Stamp) SettledBy(later Stamp) bool {
	return a.Mtime != 0 && a.Mtime < later.Mtime && a.Ctime < later.Mtime
}

// IfSettled is the stamp when it is Settled at now, else the zero Stamp.
func (a Stamp) IfSettled(now int64) Stamp {
	if a.Settled(now) {
		return a
	}
	return Stamp{}
}
