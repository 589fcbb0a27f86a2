package main

import (
	"bytes"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"lore/internal/loretest"
)

// TestASortWithoutEndIsBounded: a progress.db whose journal was an
// endless recursive view made lore-sqlite fill the temporary directory,
// about 1 GB every 25 s (issue 36). A view that sorts rows without end
// now ends at once in SQLite's "out of memory" at lore-sqlite's memory
// limit (LORE_SQLITE_MEMORY, here 128 MiB). (SQLite unlinks a temporary
// file as it makes it, so what a sort spills is not seen in a listing of
// the directory: a sort that spilled would run on to lore-sqlite's
// minute.)
func TestASortWithoutEndIsBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the memory limit is Linux's RLIMIT_DATA")
	}
	p := filepath.Join(t.TempDir(), "progress.db")
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`CREATE VIEW journal AS WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM numbers)
		SELECT n AS id, 'run-1a2b3c4d' AS run_id, n AS iteration, NULL AS task_id, NULL AS feature_id, 'done' AS outcome,
		NULL AS model, NULL AS duration_secs, NULL AS cost_usd, NULL AS files_modified, printf('%.1000c', 'x') AS notes,
		'2026-02-03T10:15:00Z' AS created_at FROM numbers ORDER BY n DESC`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(filepath.Join(loretest.Built(t).Dir, "lore-sqlite"), p)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "SQLITE_TMPDIR="+tmp, "LORE_SQLITE_MEMORY=134217728")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := loretest.NoHang(t, "lore-sqlite reading a sort without end")
	err = cmd.Run()
	done()
	if err == nil || !strings.Contains(stderr.String(), "needs more memory than lore-sqlite may take") {
		t.Errorf("%v, want SQLite's out of memory, said:\n%s", err, stderr.String())
	}
	if stdout.Len() > 0 {
		t.Errorf("wrote %d bytes to stdout", stdout.Len())
	}
}
