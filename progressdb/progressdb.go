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

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

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

// Read returns the iterations of the journal table of the database at
// path, in the table's order, as lore journal entries. Each entry's file
// is named from its row (run, iteration and creation time), so reading
// the same row again names the same file and an import of it twice
// changes nothing. A row lore cannot keep (a run id or outcome lore does
// not know, a time that is not one, files_modified that is not a JSON
// array of strings) is an error naming the file and the row's id.
func Read(path string) ([]entry.JournalEntry, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if !logWithoutShm(path) {
		return read(path, path)
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
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(path+suffix, copied+suffix); err != nil {
			return nil, err
		}
	}
	return read(copied, path)
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

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o600)
}

// read reads the journal of the database at path, named name in errors.
func read(path, name string) ([]entry.JournalEntry, error) {
	// mode=ro: SQLite opens the file read-only and creates no journal
	// beside it; query_only refuses any statement that would write.
	dsn := (&url.URL{Scheme: "file", OmitHost: true, Path: path, RawQuery: "mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)"}).String()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT id, run_id, iteration, task_id, feature_id, outcome, model,
		duration_secs, cost_usd, files_modified, notes, created_at FROM journal ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, dbError(err))
	}
	defer rows.Close()
	var entries []entry.JournalEntry
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.runID, &r.iteration, &r.taskID, &r.featureID, &r.outcome, &r.model,
			&r.duration, &r.cost, &r.files, &r.notes, &r.createdAt); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		e, err := r.entry()
		if err != nil {
			return nil, fmt.Errorf("%s: journal row id %d: %w", name, r.id, err)
		}
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, dbError(err))
	}
	return entries, nil
}

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

// sqliteTime is how SQLite's datetime() writes a time (UTC, no zone).
const sqliteTime = "2006-01-02 15:04:05"

// entry is r as lore's journal entry.
func (r row) entry() (entry.JournalEntry, error) {
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
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", r.runID, r.iteration, r.createdAt)))
	tag := hex.EncodeToString(sum[:entry.JournalTagBytes])
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
		Path:          entry.JournalPath(r.runID, int(r.iteration), tag),
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
