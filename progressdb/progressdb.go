// Package progressdb reads the journal of RefoundAI ralph's
// .ralph/progress.db (seed 000: a SQLite table of one row per iteration)
// as lore journal entries, for lore import.
//
// It links a SQLite driver (modernc.org/sqlite, pure Go), which adds more
// than a millisecond to the start of every process that links it; only
// cmd/lore-sqlite imports this package, and lore runs that program when an
// import meets a progress.db. The database is opened read-only and never
// written.
package progressdb

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"modernc.org/sqlite" // the "sqlite" database/sql driver
	sqlitelib "modernc.org/sqlite/lib"

	"lore/internal/fsx"
	"lore/mdstore/entry"
	"lore/mdstore/lifecycle"
)

// Schema is seed 000's journal: the table, its full-text index and the
// trigger that keeps the index current. Read needs only the table; tests
// and fixtures create the whole of it, as ralph does.
const Schema = `CREATE TABLE journal (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL,
    iteration INTEGER NOT NULL,
    task_id TEXT,
    feature_id TEXT,
    outcome TEXT NOT NULL
        CHECK (outcome IN ('done','failed','retried','blocked')),
    model TEXT,
    duration_secs REAL,
    cost_usd REAL DEFAULT 0.0,
    files_modified TEXT,          -- JSON array
    notes TEXT,
    created_at TEXT NOT NULL
);

CREATE VIRTUAL TABLE journal_fts USING fts5(
    notes,
    content=journal,
    content_rowid=id
);

CREATE TRIGGER journal_ai AFTER INSERT ON journal BEGIN
    INSERT INTO journal_fts(rowid, notes) VALUES (new.id, new.notes);
END;
`

// Limits bound what reading a database may cost, so that a hostile one
// — a journal that is a view without end, a sort of millions of rows, a
// value of gigabytes — ends in an error rather than in a process that
// runs for ever or fills the disk with temporary files. SQLite keeps its
// temporary tables and sorts in memory (temp_store), never in the
// temporary directory, and reads no value longer than MaxValueBytes; what
// memory it may take is the process's to bound (lore-sqlite limits its
// own).
type Limits struct {
	// Timeout bounds the whole read; SQLite is interrupted when it ends.
	Timeout time.Duration
	// MaxRows is the most rows the journal may have, and MaxBytes the
	// most bytes their texts may hold together.
	MaxRows  int
	MaxBytes int64
	// CopyBytes is the most a database and its write-ahead log may hold
	// when they must be read from a copy (see Read).
	CopyBytes int64
}

// DefaultLimits are far above what a journal of ralph's holds: a row an
// iteration, a few kilobytes each.
var DefaultLimits = Limits{Timeout: time.Minute, MaxRows: 250_000, MaxBytes: 256 << 20, CopyBytes: 1 << 30}

// Read returns the iterations of the journal table of the database at
// path, in the table's order, as lore journal entries, within
// DefaultLimits. Each entry's file is named from its row (run, iteration
// and creation time), so reading the same row again names the same file
// and an import of it twice changes nothing; two rows of one run,
// iteration and time are told apart by their ids. A row lore cannot keep
// (a run id or outcome lore does not know, a time that is not one,
// files_modified that is not a JSON array of strings) is an error naming
// the file and the row's id. A symbolic link is not followed.
func Read(path string) ([]entry.JournalEntry, error) {
	return ReadWithin(path, DefaultLimits)
}

// ReadWithin is Read within limits.
func ReadWithin(path string, limits Limits) ([]entry.JournalEntry, error) {
	info, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (a symbolic link, a FIFO or a device is not read)", path)
	}
	if !logWithoutShm(path) {
		return read(path, path, limits)
	}
	// A write-ahead log without its -shm file is a copy of a database
	// (or what a crash left): no ralph is writing it, and SQLite, even
	// read-only, would make a -shm file beside it. Read a copy instead.
	tmp, err := os.MkdirTemp("", "lore-sqlite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	copied := filepath.Join(tmp, "progress.db")
	budget := limits.CopyBytes
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, copied+suffix, &budget); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return read(copied, path, limits)
}

