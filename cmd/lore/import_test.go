package main

import (
	"bytes"
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
