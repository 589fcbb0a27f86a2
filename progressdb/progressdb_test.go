package progressdb

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"lore/internal/loretest"
	"lore/mdstore/entry"
)

// seedRows are seed 000's own example iterations ("Rendered Format"),
// with its journal sigil's notes, and a blocked one whose time SQLite's
// datetime() wrote.
const seedRows = `
INSERT INTO journal (run_id, iteration, task_id, feature_id, outcome, model, duration_secs, cost_usd, files_modified, notes, created_at)
VALUES ('run-1a2b3c4d', 3, 't-abc123', 'f-00aa11', 'done', 'sonnet', 42.0, 0.0, '["src/main.rs","src/lib.rs"]',
        'Chose HashMap over BTreeMap for O(1) lookups. The task description mentioned
ordering but after reading the spec, insertion order doesn''t matter. Tests pass.', '2026-02-03T10:15:00Z');
INSERT INTO journal (run_id, iteration, task_id, outcome, model, duration_secs, cost_usd, files_modified, notes, created_at)
VALUES ('run-1a2b3c4d', 4, 't-def456', 'retried', 'opus', 198.3, 1.1155, '["src/parser.rs"]',
        'Verification failed on edge case. Fixing in next attempt.', '2026-02-03T10:18:30.250+01:00');
INSERT INTO journal (run_id, iteration, outcome, duration_secs, files_modified, notes, created_at)
VALUES ('run-1a2b3c4d', 5, 'blocked', NULL, NULL, NULL, '2026-02-03 10:25:00');
`

// makeDB creates a progress.db in dir with seed 000's schema and sql run
// on it, as ralph would.
func makeDB(t *testing.T, dir, sqlText string) string {
	t.Helper()
	p := filepath.Join(dir, "progress.db")
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(Schema + sqlText); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadGivesSeedRowsAsJournalEntries(t *testing.T) {
	p := makeDB(t, t.TempDir(), seedRows)
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d entries, want 3", len(got))
	}
	first := got[0]
	first.Path = ""
	want := entry.JournalEntry{RunID: "run-1a2b3c4d", Iteration: 3, TaskID: "t-abc123", FeatureID: "f-00aa11", Outcome: "done",
		Model: "sonnet", DurationSecs: 42, FilesModified: []string{"src/main.rs", "src/lib.rs"}, CreatedAt: "2026-02-03T10:15:00Z",
		Notes: "Chose HashMap over BTreeMap for O(1) lookups. The task description mentioned\nordering but after reading the spec, insertion order doesn't matter. Tests pass."}
	if !reflect.DeepEqual(first, want) {
		t.Errorf("row 1:\n got %+v\nwant %+v", first, want)
	}
	if got[1].CostUSD != 1.1155 || got[1].CreatedAt != "2026-02-03T10:18:30.250+01:00" || got[1].Outcome != "retried" {
		t.Errorf("row 2: %+v", got[1])
	}
	if e := got[2]; e.CreatedAt != "2026-02-03T10:25:00Z" || e.Notes != "" || len(e.FilesModified) != 0 || e.FilesModified == nil || e.Model != "" {
		t.Errorf("row 3 (NULLs, SQLite's time): %+v", e)
	}
	for _, e := range got {
		dir, name := filepath.Split(e.Path)
		if dir != ".agent/journal/run-1a2b3c4d/" {
			t.Errorf("%s: not in its run's directory", e.Path)
		}
		if n, tag, ok := entry.JournalFileName(name); !ok || n != e.Iteration || len(tag) != 2*entry.JournalTagBytes {
			t.Errorf("%s: not the name of iteration %d with a tag", e.Path, e.Iteration)
		}
	}
	// The same rows name the same files: a second import changes nothing.
	again, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, got) {
		t.Error("a second read differs from the first")
	}
	// Read only: the file is as it was, and nothing was made beside it.
	after, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("reading changed progress.db")
	}
	if names, _ := filepath.Glob(p + "*"); len(names) != 1 {
		t.Errorf("files beside the database after a read: %v", names)
	}
}

// TestReadSeesWhatTheWALHolds: ralph runs SQLite in WAL mode, and rows
// still in the write-ahead log (not yet checkpointed) are rows.
func TestReadSeesWhatTheWALHolds(t *testing.T) {
	dir := t.TempDir()
	p := makeDB(t, dir, "PRAGMA journal_mode=WAL;")
	db, err := sql.Open("sqlite", p+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec("PRAGMA wal_autocheckpoint=0;" + seedRows); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(p + "-wal"); err != nil || info.Size() == 0 {
		t.Fatalf("no write-ahead log to read: %v", err)
	}
	// A copy taken while ralph has it open, without its -shm file (as a
	// crash and a copy leave it): a read-write open would fold the log
	// into the file when it closes.
	crashed := filepath.Join(t.TempDir(), "progress.db")
	for _, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(p + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(crashed+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := readAll(t, crashed)
	for _, db := range []string{p, crashed} {
		got, err := Read(db)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("%s: got %d entries, want the 3 in the log", db, len(got))
		}
	}
	if after := readAll(t, crashed); !reflect.DeepEqual(before, after) {
		t.Error("reading changed the database or its log")
	}
	if _, err := os.Stat(crashed + "-shm"); err == nil {
		t.Error("reading made a -shm file beside the database")
	}
}

// readAll is the content of the database at p and of its -wal file.
func readAll(t *testing.T, p string) [2]string {
	var out [2]string
	for i, suffix := range []string{"", "-wal"} {
		data, err := os.ReadFile(p + suffix)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(data)
	}
	return out
}

func TestReadNamesTheRowLoreCannotKeep(t *testing.T) {
	for _, tc := range []struct{ name, row, want string }{
		{"run id", `('Run 7', 1, 'done', '[]', '2026-02-03T10:15:00Z')`, `row id 2: run_id "Run 7"`},
		{"time", `('run-1a2b3c4d', 1, 'done', '[]', 'yesterday')`, `row id 2: created_at "yesterday" is not a time`},
		{"files", `('run-1a2b3c4d', 1, 'done', 'src/a.rs', '2026-02-03T10:15:00Z')`, `row id 2: files_modified is not a JSON array`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := makeDB(t, t.TempDir(), `INSERT INTO journal (run_id, iteration, outcome, files_modified, created_at) VALUES
				('run-1a2b3c4d', 1, 'done', '[]', '2026-02-03T10:15:00Z'), `+tc.row+";")
			_, err := Read(p)
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %s and %q", err, p, tc.want)
			}
		})
	}
}

