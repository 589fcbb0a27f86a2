package mdstore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"lore/mdstore/entry"
)

// TestRecordedFilesAreTheRepositorys: --files (journal add, ingest) and
// MCP's files recorded paths outside the repository as an iteration's
// files (issue 36). Each is refused, naming the path, and nothing is
// committed; a path inside, absolute or not, is recorded relative to the
// top, as C git reads the file back.
func TestRecordedFilesAreTheRepositorys(t *testing.T) {
	t.Parallel()
	r, s := secretStore(t)
	for _, files := range [][]string{{"a.go", "../other/b.go"}, {"/etc/passwd"}, {filepath.Join(filepath.Dir(r.Dir), "x.go")}} {
		_, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "run-1", Outcome: "done", FilesModified: files})
		var ie *entry.InputError
		if !errors.As(err, &ie) || ie.Field != "files" || !strings.Contains(err.Error(), "is outside the repository") {
			t.Errorf("journal add %q: %v", files, err)
		}
		_, _, err = s.Ingest(IngestInput{Output: "<task-done>T-1</task-done>", RunID: "run-1", Files: files})
		if !errors.As(err, &ie) || ie.Field != "files" || !strings.Contains(err.Error(), "is outside the repository") {
			t.Errorf("ingest %q: %v", files, err)
		}
	}
	if got := r.Git("rev-list", "--count", "HEAD"); got != "1" {
		t.Fatalf("%s commits, want 1", got)
	}
	e, _, _, err := s.AddJournal(entry.JournalEntry{RunID: "run-1", Outcome: "done", FilesModified: []string{filepath.Join(r.Dir, "src", "a.go"), "./b.go"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Git("show", "HEAD:"+e.Path); !strings.Contains(got, "files_modified: [src/a.go, b.go]") {
		t.Errorf("recorded:\n%s", got)
	}
}
