package usagelog

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestSinceIsTheFirstRecord: the log says when it began; a log kept
// before that was written is judged by its earliest line.
func TestSinceIsTheFirstRecord(t *testing.T) {
	dir := t.TempDir()
	l := Open(dir)
	if since := l.Since(nil); !since.IsZero() {
		t.Fatal("an empty log has a beginning")
	}
	first := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	if err := l.Record(first, []string{"memory:mem-1"}); err != nil {
		t.Fatal(err)
	}
	if err := l.Record(first.Add(48*time.Hour), []string{"memory:mem-2"}); err != nil {
		t.Fatal(err)
	}
	if since := l.Since(nil); !since.Equal(first) {
		t.Errorf("since %v, want %v", since, first)
	}
	// A log from before usage.since: its earliest line.
	os.Remove(filepath.Join(dir, "usage.since"))
	os.WriteFile(filepath.Join(dir, "usage.log"), []byte(strconv.FormatInt(first.Add(time.Hour).Unix(), 10)+" 1 a\n"+strconv.FormatInt(first.Unix(), 10)+" 2 b\n"), 0o644)
	stats, err := l.Read()
	if err != nil {
		t.Fatal(err)
	}
	if since := l.Since(stats); !since.Equal(first) {
		t.Errorf("since of an old log %v, want %v", since, first)
	}
}
