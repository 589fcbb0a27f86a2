// Package usagelog counts, per clone, when each entry of the store was last
// put before an agent and how often: a log in the state directory
// (<git-dir>/lore/usage.log), outside the worktree and never committed.
// Pruning reads it: an entry no iteration has used for months is a
// candidate for removal.
//
// The log is append-only: each use is one line, "<unix seconds> <count>
// <key>", written by one write to a file opened for appending, so
// concurrent lore processes never interleave within a line and a crash
// loses at most the line being written. Past MaxLogSize the log is
// rewritten with one line per key. Appenders hold a shared lock on
// usage.lock and the rewrite an exclusive one, so no use is appended to a
// file the rewrite is replacing.
package usagelog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"lore/internal/fsx"
)

// MaxLogSize is the size past which Record rewrites the log compactly.
var MaxLogSize int64 = 1 << 20

// Stat is what the log says of one entry.
type Stat struct {
	Key   string    `json:"key"`
	Count int       `json:"count"`
	Last  time.Time `json:"last_used"`
}

// Log is one clone's usage log.
type Log struct {
	dir string
}

// Open returns the log kept in the state directory dir; nothing is read
// or created until it is used.
func Open(dir string) *Log { return &Log{dir: dir} }

func (l *Log) path() string { return filepath.Join(l.dir, "usage.log") }

// Record notes that the entries keys were used at t.
func (l *Log) Record(t time.Time, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	var b bytes.Buffer
	for _, k := range keys {
		if k = clean(k); k != "" {
			fmt.Fprintf(&b, "%d 1 %s\n", t.Unix(), k)
		}
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		return err
	}
	size, err := l.locked(false, func() (int64, error) {
		if _, err := os.Stat(l.sincePath()); errors.Is(err, fs.ErrNotExist) {
			// The log's first record: from now on this clone sees what
			// is used (Since).
			fsx.WriteFile(l.sincePath(), []byte(strconv.FormatInt(t.Unix(), 10)+"\n"), fsx.Unsynced)
		}
		f, err := os.OpenFile(l.path(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return 0, err
		}
		_, err = f.Write(b.Bytes())
		info, serr := f.Stat()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && serr == nil {
			return info.Size(), nil
		}
		return 0, err
	})
	if err == nil && size > MaxLogSize {
		err = l.compact()
	}
	return err
}

// clean keeps a key on one line and without the separator's ambiguity.
func clean(k string) string {
	return strings.Join(strings.Fields(k), "_")
}

func (l *Log) sincePath() string { return filepath.Join(l.dir, "usage.since") }

func (l *Log) compactedPath() string { return filepath.Join(l.dir, "usage.compacted") }

// CopyUntil writes to dst the uses l recorded before t, as the log was
// then: for a prime of the past (lore prime --at). partial says that the
// log was compacted since t, which kept only each entry's last use: an
// entry used both before t and after looks unused at t.
func (l *Log) CopyUntil(dst *Log, t time.Time) (partial bool, err error) {
	data, err := os.ReadFile(l.path())
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var b bytes.Buffer
	for line := range strings.Lines(string(data)) {
		if at, _, _, ok := parseLine(strings.TrimSuffix(line, "\n")); ok && at < t.Unix() && strings.HasSuffix(line, "\n") {
			b.WriteString(line)
		}
	}
	if err := os.MkdirAll(dst.dir, 0o755); err != nil {
		return false, err
	}
	if err := fsx.WriteFile(dst.path(), b.Bytes(), fsx.Unsynced); err != nil {
		return false, err
	}
	if since, err := os.ReadFile(l.sincePath()); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(since)), 10, 64); err == nil && n <= t.Unix() {
			fsx.WriteFile(dst.sincePath(), since, fsx.Unsynced)
		}
	}
	if compacted, err := os.ReadFile(l.compactedPath()); err == nil {
		n, err := strconv.ParseInt(strings.TrimSpace(string(compacted)), 10, 64)
		partial = err == nil && n > t.Unix()
	}
	return partial, nil
}

// Since is when this clone's log began recording (zero: it has recorded
// nothing): what it says of entries not used covers only the time since
// (a fresh clone has seen nothing used). stats are what Read gave: a log
// older than the file that says when it began is judged by its earliest
// use.
func (l *Log) Since(stats []Stat) time.Time {
	if data, err := os.ReadFile(l.sincePath()); err == nil {
		if at, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil {
			return time.Unix(at, 0).UTC()
		}
	}
	var since time.Time
	for _, s := range stats {
		if since.IsZero() || s.Last.Before(since) {
			since = s.Last
		}
	}
	return since
}

// Read sums the log: one Stat per key, the most recently used first.
func (l *Log) Read() ([]Stat, error) {
	data, err := os.ReadFile(l.path())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byKey := map[string]*Stat{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		at, n, key, ok := parseLine(sc.Text())
		if !ok {
			continue // a line cut short by a crash
		}
		s := byKey[key]
		if s == nil {
			s = &Stat{Key: key}
			byKey[key] = s
		}
		s.Count += n
		if t := time.Unix(at, 0).UTC(); t.After(s.Last) {
			s.Last = t
		}
	}
	out := make([]Stat, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Last.Equal(out[j].Last) {
			return out[i].Last.After(out[j].Last)
		}
		return out[i].Key < out[j].Key
	})
	return out, sc.Err()
}

// parseLine reads a line of the log, "<unix time> <count> <key>"; ok is
// false for a line cut short by a crash, or any other.
func parseLine(line string) (at int64, n int, key string, ok bool) {
	f := strings.SplitN(line, " ", 3)
	if len(f) != 3 || f[2] == "" {
		return 0, 0, "", false
	}
	at, err1 := strconv.ParseInt(f[0], 10, 64)
	n, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || n < 1 {
		return 0, 0, "", false
	}
	return at, n, f[2], true
}

// compact rewrites the log with one line per key.
func (l *Log) compact() error {
	_, err := l.locked(true, func() (int64, error) {
		stats, err := l.Read()
		if err != nil {
			return 0, err
		}
		var b bytes.Buffer
		var last time.Time
		for _, s := range stats {
			fmt.Fprintf(&b, "%d %d %s\n", s.Last.Unix(), s.Count, s.Key)
			if s.Last.After(last) {
				last = s.Last
			}
		}
		if err := fsx.WriteFile(l.path(), b.Bytes(), fsx.Unsynced); err != nil {
			return 0, err
		}
		// What a copy of the past (CopyUntil) must know: before this,
		// each entry's uses are its last.
		fsx.WriteFile(l.compactedPath(), []byte(strconv.FormatInt(last.Unix(), 10)+"\n"), fsx.Unsynced)
		return int64(b.Len()), nil
	})
	return err
}

// locked runs fn holding usage.lock, shared or exclusive; a lock that
// cannot be had in a second is given up on (the use is not worth a hang).
func (l *Log) locked(exclusive bool, fn func() (int64, error)) (int64, error) {
	unlock, err := fsx.Lock(filepath.Join(l.dir, "usage.lock"), exclusive, time.Second)
	if errors.Is(err, fsx.ErrLocked) {
		return 0, errors.New("the usage log is locked by another process")
	}
	if err != nil {
		return 0, err
	}
	defer unlock()
	return fn()
}
