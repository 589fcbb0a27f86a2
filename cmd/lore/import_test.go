package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"lore/internal/loretest"
)

// loreIn runs lore in process in r, as the CLI would, and returns its exit
// status and output.
func loreIn(r *loretest.Repo, stdin string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	clock := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	e := &env{
		stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr,
		now:     func() time.Time { clock = clock.Add(time.Second); return clock },
		random:  bytes.NewReader(bytes.Repeat([]byte{0x5e, 0xc2, 0xe7, 0x15}, 256)),
		getenv:  r.Getenv,
		workDir: r.Dir,
	}
	code := run(args, e)
	return code, stdout.String(), stderr.String()
}

// TestImportReadsOnlyRegularFiles: lore import of /dev/zero or of a FIFO
// hung, and a symbolic link where a seed system keeps its store (a
// .ralph/knowledge that is a link) was followed. Each is refused, saying
// what is there, without a read; nothing is committed, as C git sees.
func TestImportReadsOnlyRegularFiles(t *testing.T) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	out := t.TempDir()
	fifo := filepath.Join(out, "export.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	export := filepath.Join(out, "real.json")
	os.WriteFile(export, []byte(`{"lore_export": 1, "memories": [], "knowledge": [], "learnings": [], "journal": []}`), 0o644)
	link := filepath.Join(out, "link.json")
	os.Symlink(export, link)

	// A project whose .ralph/knowledge is a link to a directory of
	// knowledge files, and one whose memories.md is a FIFO.
	linked := t.TempDir()
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "note.md"), []byte("---\ntitle: \"Elsewhere\"\ntags: [x]\n---\n\nRead through a link.\n"), 0o644)
	os.MkdirAll(filepath.Join(linked, ".ralph"), 0o755)
	os.Symlink(elsewhere, filepath.Join(linked, ".ralph", "knowledge"))
	piped := t.TempDir()
	os.MkdirAll(filepath.Join(piped, ".ralph", "agent"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(piped, ".ralph", "agent", "memories.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	head := r.Git("rev-parse", "HEAD")
	for _, c := range []struct{ source, want string }{
		{"/dev/zero", "not a regular file"},
		{fifo, "not a regular file (a named pipe)"},
		{link, "a symbolic link"},
		{linked, "knowledge: a symbolic link"},
		{piped, "memories.md: not a regular file (a named pipe)"},
	} {
		done := loretest.NoHang(t, "lore import "+c.source)
		code, _, stderr := loreIn(r, "", "import", c.source)
		done()
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("lore import %s: exit %d, want 2 and %q:\n%s", c.source, code, c.want, stderr)
		}
	}
	if got := r.Git("rev-parse", "HEAD"); got != head {
		t.Error("an import was committed")
	}
	if code, stdout, stderr := loreIn(r, "", "import", export); code != exitOK || !strings.Contains(stdout, "Nothing to import") {
		t.Errorf("the regular file: exit %d\n%s%s", code, stdout, stderr)
	}
	r.AssertHealthy()
}

// TestIngestHookReadsOnlyARegularTranscript: a Claude Code Stop payload
// whose transcript_path was a FIFO hung the hook. It is refused, and the
// hook says so.
func TestIngestHookReadsOnlyARegularTranscript(t *testing.T) {
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	payload := `{"session_id": "5ec2e715-0000-4000-8000-000000000000", "transcript_path": ` + strconv.Quote(fifo) +
		`, "cwd": ` + strconv.Quote(r.Dir) + `, "hook_event_name": "Stop"}`
	head := r.Git("rev-parse", "HEAD")
	done := loretest.NoHang(t, "lore ingest --hook claude")
	code, _, stderr := loreIn(r, payload, "ingest", "--hook", "claude")
	done()
	if code == exitOK || !strings.Contains(stderr, "not a regular file (a named pipe)") {
		t.Errorf("exit %d, want a failure naming the FIFO:\n%s", code, stderr)
	}
	if got := r.Git("rev-parse", "HEAD"); got != head {
		t.Error("something was committed")
	}
}

// TestSQLiteHelperDiesWithLore: a progress.db whose journal never ends
// kept lore import running, and lore-sqlite outlived a killed lore. lore
// is killed while lore-sqlite reads such a database; once the kernel has
// reaped lore, lore-sqlite is gone or has SIGKILL pending.
func TestSQLiteHelperDiesWithLore(t *testing.T) {
	if _, err := os.Stat("/proc/self/task"); err != nil {
		t.Skip("no /proc")
	}
	bins := loretest.Built(t)
	r := loretest.NewRepo(t)
	r.Commit("initial", map[string]string{"README.md": "# p\n"})
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, ".ralph"), 0o755)
	db, err := sql.Open("sqlite", filepath.Join(project, ".ralph", "progress.db"))
	if err != nil {
		t.Fatal(err)
	}
	// A journal that yields no row, for ever (until lore-sqlite's own
	// minute is up).
	_, err = db.Exec(`CREATE VIEW journal AS WITH RECURSIVE numbers(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM numbers)
		SELECT n AS id, 'run-1' AS run_id, n AS iteration, NULL AS task_id, NULL AS feature_id, 'done' AS outcome, NULL AS model,
		NULL AS duration_secs, NULL AS cost_usd, NULL AS files_modified, NULL AS notes, '' AS created_at FROM numbers WHERE n < 0`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	lore := r.Command(r.Dir)
	lore.Path, lore.Args = filepath.Join(bins.Dir, "lore"), []string{"lore", "import", project}
	var stderr bytes.Buffer
	lore.Stderr = &stderr
	if err := lore.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { lore.Wait(); close(exited) }()
	done := loretest.NoHang(t, "waiting for lore-sqlite to start")
	helper := 0
	for helper == 0 {
		select {
		case <-exited:
			t.Fatalf("lore ended before lore-sqlite started: %s", stderr.String())
		default:
		}
		helper = childNamed(lore.Process.Pid, "lore-sqlite")
	}
	done()
	lore.Process.Kill()
	<-exited
	if alive, killed := processState(helper); alive && !killed {
		syscall.Kill(helper, syscall.SIGKILL)
		t.Fatalf("lore-sqlite (pid %d) outlived lore", helper)
	}
}

// childNamed is the pid of a child of pid running the program name, or 0.
func childNamed(pid int, name string) int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	for _, task := range tasks {
		data, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(data)) {
			child, _ := strconv.Atoi(f)
			if comm, _ := os.ReadFile(filepath.Join("/proc", f, "comm")); strings.TrimSpace(string(comm)) == name {
				return child
			}
		}
	}
	return 0
}

// processState says whether pid is alive (not gone, not a zombie), and
// whether SIGKILL is pending for it.
func processState(pid int) (alive, killed bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return false, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		key, value, _ := strings.Cut(line, ":")
		value = strings.TrimSpace(value)
		switch key {
		case "State":
			alive = !strings.HasPrefix(value, "Z") && !strings.HasPrefix(value, "X")
		case "SigPnd", "ShdPnd":
			if mask, err := strconv.ParseUint(value, 16, 64); err == nil && mask&(1<<(syscall.SIGKILL-1)) != 0 {
				killed = true
			}
		}
	}
	return alive, killed
}