// logWithoutShm reports whether the database at path has a write-ahead
// log but not the -shm file SQLite's readers share.
func logWithoutShm(path string) bool {
	wal, err := os.Stat(path + "-wal")
	if err != nil || wal.Size() == 0 {
		return false
	}
	_, err = os.Stat(path + "-shm")
	return errors.Is(err, fs.ErrNotExist)
}

// copyFile copies the regular file from to to, taking its size from
// *budget: a file larger than what is left is not copied.
func copyFile(from, to string, budget *int64) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if info, err := in.Stat(); err != nil {
		return err
	} else if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file", from)
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.LimitReader(in, *budget+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > *budget {
		err = errors.New("the database and its write-ahead log are too large to read from a copy")
	}
	*budget -= n
	return err
}

// read reads the journal of the database at path, named name in errors,
// within limits.
func read(path, name string, limits Limits) ([]entry.JournalEntry, error) {
	// mode=ro: SQLite opens the file read-only and creates no journal
	// beside it; query_only refuses any statement that would write;
	// trusted_schema(0) lets the database's views and triggers call only
	// the functions that are harmless wherever they are called;
	// temp_store(2) keeps temporary tables and sorts in memory, out of
	// the temporary directory.
	const query = "mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)&_pragma=trusted_schema(0)&_pragma=temp_store(2)"
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: query}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), limits.Timeout)
	defer cancel()
	bounded := func(err error) error {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: reading its journal took longer than %v (a journal that never ends?)", name, limits.Timeout)
		}
		return fmt.Errorf("%s: %w", name, dbError(err))
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, bounded(err)
	}
	defer conn.Close()
	// No value longer than MaxValueBytes is read (SQLITE_TOOBIG).
	if _, err := sqlite.Limit(conn, sqlitelib.SQLITE_LIMIT_LENGTH, MaxValueBytes); err != nil {
		return nil, bounded(err)
	}
	// Unsorted: a sort of what a view yields could take without end; the
	// rows are put in their ids' order here, no more than MaxRows of them.
	rows, err := conn.QueryContext(ctx, `SELECT id, run_id, iteration, task_id, feature_id, outcome, model,
		duration_secs, cost_usd, files_modified, notes, created_at FROM journal`)
	if err != nil {
		return nil, bounded(err)
	}
	defer rows.Close()
	var read []row
	var size int64
	for rows.Next() {
		if len(read) == limits.MaxRows {
			return nil, fmt.Errorf("%s: its journal has more than %d rows", name, limits.MaxRows)
		}
		var r row
		if err := rows.Scan(&r.id, &r.runID, &r.iteration, &r.taskID, &r.featureID, &r.outcome, &r.model,
			&r.duration, &r.cost, &r.files, &r.notes, &r.createdAt); err != nil {
			return nil, bounded(err)
		}
		if size += r.size(); size > limits.MaxBytes {
			return nil, fmt.Errorf("%s: its journal holds more than %s of text", name, fsx.FormatSize(limits.MaxBytes))
		}
		read = append(read, r)
	}
	if err := rows.Err(); err != nil {
		return nil, bounded(err)
	}
	slices.SortStableFunc(read, func(a, b row) int { return cmp.Compare(a.id, b.id) })
	entries := make([]entry.JournalEntry, 0, len(read))
	paths := map[string]bool{}
	for _, r := range read {
		e, err := r.entry(paths)
		if err != nil {
			return nil, fmt.Errorf("%s: journal row id %d: %w", name, r.id, err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// MaxValueBytes is the longest value (text or blob) read from a
// database: a row's notes are a few kilobytes.
const MaxValueBytes = 16 << 20

// WriteExport writes the journal of the database at path to w as a lore
// export (mdstore.Export, JSON), what lore import reads.
func WriteExport(w io.Writer, path string) error {
	entries, err := Read(path)
	if err != nil {
		return err
	}
	if entries == nil {
		entries = []entry.JournalEntry{}
	}
	x := lifecycle.Export{Version: lifecycle.ExportVersion, Memories: []entry.Memory{}, Knowledge: []entry.Knowledge{},
		Learnings: []entry.Learning{}, Journal: entries}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(x)
}

// dbError words SQLite's answer for a file that is not a ralph database.
func dbError(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no such table: journal"):
		return errors.New("no journal table (not a RefoundAI ralph progress.db)")
	case strings.Contains(msg, "file is not a database"):
		return errors.New("not a SQLite database")
	case strings.Contains(msg, "out of memory"): // SQLITE_NOMEM, at lore-sqlite's memory limit
		return errors.New("reading its journal needs more memory than lore-sqlite may take (a journal that never ends?)")
	}
	return err
}

// row is one row of the journal table, NULLs kept apart.
type row struct {
	id                                     int64
	runID                                  string
	iteration                              int64
	taskID, featureID, model, files, notes sql.NullString
	outcome, createdAt                     string
	duration, cost                         sql.NullFloat64
}

// size is how many bytes r's texts hold.
func (r *row) size() int64 {
	return int64(len(r.runID) + len(r.taskID.String) + len(r.featureID.String) + len(r.model.String) +
		len(r.files.String) + len(r.notes.String) + len(r.outcome) + len(r.createdAt))
}

// sqliteTime is how SQLite's datetime() writes a time (UTC, no zone).
const sqliteTime = "2006-01-02 15:04:05"

// entry is r as lore's journal entry; paths are the files of the rows
// before it, which its own must not be.
func (r row) entry(paths map[string]bool) (entry.JournalEntry, error) {
	if !entry.ValidRunID(r.runID) {
		return entry.JournalEntry{}, fmt.Errorf("run_id %q is not a run id lore can keep (lowercase letters, digits, '.', '_' and '-')", r.runID)
	}
	if r.iteration < 0 || r.iteration > 999_999_999 {
		return entry.JournalEntry{}, fmt.Errorf("iteration %d is out of range", r.iteration)
	}
	if !slices.Contains(entry.Outcomes, r.outcome) {
		return entry.JournalEntry{}, fmt.Errorf("outcome %q must be one of %s", r.outcome, strings.Join(entry.Outcomes, ", "))
	}
	created, err := rfc3339(r.createdAt)
	if err != nil {
		return entry.JournalEntry{}, err
	}
	files := []string{}
	if s := strings.TrimSpace(r.files.String); s != "" && s != "null" {
		if err := json.Unmarshal([]byte(s), &files); err != nil {
			return entry.JournalEntry{}, fmt.Errorf("files_modified is not a JSON array of paths: %q", s)
		}
		if files == nil {
			files = []string{}
		}
	}
	// The file's tag is the row's own: the same row is the same file in
	// every import, and two rows of one iteration (a retry) are two files.
	// Two rows of one run, iteration and time (a row written twice) are
	// told apart by the second's id.
	key := fmt.Sprintf("%s\x00%d\x00%s", r.runID, r.iteration, r.createdAt)
	sum := sha256.Sum256([]byte(key))
	p := entry.JournalPath(r.runID, int(r.iteration), hex.EncodeToString(sum[:entry.JournalTagBytes]))
	for n := 0; paths[p]; n++ {
		sum = sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%d", key, r.id, n)))
		p = entry.JournalPath(r.runID, int(r.iteration), hex.EncodeToString(sum[:entry.JournalTagBytes]))
	}
	paths[p] = true
	return entry.JournalEntry{
		RunID:         r.runID,
		Iteration:     int(r.iteration),
		TaskID:        strings.TrimSpace(r.taskID.String),
		FeatureID:     strings.TrimSpace(r.featureID.String),
		Outcome:       r.outcome,
		Model:         strings.TrimSpace(r.model.String),
		DurationSecs:  r.duration.Float64,
		CostUSD:       r.cost.Float64,
		FilesModified: files,
		CreatedAt:     created,
		Notes:         strings.TrimSpace(r.notes.String),
		Path:          p,
	}, nil
}

// rfc3339 is s, a time as ralph writes it (RFC 3339) or as SQLite's
// datetime() does (UTC), in RFC 3339.
func rfc3339(s string) (string, error) {
	s = strings.TrimSpace(s)
	if _, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return s, nil
	}
	for _, layout := range []string{sqliteTime, "2006-01-02T15:04:05", sqliteTime + ".999999999", "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Format(time.RFC3339), nil
		}
	}
	return "", fmt.Errorf("created_at %q is not a time (RFC 3339, or SQLite's 2006-01-02 15:04:05)", s)
}