func TestReadRefusesWhatIsNotAProgressDB(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.db")
	os.WriteFile(text, []byte("not a database at all, but long enough to have a header of a hundred bytes....................................."), 0o644)
	if _, err := Read(text); err == nil || !strings.Contains(err.Error(), "not a SQLite database") {
		t.Errorf("a text file: %v", err)
	}
	other := filepath.Join(dir, "other.db")
	db, _ := sql.Open("sqlite", other)
	db.Exec("CREATE TABLE tasks (id TEXT)")
	db.Close()
	if _, err := Read(other); err == nil || !strings.Contains(err.Error(), "no journal table") {
		t.Errorf("a database without a journal: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("a missing file read without error")
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "missing.db*")); len(names) != 0 {
		t.Errorf("reading a missing database made %v", names)
	}
}

// hostileDB is a progress.db whose journal is the view body: what a
// database made to hurt lore import could hold.
func hostileDB(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "progress.db")
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE VIEW journal AS " + body); err != nil {
		t.Fatal(err)
	}
	return p
}

// rowsOf is a view body yielding the rows of numbers's n as journal rows,
// each with notes of 1,000 bytes.
const rowsOf = `SELECT n AS id, 'run-1a2b3c4d' AS run_id, n AS iteration, NULL AS task_id, NULL AS feature_id, 'done' AS outcome,
	NULL AS model, NULL AS duration_secs, NULL AS cost_usd, NULL AS files_modified, printf('%.1000c', 'x') AS notes,
	'2026-02-03T10:15:00Z' AS created_at FROM numbers`

// TestAHostileDatabaseIsBounded: a progress.db whose journal was an
// endless recursive view made lore import run for ever while lore-sqlite
// filled the temporary directory (about 1 GB every 25 s). Each way such a
// database could cost without end is cut short with an error: a journal
// without end (no sort of it is asked for: MaxRows ends it), a query that
// yields nothing for ever (the time), a value of gigabytes. (What a sort
// inside the view may take is lore-sqlite's memory limit's to bound:
// cmd/lore-sqlite's test.)
func TestAHostileDatabaseIsBounded(t *testing.T) {
	endless := "WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM numbers) "
	limits := Limits{Timeout: time.Hour, MaxRows: 1000, MaxBytes: 1 << 30, CopyBytes: 1 << 30}
	for _, c := range []struct {
		name   string
		body   string
		limits Limits
		want   string
	}{
		{"an endless journal", endless + rowsOf, limits, "more than 1000 rows"},
		{"a journal that never yields a row", endless + rowsOf + " WHERE n < 0",
			Limits{Timeout: 100 * time.Millisecond, MaxRows: 1000, MaxBytes: 1 << 30, CopyBytes: 1 << 30}, "took longer than 100ms"},
		{"more text than a journal holds", endless + rowsOf, Limits{Timeout: time.Hour, MaxRows: 1 << 30, MaxBytes: 512 << 10, CopyBytes: 1 << 30},
			"more than 512 KiB of text"},
		{"a value of 100 MB", "WITH numbers(n) AS (SELECT 1) " + strings.Replace(rowsOf, "printf('%.1000c', 'x')", "zeroblob(100000000)", 1),
			limits, "too big"},
	} {
		t.Run(c.name, func(t *testing.T) {
			done := loretest.NoHang(t, "reading "+c.name)
			_, err := ReadWithin(hostileDB(t, c.body), c.limits)
			done()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, want an error saying %q", err, c.want)
			}
		})
	}
}

// TestReadFollowsNoLink: a progress.db that is a symbolic link could
// point anywhere (a FIFO, a device); it is not read.
func TestReadFollowsNoLink(t *testing.T) {
	p := makeDB(t, t.TempDir(), seedRows)
	link := filepath.Join(t.TempDir(), "progress.db")
	if err := os.Symlink(p, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a link: %v", err)
	}
}

// TestRowsOfOneIterationAndTime: two rows of one run, iteration and time
// named one file, and the export held it twice; each has a file of its
// own, the first's the name it always had.
func TestRowsOfOneIterationAndTime(t *testing.T) {
	p := makeDB(t, t.TempDir(), `INSERT INTO journal (run_id, iteration, outcome, notes, created_at) VALUES
		('run-1a2b3c4d', 1, 'failed', 'first', '2026-02-03T10:15:00Z'),
		('run-1a2b3c4d', 1, 'done', 'second', '2026-02-03T10:15:00Z');`)
	got, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Path == got[1].Path {
		t.Fatalf("rows: %+v", got)
	}
	alone := makeDB(t, t.TempDir(), `INSERT INTO journal (run_id, iteration, outcome, notes, created_at) VALUES
		('run-1a2b3c4d', 1, 'failed', 'first', '2026-02-03T10:15:00Z');`)
	first, err := Read(alone)
	if err != nil {
		t.Fatal(err)
	}
	if first[0].Path != got[0].Path {
		t.Errorf("the first row's file is %s, it was %s", got[0].Path, first[0].Path)
	}
}
